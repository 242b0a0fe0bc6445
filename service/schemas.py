"""Pydantic models of the REST API: query parameters in, documents out (OpenAPI source)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator
from pydantic.json_schema import SkipJsonSchema

from hardware import Workload

# Upper bounds keep absurd inputs (1e308 hours) out of the arithmetic; each is far past
# any real workload or price.
MAX_HOURS = 10_000_000  # ~1,140 years of one card
MAX_USD = 100_000_000
# Lower bounds do the same for vanishing inputs: hours=5e-324 rounded every rental's cost
# to 0 (break-even "never"), utilization=5e-324 made the break-even days infinite.
MIN_HOURS = 0.001  # 3.6 seconds of one card
MIN_UTILIZATION = 0.001  # under 9 hours a year


# An ISO 8601 date, or date and time with an optional offset. Only this: pydantic alone also
# reads a number as Unix seconds, so since=2026 would mean 1970-01-01T00:33:46Z.
ISO_MOMENT = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$"
)
IsoMoment = Annotated[datetime, WithJsonSchema({"type": "string", "pattern": ISO_MOMENT})]


class _Query(BaseModel):
    # Unknown parameters are an error: a typo (hour=500) must not silently use a default.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


class BreakevenQuery(_Query):
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
    electricity: float | None = Field(None, ge=0, le=100, description="USD per kWh.")
    pue: float | None = Field(None, ge=1, le=5, description="Power usage effectiveness.")
    load: float | None = Field(None, gt=0, le=1, description="Share of board power drawn.")
    host_cost: float | None = Field(None, ge=0, le=MAX_USD, description="Host machine, USD.")
    host_watts: float | None = Field(None, ge=0, le=100_000, description="Host power, W.")
    utilization: float | None = Field(
        None, ge=MIN_UTILIZATION, le=1, description="Share of calendar time the cards train."
    )
    resale: float | None = Field(
        None, ge=0, le=1, description="Resale value as share of price; 0 = none."
    )
    depreciation: float | None = Field(None, ge=0, lt=1, description="Yearly loss of resale value.")
    spot_overhead: float | None = Field(
        None, ge=0, le=10, description="Extra work on interruptible offers."
    )
    throughput: Literal["auto", "published", "measured"] = Field(
        "auto",
        description="The card's speed: published, measured (breakeven measure), or auto "
        "(measured when there is a calibrated measurement, else published).",
    )


class OffersQuery(_Query):
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


class HistoryQuery(_Query):
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


class RefreshQuery(_Query):
    provider: str | None = Field(None, max_length=64, description="One source; default all.")
    force: bool = Field(False, description="Accept a run that drops many offers at once.")
    wait: bool = Field(False, description="Answer when done (200) instead of at once (202).")


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class ProblemError(BaseModel):
    parameter: str = Field(description="The query or path parameter to blame.")
    reason: str = Field(description="What is wrong with it.")


class ProblemDocument(_Out):
    """RFC 9457 problem details: the body of every 4xx and 5xx, as application/problem+json.

    ``errors`` and ``suggestions`` appear only where they apply, never as null.
    """

    type: str = Field(description="urn:gpu-breakeven:problem:<slug>, or about:blank.")
    title: str = Field(description="The HTTP status phrase.")
    status: int = Field(ge=400, le=599, description="The HTTP status code.")
    detail: str = Field(description="What went wrong, for a person.")
    instance: str = Field(description="The request path.")
    errors: list[ProblemError] | SkipJsonSchema[None] = Field(
        None, description="Each bad parameter and why."
    )
    suggestions: list[str] | SkipJsonSchema[None] = Field(
        None, description="Closest known ids, for an unknown accelerator."
    )


class BuyOut(_Out):
    gpu: str
    gpus: int
    purchase_usd: float
    host_usd: float
    energy_usd: float
    resale_usd: float
    total_usd: float
    hours: float
    price_source: str


class RentOut(_Out):
    provider: str
    product: str
    region: str
    accelerator: str
    count: int
    pricing: str
    usd_per_hour: float
    hours: float
    total_usd: float
    breakeven_hours: float | None
    price_as_of: str
    source: str


class BreakevenPoint(_Out):
    hours: float
    days: float


class PricesOut(_Out):
    as_of: str
    age_seconds: float | None
    stale: bool


class BreakevenAnswer(_Out):
    gpu: str
    hours: float
    workload: Workload
    assumptions: dict[str, object]
    buy: BuyOut
    rent: list[RentOut]
    verdict: Literal["buy", "rent"]
    savings_usd: float
    breakeven: BreakevenPoint | None
    prices: PricesOut


class OfferOut(_Out):
    provider: str
    product: str
    region: str
    zone: str
    accelerator: str
    count: int
    pricing: str
    usd_per_hour: float
    usd_per_accelerator_hour: float
    price_as_of: str
    source: str
    fetched_at: str


class Freshness(_Out):
    age_seconds: float | None
    stale: bool
    providers: dict[str, dict[str, object]]


class OfferList(_Out):
    count: int
    offers: list[OfferOut]
    prices: Freshness


class HistoryPoint(_Out):
    at: str
    provider: str
    product: str
    region: str
    pricing: str
    usd_per_hour: float
    usd_per_accelerator_hour: float


class History(_Out):
    count: int
    since: str
    points: list[HistoryPoint]


class GpuOut(_Out):
    id: str
    name: str
    kind: str
    memory_gb: float
    aliases: list[str]
    buy: dict[str, object] | None
    throughput: dict[str, dict[str, object]]


class GpuList(_Out):
    count: int
    gpus: list[GpuOut]


class ProviderOut(_Out):
    name: str
    status: str
    current_run: dict[str, object] | None
    last_attempt_at: str
    last_error: str


class ProviderList(_Out):
    providers: list[ProviderOut]


class Health(_Out):
    status: str
    catalog_version: int
    offers: int


class RankedCardOut(_Out):
    id: str
    name: str
    memory_gb: float
    board_power_w: float | None
    fits: bool
    within_budget: bool
    purchase_usd: float
    throughput: dict[str, object]
    throughput_per_1000_usd: float
    tco_usd: float | None = Field(description="Over `hours` of work; null without `hours`.")
    reference_hours_per_usd: float | None = Field(
        description="Null without `hours`, or when owning costs nothing (full resale, no "
        "host, no power): such a card ranks first."
    )


class RankedRentalOut(_Out):
    provider: str
    product: str
    region: str
    accelerator: str
    count: int
    pricing: str
    usd_per_hour: float
    usd_per_reference_hour: float
    reference_hours_per_usd: float
    throughput_estimated: bool


class RankAnswer(_Out):
    workload: Workload
    gpu: str
    memory: float | None
    budget: float | None
    hours: float | None
    ranked_by: Literal["reference_hours_per_usd", "throughput_per_1000_usd"]
    cards: list[RankedCardOut]
    too_small: list[RankedCardOut]
    rent: list[RankedRentalOut]
    candidates: int
    prices: Freshness
