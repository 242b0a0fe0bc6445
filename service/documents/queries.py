"""The questions, as parsed from a query string or from CLI options (one model for both).

The cost parameters of ``/breakeven`` and ``/rank`` are not written here: both queries take
them from :mod:`service.engine.assumptions`, where each is defined once.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

from hardware import Workload
from service.engine.assumptions import MAX_USD, overrides_model

# Upper bounds keep absurd inputs (1e308 hours) out of the arithmetic; each is far past
# any real workload.
MAX_HOURS = 10_000_000  # ~1,140 years of one card
# Lower bounds do the same for vanishing inputs: hours=5e-324 rounded every rental's cost
# to 0 (break-even "never").
MIN_HOURS = 0.001  # 3.6 seconds of one card


# An ISO 8601 date, or date and time with an optional offset. Only this: pydantic alone also
# reads a number as Unix seconds, so since=2026 would mean 1970-01-01T00:33:46Z.
ISO_MOMENT = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$"
)
IsoMoment = Annotated[datetime, WithJsonSchema({"type": "string", "pattern": ISO_MOMENT})]


class Query(BaseModel):
    # Unknown parameters are an error: a typo (hour=500) must not silently use a default.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


class _BreakevenQuestion(Query):
    gpu: str = Field(min_length=1, max_length=100, description="Card to buy, any alias (rtx3090).")
    hours: float = Field(
        ge=MIN_HOURS, le=MAX_HOURS, description="Workload size: training hours on one such card."
    )
    workload: Workload = Field(Workload.TRANSFORMER, description="Workload class.")
    gpus: int = Field(1, ge=1, le=64, description="Local cards bought.")
    memory: float | None = Field(
        None, gt=0, le=4096, description="GB needed per accelerator (default: the card's)."
    )
    providers: str | None = Field(
        None, max_length=500, description="Comma-separated providers to rent from (all)."
    )
    pricing: Literal["on_demand", "spot", "any"] = Field("any", description="Rental pricing.")
    region: str | None = Field(
        None, max_length=100, description="Region prefix: us matches us-east-1, us-central1."
    )
    top: int = Field(10, ge=1, le=100, description="Rentals listed, cheapest first.")
    price: float | None = Field(
        None, gt=0, le=MAX_USD, description="Purchase price per card, USD (sourced price)."
    )
    watts: float | None = Field(
        None, gt=0, le=10_000, description="Power per card, W (board power)."
    )
    throughput: Literal["auto", "published", "measured"] = Field(
        "auto",
        description="The card's speed: published, measured (breakeven measure), or auto "
        "(measured when there is a calibrated measurement, else published).",
    )


BreakevenQuery = overrides_model(
    _BreakevenQuestion, "BreakevenQuery", "Rent or buy `gpus` cards for `hours` of work?"
)


class _RankQuestion(Query):
    workload: Workload = Field(Workload.TRANSFORMER, description="Workload class.")
    gpu: str = Field("rtx3090", max_length=100, description="The card `hours` are measured on.")
    memory: float | None = Field(None, gt=0, le=4096, description="GB needed per accelerator.")
    budget: float | None = Field(None, gt=0, le=MAX_USD, description="Max purchase, USD.")
    hours: float | None = Field(
        None, ge=MIN_HOURS, le=MAX_HOURS, description="Workload size: rank by work per TCO dollar."
    )
    top: int = Field(10, ge=1, le=100, description="Rentals listed.")


RankQuery = overrides_model(
    _RankQuestion, "RankQuery", "Which card, or which rental, gives the most work per dollar?"
)


class OffersQuery(Query):
    accelerator: str | None = Field(None, max_length=100, description="Accelerator, any alias.")
    provider: str | None = Field(None, max_length=64, description="Provider (aws, gcp ...).")
    pricing: str | None = Field(None, max_length=32, description="Pricing model.")
    region: str | None = Field(None, max_length=100, description="Region prefix.")
    workload: Workload | None = Field(
        None,
        description="With `gpu`: add usd_per_reference_hour, the price of one hour of "
        "`gpu`'s work on this workload class.",
    )
    gpu: str | None = Field(None, max_length=100, description="Reference card for workload.")
    format: Literal["json", "csv"] = Field("json", description="json or csv.")


class HistoryQuery(Query):
    accelerator: str | None = Field(None, max_length=100, description="Accelerator, any alias.")
    provider: str | None = Field(None, max_length=64, description="Provider (aws, gcp ...).")
    region: str | None = Field(None, max_length=100, description="Region prefix.")
    pricing: str | None = Field(None, max_length=32, description="Pricing model.")
    since: IsoMoment | None = Field(
        None, description="ISO date or time (UTC if no offset); default 30 days ago."
    )
    limit: int = Field(10_000, ge=1, le=100_000, description="Most points returned.")
    format: Literal["json", "csv"] = Field("json", description="json or csv.")

    @field_validator("since", mode="before")
    @classmethod
    def _iso_only(cls, value: object) -> object:
        if isinstance(value, str) and not re.fullmatch(ISO_MOMENT, value):
            raise ValueError("expected an ISO date or time: 2026-11-01 or 2026-11-01T12:00Z")
        return value
