"""The Offer: one rentable thing at one price, as every adapter reports it."""

from __future__ import annotations

import calendar
import functools
import re
import statistics
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum

from pricing.fx import BASE
from pricing.hours import HOURS_PER_MONTH

# The adapter whose rows stand in for a cloud until that cloud's own adapter has a current run.
BUNDLED = "bundled"

# Widest value each short text column takes; importers check against these for row errors.
TEXT_LIMITS = {
    "provider": 64,
    "service": 64,
    "product": 200,
    "region": 64,
    "zone": 64,
    "accelerator": 64,
    "pricing": 32,
    "confidence": 32,
    "price_as_of": 64,
    "market": 32,
    "interruption": 16,
    "purchase_option": 32,
}


class PricingModel(StrEnum):
    ON_DEMAND = "on_demand"
    SPOT = "spot"
    RESERVED_1M = "reserved_1m"
    RESERVED_3M = "reserved_3m"
    RESERVED_6M = "reserved_6m"
    RESERVED_1Y = "reserved_1y"
    RESERVED_2Y = "reserved_2y"
    RESERVED_3Y = "reserved_3y"
    RESERVED_5Y = "reserved_5y"
    COMPUTE_UNITS = "compute_units"  # Colab: units/hour x price/unit, no guaranteed capacity
    SUBSCRIPTION = "subscription"


# Offers the provider may take away mid-run: the engine adds the spot overhead to them.
INTERRUPTIBLE = frozenset({PricingModel.SPOT, PricingModel.COMPUTE_UNITS})

# Hourly offers a training job can be priced against; reserved terms commit a month or more.
HOURLY = frozenset({PricingModel.ON_DEMAND, PricingModel.SPOT, PricingModel.COMPUTE_UNITS})

# Committed terms as providers sell them, by length in months: capacity paid for every hour of
# the term, used or not. Clouds sell 1 and 3 years (AWS, Google Cloud, Azure; Azure also 5);
# the GPU clouds a month to 2 years (Verda 1, 3, 6, 12 and 24 months, Civo 6 to 36, Jarvislabs
# and Cirrascale 1 to 12). A term is one row here, and every committed order, floor and tier
# follows from this table. A term's hours (on pricing/hours.py's calendar) are the divisor
# that turns a term's price into the effective hourly rate.
TERM_MONTHS = {
    PricingModel.RESERVED_1M: 1,
    PricingModel.RESERVED_3M: 3,
    PricingModel.RESERVED_6M: 6,
    PricingModel.RESERVED_1Y: 12,
    PricingModel.RESERVED_2Y: 24,
    PricingModel.RESERVED_3Y: 36,
    PricingModel.RESERVED_5Y: 60,
}
TERM_HOURS = {term: months * HOURS_PER_MONTH for term, months in TERM_MONTHS.items()}
COMMITTED = frozenset(TERM_HOURS)

# Every tier an offer may be priced in that a job can be costed against.
PRICED = HOURLY | COMMITTED

# How a committed term is bought. AWS reserved instances: no, partial or all upfront, the
# rest billed hourly over the term; Google Cloud's resource-based commitments: billed
# monthly, nothing upfront; Azure reservations: the term's total, paid upfront or monthly
# at the same price; savings plans (AWS, Azure): an hourly spend committed for the term.
PURCHASE_OPTIONS = (
    "no_upfront",
    "partial_upfront",
    "all_upfront",
    "commitment",
    "reservation",
    "savings_plan",
)

# Capacity the provider does not take back mid-run: what a headline compares with by
# default (pricing=dependable); interruptible tiers stand beside it.
DEPENDABLE = frozenset({PricingModel.ON_DEMAND}) | COMMITTED

# What the `pricing` parameter may name: one pricing model, or a set of them.
PRICING_CHOICES: dict[str, frozenset[PricingModel]] = {
    "dependable": DEPENDABLE,
    "any": PRICED,
    "interruptible": INTERRUPTIBLE,
    **{str(p): frozenset({p}) for p in sorted(PRICED)},
}


def pricing_models(choice: str) -> frozenset[PricingModel]:
    """The pricing models a `pricing` choice admits (PRICING_CHOICES)."""
    return PRICING_CHOICES[choice]


def in_listed_order(pricings: Collection[str]) -> tuple[str, ...]:
    """Pricing models as an answer lists them: in PricingModel's order (on demand, then the
    terms shortest first), not alphabetically."""
    return tuple(str(p) for p in PricingModel if p in pricings)


@functools.cache  # one per choice
def admitted_names(choice: str) -> tuple[str, ...]:
    """The pricing models a `pricing` choice admits, in_listed_order."""
    return in_listed_order(PRICING_CHOICES[choice])


# Who runs the machine an offer rents. A cloud's own data centres; RunPod's Secure Cloud
# (vetted data centres) and Community Cloud (individual hosts); Vast.ai's verified and
# unverified hosts. Marketplaces rent consumer cards (RTX 3090, 4090) that clouds do not.
MARKETS = ("cloud", "secure", "community", "verified", "unverified")

# Each provider as it sells itself, for the names a person reads ("2 x RTX 5090 on a
# Vast.ai verified host in CN"); the id (``Offer.provider``) stays the key everywhere else.
PROVIDER_NAMES = {
    "aws": "AWS",
    "gcp": "Google Cloud",
    "azure": "Azure",
    "lambda": "Lambda",
    "runpod": "RunPod",
    "vast": "Vast.ai",
    "colab": "Colab",
    "autodl": "AutoDL",
    "alibaba": "Alibaba Cloud",
    "tencent": "Tencent Cloud",
    "together": "Together AI",
    "verda": "Verda (DataCrunch)",
    "hyperbolic": "Hyperbolic",
    "civo": "Civo",
    "gcore": "Gcore",
    "jarvislabs": "Jarvislabs",
    "digitalocean": "DigitalOcean",
    "paperspace": "Paperspace",
    "cirrascale": "Cirrascale",
    "coreweave": "CoreWeave",
    "nebius": "Nebius",
    "hyperstack": "Hyperstack",
    "massedcompute": "Massed Compute",
    "oci": "Oracle Cloud (OCI)",
    "crusoe": "Crusoe",
    "voltagepark": "Voltage Park",
    "ovhcloud": "OVHcloud",
    "custom": "your own price list",
}

# The interruption bands providers publish (service/engine/interruption.py turns each into
# lost work). AWS's Spot Instance Advisor: the share of a type's spot instances reclaimed in
# a region over the trailing month. Azure's eviction rates (Resource Graph): the chance a VM
# is evicted within the next hour, from the last 28 days; Azure's "0-5" is kept as
# "0-5% per hour", so the two publishers' bands never share a label.
AWS_INTERRUPTION_BANDS = ("<5%", "5-10%", "10-15%", "15-20%", ">20%")
AZURE_EVICTION_BANDS = (
    "0-5% per hour",
    "5-10% per hour",
    "10-15% per hour",
    "15-20% per hour",
    "20+% per hour",
)
INTERRUPTION_BANDS = AWS_INTERRUPTION_BANDS + AZURE_EVICTION_BANDS


@dataclass(frozen=True, slots=True)
class Offer:
    provider: str  # the cloud: aws, gcp, colab, azure, lambda, custom ...
    product: str  # instance, machine, TPU type or Colab runtime
    region: str
    accelerator: str  # canonical accelerator id (hardware registry)
    count: int  # accelerators in the offer (TPU: chips)
    pricing: PricingModel
    usd_per_hour: float  # the whole offer
    price_as_of: str  # when the price itself was published or read (ISO date or month)
    source: str
    service: str = ""
    zone: str = ""
    memory_gb: float | None = None  # per accelerator; None = the registry's figure
    host_included: bool = True  # False: GPU-only price, a VM must be added (GCP attached GPUs)
    estimated: bool = False
    suspect: bool = False
    confidence: str = ""
    notes: str = ""
    market: str = "cloud"  # one of MARKETS
    reliability: float | None = None  # the marketplace's uptime score, 0-1, where it gives one
    interruption: str = ""  # one of INTERRUPTION_BANDS where the provider publishes it, else ""
    # committed terms (a pricing in TERM_MONTHS): how the term is bought, and the
    # share of its total paid before the first hour. usd_per_hour is then the effective rate:
    # the hourly charge plus any upfront fee spread over the term's hours.
    purchase_option: str = ""  # one of PURCHASE_OPTIONS for a committed offer, else ""
    upfront_share: float | None = None  # 0-1 for a committed offer, else None
    # A price given in another currency (a Chinese cloud's yuan) keeps what was given: the
    # price for the whole offer in its currency, and the ECB rate and day that made
    # usd_per_hour of it. A dollar price has none of them.
    currency: str = BASE
    price_per_hour: float | None = None
    fx_per_usd: float | None = None
    fx_day: str = ""

    def __post_init__(self) -> None:
        """A price in another currency is never used unconverted: it comes with its rate."""
        if self.currency != BASE and (
            self.price_per_hour is None or self.fx_per_usd is None or not self.fx_day
        ):
            raise ValueError(f"a price in {self.currency} without the rate that converted it")

    @property
    def usd_per_accelerator_hour(self) -> float:
        return self.usd_per_hour / self.count

    @property
    def term_hours(self) -> float | None:
        """Hours a committed offer's term runs (and is paid for); None: billed as used."""
        return TERM_HOURS.get(self.pricing)

    @property
    def identity(self) -> tuple[object, ...]:
        """What one offer is, whatever its price: two rows alike here are duplicates, and an
        import replaces the row it matches."""
        return (
            self.provider,
            self.product,
            self.region,
            self.zone,
            self.accelerator,
            self.count,
            self.pricing,
            self.purchase_option,
        )


@dataclass(frozen=True, slots=True)
class StoredOffer:
    """An offer as served: the record plus the run it came from."""

    offer: Offer
    run_id: int
    fetched_at: datetime


@dataclass(frozen=True, slots=True)
class PriceSpan:
    """A price and the span it held: from the run that first read it until a run of its
    source read another price for the offer, or no offer (None: it still holds)."""

    offer: Offer
    run_id: int  # the run that first read it
    fetched_at: datetime  # when that run finished
    until: datetime | None


@dataclass(slots=True)
class PriceLine:
    """An accelerator's prices from one provider and tier over days, per accelerator-hour:
    a value per day in each column, oldest first (a chart's line, and cheap to carry for
    years of days)."""

    provider: str
    pricing: str
    days: list[date] = field(default_factory=list)
    low: list[float] = field(default_factory=list)
    median: list[float] = field(default_factory=list)
    offers: list[int] = field(default_factory=list)

    def add(self, day: date, low: float, median: float, offers: int) -> None:
        self.days.append(day)
        self.low.append(low)
        self.median.append(median)
        self.offers.append(offers)


def day_prices(prices: Sequence[float]) -> tuple[float, float, int]:
    """What a price series keeps of one day's offers of a line (their prices per
    accelerator-hour): the lowest, the median and how many."""
    return min(prices), statistics.median(prices), len(prices)


_DATE_TOKEN = re.compile(r"\b(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?\b")
# "before 2026-11-30": a price read from a catalog that day, collected at some unknown time
# before it. It names a date, but its age is unknown, so it never reads fresh.
READ_BEFORE = "before "


@functools.lru_cache(maxsize=4096)  # a catalog has few distinct as-of texts; answers ask often
def price_date(price_as_of: str) -> date | None:
    """The date a price was last known true, for its age; None when unknown.

    "2024-04-10" -> that day; "2025-06" -> 2025-06-30; "2017..2025" -> 2025-12-31;
    "before 2026-11-30" and "undated ..." -> None: no known age.
    """
    if price_as_of.startswith(READ_BEFORE):
        return None
    return named_date(price_as_of)


@functools.lru_cache(maxsize=4096)
def named_date(price_as_of: str) -> date | None:
    """The latest date a free-text as-of names, read as the end of its period ("before
    2026-11-30" names 2026-11-30). Reading a period's end errs toward calling a price fresh,
    never stale by mistake of format."""
    latest = None
    for year, month, day in _DATE_TOKEN.findall(price_as_of):
        y = int(year)
        if not 1990 <= y <= 2200:
            continue
        m = int(month) if month else 12
        if not 1 <= m <= 12:
            continue
        last = calendar.monthrange(y, m)[1]
        d = min(int(day), last) if day else last
        found = date(y, m, max(d, 1))
        latest = found if latest is None or found > latest else latest
    return latest
