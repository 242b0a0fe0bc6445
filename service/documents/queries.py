"""The questions, as parsed from a query string or from CLI options (one model for both).

The cost parameters of ``/breakeven`` and ``/rank`` are not written here: both queries take
them from :mod:`service.engine.assumptions`, where each is defined once.
"""

from __future__ import annotations

import re
from datetime import datetime
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)

from hardware import PLATFORMS, Precision, Workload
from hardware.ownership import SITES
from hardware.tariffs import Country as TariffCountry
from hardware.tariffs import UsState
from pricing.fx import Currency as FxCurrency
from pricing.offer import MARKETS, PRICING_CHOICES, TERM_MONTHS, PricingModel
from service.engine.assumptions import CURRENCY_SPAN, MAX_USD, bounds, overrides_model
from service.engine.hours import HOURS_PER_DAY, HOURS_PER_MONTH, LONGEST_YEARS
from service.engine.request import QUESTION_BOUNDS
from service.engine.sensitivity import PARAMETERS
from service.engine.work import MAX_HOURS, MIN_HOURS  # hours= and every job's bounds

# Upper bounds keep absurd inputs (1e308 GB) out of the arithmetic; each is far past
# any real workload.
# Cards one quote buys: as many 8-card servers as the largest cluster max_instances allows a
# rental, 4,096 (a 405B-parameter model's weights and optimizer alone fill 81 H100s).
CARDS_PER_SERVER = 8
MAX_CARDS = CARDS_PER_SERVER * int(bounds("max_instances")["le"])
# The longest deadline, and the longest steady work: the longest useful life (15 years).
MAX_DEADLINE_DAYS = LONGEST_YEARS * 365
MAX_MONTHS = LONGEST_YEARS * 12
MAX_MEMORY_GB = 4096  # per accelerator: 20x the largest card (B200, 180 GB)
MAX_TOTAL_MEMORY_GB = 1_048_576  # 1 PB: past a TPU v5p pod (8,960 chips x 95 GiB = 851 TB)
# List endpoints answer a page at a time, so no client makes a worker build megabytes
# (a 100,000-offer catalog was 44 MB in one answer).
PAGE_DEFAULT = 1_000  # rows per page unless `limit` asks for another size
PAGE_MAX = 10_000  # the largest page: a few MB of JSON
MAX_OFFSET = 10_000_000  # past any catalog or history this service holds
HISTORY_CURSOR = r"^-?[0-9]{1,12}:(-1|[0-9]{1,12})$"  # /offers/history's `after`: listing:run


# An ISO 8601 date, or date and time with an optional offset. Only this: pydantic alone also
# reads a number as Unix seconds, so since=2026 would mean 1970-01-01T00:33:46Z.
ISO_MOMENT = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$"
)


def _iso_only(value: object) -> object:
    if isinstance(value, str) and not re.fullmatch(ISO_MOMENT, value):
        raise ValueError("expected an ISO date or time: 2026-11-01 or 2026-11-01T12:00Z")
    return value


IsoMoment = Annotated[
    datetime,
    BeforeValidator(_iso_only),
    WithJsonSchema({"type": "string", "pattern": ISO_MOMENT}),
]


# A number as a query string writes it: optional sign, digits, optional decimal point and
# exponent. Python's float() and int(), so pydantic's too, also read `1_000` and ` 5\n`.
STRICT_NUMBER = r"[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?"
NOT_A_NUMBER = "expected a number: digits, an optional sign, decimal point and exponent"


def _numeric(annotation: Any) -> bool:
    """Whether a field takes a number (float, int, or either or None)."""
    if get_origin(annotation) in (Union, UnionType):
        return any(_numeric(arg) for arg in get_args(annotation))
    if get_origin(annotation) is Annotated:  # the cost parameters: bounded floats
        return _numeric(get_args(annotation)[0])
    return annotation in (float, int)


class Query(BaseModel):
    # Unknown parameters are an error: a typo (hour=500) must not silently use a default.
    # Every API route holds to it, those with no query too (service/http/security.py).
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _strict_number(cls, value: object, info: ValidationInfo) -> object:
        """A number as nothing but a number: pydantic reads `hours=1_000` or a trailing
        newline as 1000 or 5, a mistake to refuse (400 naming the parameter). A parameter
        given twice is the HTTP layer's to refuse (service/http/security.py)."""
        name = info.field_name
        if name is None:
            return value
        if (
            isinstance(value, str)
            and _numeric(cls.model_fields[name].annotation)
            and not re.fullmatch(STRICT_NUMBER, value)
        ):
            raise ValueError(NOT_A_NUMBER)
        return value

    @field_validator("*", mode="after")
    @classmethod
    def _unsigned_zero(cls, value: object) -> object:
        """-0 (or -1e-400) is 0: they compare equal, so a remembered answer keyed by one
        (service/documents/breakeven.py) was served to the other, echoing its spelling."""
        return 0.0 if isinstance(value, float) and value == 0 else value


# The pricing models a catalog row can have: /offers and /offers/history filter on them, and
# a typo (pricing=spto) is refused with the list instead of answering nothing.
PRICINGS = tuple(str(p) for p in PricingModel)


def _known_pricing(value: str) -> str:
    if value not in PRICINGS:
        raise ValueError(f"expected one of: {', '.join(PRICINGS)}")
    return value


PricingFilter = Annotated[
    str, AfterValidator(_known_pricing), WithJsonSchema({"type": "string", "enum": list(PRICINGS)})
]


# Which rentals a question compares with (pricing.offer.PRICING_CHOICES): the headline's
# tier. Every answer's `tiers` block shows the best of each tier beside it.
RentalPricing = Annotated[
    Literal[tuple(PRICING_CHOICES)],  # type: ignore[valid-type]
    Field(
        description=(
            "Rentals the headline compares with: `dependable` (the default: on-demand and "
            "committed capacity, which is not taken back mid-run), `any` (the cheapest of "
            "all, interruptible included), `interruptible` (spot, marketplaces' interruptible "
            "and Colab), or one pricing model: "
            + ", ".join(
                f"`{p}`" for p in PRICING_CHOICES if p not in ("dependable", "any", "interruptible")
            )
            + ". Committed terms ("
            + ", ".join(f"`{term}`" for term in TERM_MONTHS)
            + ") are paid whole, used or not."
        )
    ),
]


# `all`, or a comma list of known platforms (hardware.PLATFORMS): the OpenAPI document says
# which values a client may send.
PLATFORM_LIST = rf"^(all|({'|'.join(PLATFORMS)})(,({'|'.join(PLATFORMS)}))*)$"
Platforms = Annotated[
    str | None,
    Field(
        max_length=100,
        pattern=PLATFORM_LIST,
        description="Comma-separated software platforms whose offers (on /rank, cards too) "
        "compete (cuda, rocm, xla, neuron, gaudi), or `all` (default: the card's own, so your "
        "code runs unchanged).",
    ),
]


# A comma list of market tiers (pricing.offer.MARKETS): who runs the machines rented.
MARKET_LIST = rf"^({'|'.join(MARKETS)})(,({'|'.join(MARKETS)}))*$"
Markets = Annotated[
    str | None,
    Field(
        max_length=100,
        pattern=MARKET_LIST,
        description="Comma-separated market tiers to rent from: cloud (a provider's own data "
        "centres), secure and community (RunPod), verified and unverified (Vast.ai hosts) "
        "(default: all).",
    ),
]


# ISO 3166-1 alpha-2, of the countries with sourced tariffs (hardware.tariffs.COUNTRIES).
Country = Annotated[
    TariffCountry | None,
    Field(
        description="ISO 3166 country the cards would run in: its electricity tariff for the "
        "site (residential at home, commercial in an office, industrial in colocation; "
        "hardware/data/tariffs.csv, dated and sourced; the answer's `tariff` block says which "
        "applied) and its currency unless `currency` says otherwise; China's GPU clouds "
        "(AutoDL, Alibaba Cloud, Tencent) compete only for CN or when named in `providers` "
        "(default: none: the sites' US tariffs, US dollars).",
    ),
]

# USPS codes of the states with EIA's figures by sector (hardware.tariffs.US_STATES).
State = Annotated[
    UsState | None,
    Field(
        description="US state the cards would run in (with `country` US or none): its "
        "tariff for the site's sector, EIA's average by state (hardware/data/tariffs.csv) "
        "(default: none: the sites' national US tariffs).",
    ),
]


# ISO 4217, of the currencies the bundled rates carry (pricing.fx.CURRENCIES).
Currency = Annotated[
    FxCurrency | None,
    # one rule with imports (pricing/adapters/tabular.py): a code in any case, read upper
    BeforeValidator(lambda code: code.upper() if isinstance(code, str) else code),
    Field(
        description="ISO 4217 currency (in any case: `eur` is EUR) of the amounts you state "
        "(price, budget, electricity, host and site costs) and of a sibling of every amount "
        "in the answer (`total_usd` -> `total_cny`), at the ECB's reference rate; the "
        "answer's `fx` block gives the rate, its date and age (default: USD, nothing "
        "converted).",
    ),
]


# How much a list of offers or cards says (service/documents/compact.py).
Detail = Annotated[
    Literal["compact", "full"],
    Field(
        description="`compact`: each source text once, in the answer's `sources`, its offers "
        "naming theirs by `source_ref` (their price's, and their speed's under `throughput`); "
        "`full`: every offer with its own `source` texts.",
    ),
]
# How much /breakeven's answer says (service/documents/brief.py).
AnswerDetail = Annotated[
    Literal["compact", "full"],
    Field(
        description="`compact`: the answer a person reads, a few KB: the summary and verdict, "
        "the question as read, the buy side's total and parts, the three cheapest rentals, "
        "one line per tier, the same card rented, what a gate left out, the crossing, "
        "currency and freshness; money to the cent, hours to a tenth, the rentals' sources "
        "once in `sources`. `full`: everything: every listed rental with its notes and "
        "source, the assumptions, the curves, the work's derivation (default: compact).",
    ),
]


# `all`, or a comma list of the inputs service/engine/sensitivity.py can move.
SENSITIVITY_LIST = rf"^(all|({'|'.join(PARAMETERS)})(,({'|'.join(PARAMETERS)}))*)$"


def sensitivity_parameters(value: str | None) -> tuple[str, ...]:
    """The inputs a query asks the sensitivity of, in the answer's order; () for none."""
    if not value:
        return ()
    asked = set(PARAMETERS) if value == "all" else set(value.split(","))
    return tuple(name for name in PARAMETERS if name in asked)


def market_tiers(markets: str | None) -> frozenset[str] | None:
    """The market tiers a query names; None: every tier. MARKET_LIST admits known ones only."""
    return frozenset(markets.split(",")) if markets else None


def competing_platforms(platforms: str | None, own: str) -> frozenset[str] | None:
    """The platforms whose offers compete: the card's own unless the query names them
    (`all`: None, every platform). PLATFORM_LIST admits known platforms only."""
    if platforms is None:
        return frozenset({own})
    if platforms == "all":
        return None
    return frozenset(platforms.split(","))


# Calendar days the work must be done in: /breakeven and /rank.
DeadlineDays = Annotated[float | None, Field(gt=0, le=MAX_DEADLINE_DAYS)]


Site = Annotated[
    Literal[SITES] | None,  # type: ignore[valid-type]
    Field(
        description="Where bought hardware runs: home (residential power, no rack rent), "
        "office (commercial power) or colo (colocation: rent per kW, PUE, industrial power, "
        "support, staff); each site's figures are sourced in hardware/data/ownership.csv "
        "(default: where the host class runs: a desktop at home, a workstation in an office, "
        "a server or whole system in colo).",
    ),
]


class _StatedWork(Query):
    """The work, in exactly one of four ways (service/documents/work.py says which)."""

    hours: float | None = Field(
        None,
        **QUESTION_BOUNDS["hours"],
        description="The work as training hours on one `gpu` card (one way to state it).",
    )
    hours_per_month: float | None = Field(
        None,
        gt=0,
        le=HOURS_PER_MONTH * MAX_CARDS,
        description="Steady work: hours of work on one `gpu` card each month, with `months` "
        "(one way to state it). The cards bought run at the utilization it makes "
        "(hours_per_month / 730 per card, more cards where one cannot carry it). With "
        "`gpus`: card-hours a month on those cards (46720 on 64 cards: every card busy).",
    )
    months: float | None = Field(
        None,
        gt=0,
        le=MAX_MONTHS,
        description="Steady work: how many months of it; with `gpus` alone, capacity: the "
        "cards steady for these months at `utilization` (default 1).",
    )
    ref_gpu: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="A run already done: the card it ran on (any alias).",
    )
    ref_count: int | None = Field(None, ge=1, le=100_000, description="A run done: how many.")
    ref_hours: float | None = Field(
        None, ge=MIN_HOURS, le=MAX_HOURS, description="A run done: its wall-clock hours."
    )
    model: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="A job: the model, an id of hardware/data/models.csv (llama-3-8b, "
        "resnet50 ...); an unknown one is answered with the known ids.",
    )
    # not `params`: generated clients (openapi-python-client) name their query dict so
    param_count: float | None = Field(
        None, ge=1e6, le=1e13, description="A transformer job: parameters, if no model= names it."
    )
    tokens: float | None = Field(
        None, ge=1, le=1e15, description="A transformer job: training tokens."
    )
    method: Literal["full", "lora", "qlora"] | None = Field(
        None, description="A transformer job: full training, lora or qlora (default: full)."
    )
    active_param_count: float | None = Field(
        None,
        ge=1e6,
        le=1e13,
        description="A mixture-of-experts job: the parameters each token passes through, "
        "which set the compute (memory holds them all; default: every parameter).",
    )
    seq_len: int | None = Field(
        None,
        ge=1,
        le=10_000_000,
        description="A transformer job: tokens a sequence, which size the activations and "
        "logits in memory (default: the model's context).",
    )
    micro_batch: int | None = Field(
        None,
        ge=1,
        le=65_536,
        description="A transformer job: sequences a card holds at once (default: 1).",
    )
    precision: Precision | None = Field(
        None,
        description="Training precision: bf16, fp16 or fp8. Only cards and rentals that train "
        "in it take part (a card that does not is a 422 naming it); fp8 trains transformers "
        "at FP8's measured gain over 16 bits on each card (default: 16 bits, fp16 or bf16, "
        "whichever each card runs; every card takes part).",
    )
    images: float | None = Field(
        None, ge=1, le=1e12, description="A vision job: training images (ImageNet-1k: 1281167)."
    )
    epochs: float | None = Field(
        None, gt=0, le=10_000, description="A vision job: passes over the images."
    )


# Accelerators a rental may be of: any alias each, comma-separated (service/documents/question.py
# resolves them, a 404 naming `rent_gpu` for an unknown one).
RENT_GPU_LIST = r"^[^,]{1,100}(,[^,]{1,100}){0,19}$"


class _Question(_StatedWork):
    """What /breakeven and /rank both read, once (service/documents/question.py): the work
    however stated, the cards and their time, where they run, the rentals that compete."""

    workload: Workload = Field(Workload.TRANSFORMER, description="Workload class.")
    gpus: int | None = Field(
        None,
        ge=1,
        le=MAX_CARDS,
        description="Cards bought (default: the fewest that hold a described job, finish by "
        "`deadline_days` and carry `hours_per_month`; 1 when nothing asks more). With "
        "`for_hours` or `months` alone it states capacity: these cards for that time; with "
        "`hours_per_month`, that many card-hours a month on them; with `hours`, the work is "
        "still hours on one card, shared among them.",
    )
    for_hours: float | None = Field(
        None,
        ge=MIN_HOURS,
        le=MAX_DEADLINE_DAYS * HOURS_PER_DAY,
        description="Capacity: `gpus` cards (default 1) for this many hours of wall-clock, "
        "busy `utilization` of it (default 1); both sides provide the same cards for the same "
        "time (one way to state the work).",
    )
    memory: float | None = Field(
        None,
        gt=0,
        le=MAX_MEMORY_GB,
        description="GB each accelerator must hold; rentals with less are left out (a TPU "
        "v2/v3 core holds 8/16 GiB, half its chip) (default: a described job's own need, else "
        "the card's, unless total_memory).",
    )
    total_memory: float | None = Field(
        None,
        gt=0,
        le=MAX_TOTAL_MEMORY_GB,
        description="GB a sharded job (FSDP, ZeRO) needs in all: an offer qualifies when "
        "count x memory per accelerator covers it, and so must the cards bought; the answer's "
        "memory_gate names the rule that applied and how many offers it removed.",
    )
    providers: str | None = Field(
        None,
        max_length=500,
        description="Comma-separated providers to rent from, as offers name them (aws, "
        "runpod, custom ...) (default: all).",
    )
    rent_gpu: str | None = Field(
        None,
        max_length=1000,
        pattern=RENT_GPU_LIST,
        description="Comma-separated accelerators to rent (any alias: h100, a100-80gb): "
        "every tier's rentals are kept to them, so reserved H100s weigh against bought ones "
        "(default: every accelerator on the competing platforms).",
    )
    platforms: Platforms = None
    market: Markets = None
    pricing: RentalPricing = "dependable"
    region: str | None = Field(
        None,
        max_length=100,
        description="Region prefix: us matches us-east-1, us-central1 (default: every region).",
    )
    top: int = Field(10, ge=1, le=100, description="Rentals listed, cheapest first.")
    site: Site = None
    deadline_days: DeadlineDays = Field(
        None,
        description="Calendar days the work must be done in, on both sides: every rental "
        "finishes within it (on a cluster of up to `max_instances` where one instance is too "
        "slow), and the fewest cards that make it are bought unless `gpus` says how many "
        "(default: the bought cards' own calendar time, busy hours / utilization, so no "
        "rental is slower than buying; steady work and capacity: their own time).",
    )
    currency: Currency = None
    country: Country = None
    state: State = None
    detail: Detail = "compact"


class _BreakevenQuestion(_Question):
    detail: AnswerDetail = "compact"
    gpu: str = Field(
        min_length=1,
        max_length=100,
        description="Card to buy, any alias (rtx3090, 3090, RTX 3090).",
    )
    price: float | None = Field(
        None,
        gt=0,
        le=QUESTION_BOUNDS["price"]["le"] * CURRENCY_SPAN,
        description="Purchase price per card, in `currency`, at most 100,000,000 USD once "
        "converted (default: the sourced price at `price_basis`).",
    )
    price_basis: Literal["new", "used", "launch", "system"] | None = Field(
        None,
        description="Which sourced price to buy at: new, used, launch, or system (a card sold "
        "only in whole servers, hardware/data/systems.csv: its share of one) (default: system "
        "where the card is sold so, else new where sold new, else used, else launch; "
        "/gpus/<id> lists them).",
    )
    own: str | None = Field(
        None,
        max_length=100,
        description="A card you own already (any alias): the answer adds the upgrade "
        "question: keep it and do the work on it, sell it now at its used price and buy, or "
        "sell it and rent; each path's cost counts the owned card's sale. The same card as "
        "`gpu`: keep it or rent, nothing bought.",
    )
    watts: float | None = Field(
        None, gt=0, le=10_000, description="Power per card, W (default: the card's board power)."
    )
    throughput: Literal["auto", "published", "measured"] = Field(
        "auto",
        description="The card's speed: published, measured (breakeven measure), or auto "
        "(measured when there is a calibrated measurement, else published).",
    )
    rent_factor: float = Field(
        1.0,
        **QUESTION_BOUNDS["rent_factor"],
        description="Every rental price times this: a what-if (1.2 = rentals 20 % dearer).",
    )
    at: IsoMoment | None = Field(
        None,
        description="Ask of the prices as they were then (ISO date or time, UTC if no "
        "offset): each source's last run by that moment; before the first stored run, 422 "
        "(default: now).",
    )
    sensitivity: str | None = Field(
        None,
        max_length=200,
        pattern=SENSITIVITY_LIST,
        description="`all`, or a comma list of inputs (utilization, electricity, price, "
        "rent_factor, hours, lifetime_years, resale, spot_overhead, pue): where each flips "
        "the verdict, the answer at a step down and up, and the spread of the rent side.",
    )


BreakevenQuery = overrides_model(
    _BreakevenQuestion, "BreakevenQuery", "Rent or buy `gpus` cards for `hours` of work?"
)


class _RankQuestion(_Question):
    gpu: str = Field(
        "rtx3090",
        min_length=1,
        max_length=100,
        description="The card the work is stated in hours of, and bought for it: with stated "
        "work, /rank's rentals are /breakeven's for the same question.",
    )
    budget: float | None = Field(
        None,
        gt=0,
        le=MAX_USD * CURRENCY_SPAN,
        description="Max purchase, in `currency`, at most 100,000,000 USD once converted "
        "(default: no limit).",
    )


RankQuery = overrides_model(
    _RankQuestion, "RankQuery", "Which card, or which rental, gives the most work per dollar?"
)


class OffersQuery(Query):
    accelerator: str | None = Field(None, max_length=100, description="Accelerator, any alias.")
    provider: str | None = Field(None, max_length=64, description="Provider (aws, gcp ...).")
    pricing: PricingFilter | None = Field(None, description="Pricing model.")
    region: str | None = Field(None, max_length=100, description="Region prefix.")
    market: Markets = None
    at: IsoMoment | None = Field(
        None, description="The catalog as it was then (ISO date or time, UTC if no offset)."
    )
    workload: Workload | None = Field(
        None,
        description="With `gpu`: add usd_per_reference_hour, the price of one hour of "
        "`gpu`'s work on this workload class, spot offers' interruption allowance included.",
    )
    gpu: str | None = Field(None, max_length=100, description="Reference card for workload.")
    currency: Currency = None
    sort: str | None = Field(
        None,
        pattern=r"^-?[a-z_]{1,40}$",
        description="Order the rows by this field of theirs before paging (usd_per_hour, "
        "usd_per_accelerator_hour, usd_per_reference_hour with `gpu`, price_as_of, provider "
        "...); `-` first for the largest first; rows without a value last (default: the "
        "catalog's order).",
    )
    format: Literal["json", "csv"] = Field("json", description="json or csv.")
    detail: Detail = Field(
        "full",
        description="`full` (the default): every offer with its own `source` text; `compact`: "
        "each source text once, in the answer's `sources`, every offer naming its own by "
        "`source_ref` (a third of the catalog's bytes were repeated sources).",
    )
    limit: int = Field(PAGE_DEFAULT, ge=1, le=PAGE_MAX, description="Rows in one page.")
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description="Rows skipped: `next` gives it.")


class HistoryQuery(Query):
    accelerator: str | None = Field(None, max_length=100, description="Accelerator, any alias.")
    provider: str | None = Field(None, max_length=64, description="Provider (aws, gcp ...).")
    region: str | None = Field(None, max_length=100, description="Region prefix.")
    pricing: PricingFilter | None = Field(None, description="Pricing model.")
    since: IsoMoment | None = Field(
        None, description="ISO date or time (UTC if no offset); default 30 days ago."
    )
    limit: int = Field(PAGE_MAX, ge=1, le=PAGE_MAX, description="Points in one page.")
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description="Points skipped: `next` gives it.")
    after: str | None = Field(
        None,
        pattern=HISTORY_CURSOR,
        description="Where the page goes on (listing:run of the last point): `next` gives it.",
    )
    format: Literal["json", "csv"] = Field("json", description="json or csv.")


class SeriesQuery(Query):
    accelerator: str = Field(max_length=100, description="Accelerator, any alias.")
    since: IsoMoment | None = Field(
        None, description="First day (ISO date or time, UTC if no offset); default: all of it."
    )
    format: Literal["json", "csv"] = Field("json", description="json or csv (the points).")
