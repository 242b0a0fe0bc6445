"""Pydantic models of the REST API: query parameters in, documents out (OpenAPI source)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hardware import Workload

# Upper bounds keep absurd inputs (1e308 hours) out of the arithmetic; each is far past
# any real workload or price.
MAX_HOURS = 10_000_000  # ~1,140 years of one card
MAX_USD = 100_000_000


class _Query(BaseModel):
    # Unknown parameters are an error: a typo (hour=500) must not silently use a default.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


class BreakevenQuery(_Query):
    gpu: str = Field(min_length=1, max_length=100, description="Card to buy, any alias (rtx3090).")
    hours: float = Field(
        gt=0, le=MAX_HOURS, description="Workload size: training hours on one such card."
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
        None, gt=0, le=1, description="Share of calendar time the cards train."
    )
    resale: float | None = Field(
        None, ge=0, le=1, description="Resale value as share of price; 0 = none."
    )
    depreciation: float | None = Field(None, ge=0, lt=1, description="Yearly loss of resale value.")
    spot_overhead: float | None = Field(
        None, ge=0, le=10, description="Extra work on interruptible offers."
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
    since: datetime | None = Field(
        None, description="ISO date or time (UTC if no offset); default 30 days ago."
    )
    limit: int = Field(10_000, ge=1, le=100_000, description="Most points returned.")
    format: Literal["json", "csv"] = Field("json", description="json or csv.")


class RefreshQuery(_Query):
    provider: str | None = Field(None, max_length=64, description="One source; default all.")
    force: bool = Field(False, description="Accept a run that drops many offers at once.")
    wait: bool = Field(False, description="Answer when done (200) instead of at once (202).")


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


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
