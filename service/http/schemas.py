"""Pydantic models of the REST API's documents (the OpenAPI source).

The questions (query models) live in :mod:`service.documents.queries`, shared with the CLI;
here are the answers' shapes, the admin endpoint's own query, and the last touches to the
OpenAPI components (:func:`finish_components`).

Every member an answer carries is declared, so a generated client types all of it. Routes
with ``@bp.output`` re-serialise their answer through the model: there, fields added since an
answer was first served go after the older ones (the order it has always had on the wire),
and numbers are :data:`Number`, which keeps an int an int.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import fields as dataclass_fields
from typing import Any, Literal, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.json_schema import SkipJsonSchema, models_json_schema

from hardware import Precision, Workload
from pricing.offer import TERM_MONTHS
from service.documents.breakeven import PAYOFF_CASES
from service.documents.offers import CATALOG, HISTORY, OFFER_FIELDS, RANKED, RENTED, Number
from service.documents.queries import Query
from service.engine.breakeven import BuyCost
from service.engine.costs import NEVER_REASONS, BuyModel

SCHEMAS = "#/components/schemas/"


class RefreshQuery(Query):
    provider: str | None = Field(None, max_length=64, description="One source; default all.")
    force: bool = Field(False, description="Accept a run that drops many offers at once.")
    wait: bool = Field(False, description="Answer when done (200) instead of at once (202).")


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


def _no_default(schema: dict[str, Any]) -> None:
    # An optional member that is left out, never null: "default": null would contradict
    # its type (and OpenAPI validators check defaults against types).
    schema.pop("default", None)


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
        None, description="Each bad parameter and why.", json_schema_extra=_no_default
    )
    suggestions: list[str] | SkipJsonSchema[None] = Field(
        None,
        description="Closest known ids, for an unknown accelerator.",
        json_schema_extra=_no_default,
    )


# -- shared parts ---------------------------------------------------------------------------


# The compact answer's stand-in for a source text (service/documents/compact.py).
SOURCE_FULL = "The source text; in a compact answer (`detail=compact`) `source_ref` instead."
SOURCE_REF = "Compact answers: the index of this source text in the answer's `sources`."


class ThroughputOut(_Out):
    """A card's speed on one workload class, relative to the reference of throughput.csv."""

    relative: Number
    method: str = Field(description="measured, adjusted (a measurement carried over) or estimated")
    source: str | None = Field(None, description=SOURCE_FULL)
    source_ref: int | None = Field(None, description=SOURCE_REF)


class ProviderFreshness(_Out):
    age_seconds: Number | None = Field(description="Age of its oldest price; null: undated.")
    stale: bool


class Freshness(_Out):
    """How old the prices behind an answer are: overall, and per provider."""

    age_seconds: float | None
    stale: bool
    providers: dict[str, ProviderFreshness]


# -- /breakeven -----------------------------------------------------------------------------


def _model_of(
    record: type, name: str, doc: str, drop: tuple[str, ...] = (), **more: Any
) -> type[BaseModel]:
    """The answer model of an engine record (a dataclass): its fields, less ``drop``, then
    ``more``; so a member added to the record is documented by adding it there."""
    hints = get_type_hints(record)
    fields: dict[str, Any] = {
        f.name: (hints[f.name], ...) for f in dataclass_fields(record) if f.name not in drop
    }
    return create_model(name, __base__=_Out, __doc__=doc, **fields, **more)


BuyModelOut = _model_of(
    BuyModel,
    "BuyModelOut",
    "For H hours of the reference card's work, kappa = discount_per_calendar_hour x "
    "calendar_per_hour: cost(H) = capex + (energy + site) x (1 - exp(-kappa H)) / kappa - "
    "resale_start x exp(-(resale_decay + kappa) H), the present value (kappa = 0: capex + "
    "(energy + site) x H - resale_start x exp(-resale_decay x H)).",
)
BuyOut = _model_of(
    BuyCost,
    "BuyOut",
    "What buying costs over the work, itemized: cards (or whole systems), host, network, "
    "energy, the site (colo, support, staff), less resale; `total_usd` in cash, "
    "`present_usd` discounted to now at `discount_rate`.",
    drop=("watts",),  # echoed under assumptions instead
    model=(BuyModelOut, ...),
)


class MoneyOut(_Out):
    """How money over time entered the verdict (`discount_rate`)."""

    discount_rate: float = Field(description="Cost of capital per year.")
    basis: str = Field(description="Where the rate came from.")
    how: str
    buy_present_usd: float
    rent_present_usd: float = Field(description="The cheapest rental, discounted.")
    buy_undiscounted_usd: float
    rent_undiscounted_usd: float


class UpgradePathOut(_Out):
    name: Literal["keep", "upgrade", "rent"]
    total_usd: float | None = Field(description="Cash; null: this path cannot do the work.")
    present_usd: float | None
    wall_clock_hours: float | None
    note: str


class OwnOut(_Out):
    """The upgrade question (`own`): keep the owned card, sell it and buy, or sell it and
    rent; each path valued with the owned card at what selling it now brings."""

    gpu: str
    value_usd: float = Field(description="Its used price now, before fees.")
    value_source: str
    sale_usd: float = Field(description="What selling it now brings, fees paid.")
    paths: list[UpgradePathOut]
    best: Literal["keep", "upgrade", "rent"]
    how: str


def _offer_model(
    model_name: str,
    slice_: tuple[str, ...],
    base: type[BaseModel] = _Out,
    first: tuple[str, ...] = (),
    **more: Any,
) -> type[BaseModel]:
    """The model of one slice of the offer record (service/documents/offers.py), then
    ``more`` members of that answer's own.

    ``first``: for answers APIFlask re-serialises through the model, which writes declared
    members in declaration order: the members that have always led on the wire.
    """
    order = (*first, *(field for field in slice_ if field not in first))
    fields: dict[str, Any] = {field: (OFFER_FIELDS[field].kind, ...) for field in order}
    fields.update(more)  # an answer's own members, or its own take on one of the record's
    return create_model(model_name, __base__=base, **fields)


class SessionsOut(_Out):
    """A session-limited rental: the runtimes the work takes and the plan units it burns."""

    count: int = Field(description="Sessions the work needs.")
    max_hours: float = Field(description="Longest session of the plan (Colab: up to 24 h).")
    restart_hours: float = Field(description="Hours lost per restart (`restart_hours`).")
    compute_units: float
    monthly_plan: str
    monthly_units: float
    exceeds_monthly_plan: bool
    note: str


class InterruptionOut(_Out):
    """What an interruptible rental's interruptions cost the work, and where that comes from."""

    band: str | None = Field(
        description="The provider's published band: AWS <5% ... >20% (a month), Azure "
        "0-5% per hour ... 20+% per hour."
    )
    overhead: float = Field(description="Extra share of work per instance interrupted.")
    job_overhead: float = Field(
        description="The job's extra share: (1 + overhead) / (1 - (instances - 1) x overhead) "
        "- 1, overhead on one instance (any one interrupted stops the job, so N lose N times "
        "one's running time): wall_clock_hours include 1 + job_overhead."
    )
    basis: str = Field(description="The band and the lost work it means, or the assumption.")


class CommitmentOut(_Out):
    """A committed rental's term: paid whole, used or not (a pricing of TERM_MONTHS)."""

    term_hours: float = Field(
        description="Hours of one term, a month of 730 h: 4,380 (6 months), 8,760 (1 year), "
        "26,280 (3 years)."
    )
    terms: int = Field(description="Terms each instance is bought for: the work's hours fit.")
    purchase_option: str = Field(
        description="no_upfront, partial_upfront, all_upfront (AWS), commitment (Google "
        "Cloud), reservation (Azure), savings_plan."
    )
    upfront_share: float | None = Field(description="Share of the term's total paid upfront.")
    upfront_usd: float = Field(description="Paid before the first hour, all instances.")
    paid_instance_hours: float = Field(description="instances x terms x term_hours.")
    used_instance_hours: float = Field(description="instances x wall_clock_hours.")
    unused_usd: float = Field(description="What the paid hours the work leaves unused cost.")
    note: str


# One meaning wherever an offer is priced per hour of work (service/engine/costs.py).
USD_PER_REFERENCE_HOUR = (
    "What one hour of `gpu`'s work costs on this offer, USD: its hourly price (times "
    "`rent_factor` on /breakeven) over the hours of `gpu`'s work it does in an hour, with the "
    "interruption allowance on spot offers (the published band's, else `spot_overhead`). The "
    "same figure on /breakeven, /rank and /offers; a session-bound job's restarts are in its "
    "`total_usd`, not here, and so are the unused hours of a committed term (`usd_per_hour` "
    "is a term's effective rate: its upfront fee spread over the term's hours)."
)

# An offer of an answer that has a compact form: its source text, or the reference to it.
COMPACT_SOURCE = {
    "source": (str | None, Field(None, description=SOURCE_FULL)),
    "source_ref": (int | None, Field(None, description=SOURCE_REF)),
}

OFFER_NAME = (
    str,
    Field(
        description="The offer as its provider sells it: count x card, provider, where, and "
        'for a marketplace whose host ("2 x RTX 5090 on a Vast.ai verified host in CN"); '
        "the provider's own id is `product`."
    ),
)
RentOut = _offer_model(
    "RentOut",
    RENTED,
    **COMPACT_SOURCE,
    name=OFFER_NAME,
    wall_clock_hours=(
        float,
        Field(description="Hours from start to finish on this rental, every instance at once."),
    ),
    instances=(
        int,
        Field(
            description="Instances of the offer the job runs on: more than one where one "
            "cannot finish by the deadline or hold the job (at most `max_instances`)."
        ),
    ),
    instance_hours=(float, Field(description="wall_clock_hours x instances: the hours paid.")),
    fabric=(
        str,
        Field(
            description="The network between instances (infiniband, roce, efa, "
            "gpudirect_tcpx, ethernet, none: not clustered); hardware/data/fabrics.csv."
        ),
    ),
    cluster_efficiency=(
        float,
        Field(description="Work of the instances / (instances x one's), by fabric; 1 alone."),
    ),
    total_usd=(float, Field(description="The job's cost in cash, whenever paid.")),
    present_usd=(
        float,
        Field(
            description="total_usd paid as the work is done (a committed term as billed), "
            "discounted to now at `discount_rate`: the figure the verdict weighs."
        ),
    ),
    usd_per_reference_hour=(float, Field(description=USD_PER_REFERENCE_HOUR)),
    breakeven_hours=(float | None, ...),
    throughput_estimated=(bool, ...),
    throughput=(ThroughputOut, Field(description="How this accelerator's speed is known.")),
    sessions=(
        SessionsOut | None,
        Field(description="Session-limited rentals (Colab): runtimes and plan units; else null."),
    ),
    interruption=(
        InterruptionOut | None,
        Field(description="Interruptible rentals: the extra work charged and why; else null."),
    ),
    commitment=(
        CommitmentOut | None,
        Field(description="Committed rentals: the terms paid and the hours used; else null."),
    ),
)


class TierOut(_Out):
    """The best offer of one pricing tier for the same work, and its verdict against buying."""

    tier: str = Field(
        description="on_demand, a committed term ("
        + ", ".join(str(term) for term in TERM_MONTHS)
        + "), spot (clouds), interruptible (marketplaces), compute_units (Colab)."
    )
    description: str
    interruptible: bool = Field(description="The provider may take the capacity back mid-run.")
    best: RentOut | None = Field(description="Its cheapest rental; null: none does the work.")
    total_usd: float | None
    present_usd: float | None
    wall_clock_hours: float | None
    verdict: Literal["buy", "rent"] | None = Field(description="Buying against this tier.")
    savings_usd: float | None


class ComparedWithOut(_Out):
    """Which rentals the headline verdict weighs buying against."""

    pricing: str = Field(description="The `pricing` asked (default `dependable`).")
    admits: list[str] = Field(description="The pricing models that choice admits.")
    tier: str = Field(description="The tier of the cheapest rental, the headline's.")
    interruptible: bool
    why: str


class CurveOut(_Out):
    name: str = Field(description="The rental, as its provider sells it.")
    curve_usd: list[float] = Field(description="Its present cost at each of `hours`.")


class CurvesOut(_Out):
    """Both sides' present costs over work, as the engine computes them: the dashboard
    draws these, it computes no cost itself."""

    hours: list[float] = Field(description="Reference-card hours of work, ascending.")
    days: list[float] = Field(description="The same on the bought cards' calendar.")
    buy_usd: list[float] = Field(description="Owning's present cost at each of `hours`.")
    rent: list[CurveOut] = Field(description="The cheapest rentals, first first.")
    breakeven_hours: float | None = Field(
        description="One of `hours`, where buying meets the first rental within the life."
    )
    how: str


class BreakevenPoint(_Out):
    """Where buying stops being dearer than the cheapest rental, within the cards' life."""

    hours: float | None = Field(description="Work (reference-card hours); null past the life.")
    days: float | None = Field(description="Calendar days at `utilization`; null past the life.")
    within_life: bool
    life_years: float
    life_hours: float = Field(description="Work the cards do in their life, at `utilization`.")
    crossing_hours: float = Field(description="Where the costs cross, life or not.")


class NeverBecause(_Out):
    """Why buying never pays off against the cheapest rental (`payoff` `never`)."""

    reason: Literal[tuple(NEVER_REASONS)] = Field(  # type: ignore[valid-type]
        description="One of: "
        + "; ".join(f"`{case}`: {words}" for case, words in NEVER_REASONS.items())
    )
    explanation: str = Field(description="The reason in words.")
    rent_usd_per_hour: float = Field(
        description="The cheapest rental's USD per hour of work (what the crossing is solved with)."
    )
    running_usd_per_hour: float = Field(
        description="Owning's power and site per hour of work: energy plus site."
    )
    margin_usd_per_hour: float = Field(description="The rental's rate less owning's running cost.")
    energy_usd_per_hour: float
    site_usd_per_hour: float
    discount_rate: float = Field(description="A year, what the present values discount by.")


class PricesOut(_Out):
    """The cheapest rental's price date and fetch time, and the freshness of all listed."""

    as_of: str
    fetched_at: str
    age_seconds: float | None
    stale: bool
    providers: dict[str, ProviderFreshness]


class LeftOutOut(_Out):
    """Offers on platforms the question did not ask for, and the cheapest of them."""

    platforms: list[str]
    offers: int = Field(description="Offers on those platforms past every other filter.")
    best: RentOut


class MemoryGateOut(_Out):
    """The memory rule that applied (`memory`, `total_memory`) and what it removed."""

    applied: Literal["per_accelerator", "total", "per_accelerator+total"]
    per_accelerator_gb: float | None = Field(description="Each device holds this much.")
    total_gb: float | None = Field(
        description="Count x (memory per accelerator - `per_card_overhead_gb`) covers this."
    )
    per_card_overhead_gb: float = Field(
        description="What every card of a sharded job keeps for itself (the framework), "
        "not split across cards; 0 unless the job was described."
    )
    removed: int = Field(description="Offers past every other filter that lacked the memory.")


class WorkOut(_Out):
    """The work as stated, and what it came to in hours on the named card."""

    stated: Literal["hours", "steady", "capacity", "reference_run", "transformer", "vision"]
    description: str
    gpu_hours: float = Field(description="Hours on one card of the kind named (`gpu`).")
    gpu: str
    flops: float | None = Field(
        description="Training FLOPs: 6 x params x tokens x method (transformers), "
        "6 x forward MACs x images x epochs (vision)."
    )
    precision: str | None
    utilization: float | None = Field(
        description="Model FLOPs utilization of the named card's peak: on an A100, 0.40 for "
        "transformers (Llama 2 runs) and 0.19 for CNNs (NVIDIA's ResNet-50 recipe); other "
        "cards as their measured speed implies."
    )
    utilization_anchor: str | None = Field(
        description="The published runs it is scaled from (language models: the fit)."
    )
    hours_spread: list[float] | None = Field(
        description="Where the job's real hours will land, as ratios of predicted over "
        "reported hours (P5 and P95, each end read outward to the nearest run) of the "
        "published runs of its kind (dense or a mixture of experts), each predicted by the "
        "fit made without its team's runs: the real hours lie between hours / high and "
        "hours / low; null where the hours were stated or the anchor is one run."
    )
    memory_gb: float | None = Field(description="Weights, gradients, optimizer, activations.")
    memory_parts: dict[str, float] | None
    memory_note: str | None = Field(description="What `memory_gb` leaves out.")
    min_cards: int = Field(description="Fewest named cards that hold `memory_gb`.")
    hours_per_month: float | None = Field(description="Steady work: hours each month.")
    months: float | None = Field(description="Steady work: how many months.")


class BreakevenWorkOut(WorkOut):
    reading: str = Field(
        description='The question restated in words: "8 x a100-80gb for 500 h: 4,000 '
        'card-hours ...", "500 card-hours of work: 65.3 h on 8 x a100-80gb".'
    )
    cards_bought: str


class SwingOut(_Out):
    value: float = Field(description="The input, moved one step.")
    verdict: Literal["buy", "rent"]
    savings_usd: float | None = Field(
        description="What the winner saves there; null: no rental can do the work there "
        "(an interruption overhead no cluster outruns by the deadline)."
    )
    breakeven_hours: float | None = Field(
        description="Against the cheapest rental; null: never; 0: no rental can do the work."
    )


class FlipOut(_Out):
    parameter: str
    value: float = Field(description="The question's value.")
    bounds: list[float] = Field(description="The range searched: the input's own bounds.")
    flip: float | None = Field(description="Where the verdict turns; null: nowhere in bounds.")
    buy_wins: Literal["above", "below", "always", "never"]
    step: str = Field(description="The tornado's step: -d / +d, or /f / xf.")
    low: SwingOut
    high: SwingOut
    note: str
    sentence: str


class SensitivityOut(_Out):
    """What would have to be true for the other verdict (`sensitivity=`)."""

    parameters: list[FlipOut]
    sentences: list[str]
    steps: dict[str, str]


class FxOut(_Out):
    """The exchange rate an answer in another currency used (`currency=`)."""

    currency: str = Field(description="ISO 4217: the currency asked (USD: nothing converted).")
    per_usd: float = Field(description="What one US dollar was worth in it.")
    as_of: str | None = Field(description="The ECB working day the rate was published.")
    age_days: int | None = Field(description="Days from that day to today.")
    stale: bool = Field(description="Older than the deployment's `fx_stale_after_days`.")
    source: str
    inputs: dict[str, dict[str, float]] = Field(
        description="The amounts the question stated in the currency, and in dollars."
    )
    note: str


class PrecisionOut(_Out):
    """What the answer compared in (`precision=`)."""

    asked: Precision | None = Field(description="The precision asked; null: none.")
    speeds: Literal["16-bit", "fp8"] = Field(description="The speeds every card was counted at.")
    gain: float = Field(description="FP8's speed over 16 bits on the named card; 1 otherwise.")
    note: str


class RankPrecisionOut(PrecisionOut):
    left_out: list[str] = Field(
        description="Cards for sale left out of the ranking: they do not train in it."
    )


class SpreadEndOut(_Out):
    hours: float = Field(description="Hours of the named card's work the job would take.")
    buy_usd: float = Field(description="Owning's present value for that work.")
    rent_usd: float = Field(description="The cheapest rental's present value for it.")
    verdict: Literal["buy", "rent"]


class CostSpreadOut(_Out):
    """A job worked out from its FLOPs, priced again at the ends of the published runs'
    spread (`work.hours_spread`): the money each side would cost."""

    ratios: list[float] = Field(
        description="The job's hours_spread: P5 and P95 of predicted over reported hours."
    )
    fewer: SpreadEndOut = Field(description="The job as quick as the high ratio: hours / high.")
    more: SpreadEndOut = Field(description="The job as slow as the low ratio: hours / low.")
    flips: bool = Field(description="The verdict at either end differs from the answer's.")


class RangesOut(_Out):
    """The rent side's spread across comparable offers and the speeds' stated uncertainty."""

    offers: dict[str, object] = Field(
        description="The cheapest rental's accelerator anywhere: offers, P10/P50/P90 USD."
    )
    speed: dict[str, object] = Field(
        description="Methods of the two speeds, their combined spread, low and high USD."
    )
    speed_spread_by_method: dict[str, float]
    work: dict[str, object] | None = Field(
        description="A job worked out from its FLOPs: the published runs' spread (`ratios`: "
        "`work.hours_spread`) and the cheapest rental's low and high USD if the job's hours "
        "err as they do; null where the hours were stated."
    )
    buy_usd: float
    close: bool = Field(description="Buying's total falls inside a range: a close call.")
    note: str


class DeadlineOut(_Out):
    """The wall-clock time every rental finishes within (`deadline_days`)."""

    hours: float | None = Field(description="Wall-clock hours; null: no deadline.")
    days: float | None
    basis: str = Field(
        description="Given, or the bought cards' own calendar time (busy hours / utilization)."
    )
    max_instances: int = Field(description="Most instances of one offer a cluster may take.")


class SameCardOut(_Out):
    offers: int = Field(description="Offers that rent this card, within the filters.")
    cheapest: RentOut


SOURCES = (
    "Compact answers (`detail=compact`, the default): each source text its offers name, "
    "once; an offer's `source_ref` is an index here. Null with `detail=full`."
)


class BreakevenAnswer(_Out):
    summary: str = Field(
        description="The answer in one sentence: which side wins, the two present costs it "
        "weighs (in the currency asked), and where buying pays off."
    )
    verdict: Literal["buy", "rent"] = Field(
        description="Which costs less for this work: buying or the cheapest rental the "
        "`pricing` admits (by default capacity one can count on: on-demand or committed)."
    )
    gpu: str = Field(description="The card the question would buy (its canonical id).")
    hours: float = Field(description="The work, in hours on one `gpu` card however stated.")
    workload: Workload = Field(description="The workload class the speeds are read for.")
    assumptions: dict[str, object] = Field(
        description="Every input the answer used, given or defaulted (cost assumptions too)."
    )
    buy: BuyOut = Field(description="Owning the cards for the work, itemized.")
    rent: list[RentOut] = Field(description="The cheapest rentals for the same work, first.")
    candidates: int = Field(description="Offers that passed the filters and the memory need.")
    memory_gate: MemoryGateOut
    left_out: LeftOutOut | None = Field(
        description="What the platform gate kept out (`platforms`); null when nothing was."
    )
    cheapest_measured: RentOut | None = Field(
        description="When the cheapest rental's speed is estimated: the cheapest whose speed "
        "is measured (null when the cheapest is measured, or none is)."
    )
    sensitivity: SensitivityOut | None = Field(
        None, description="With `sensitivity=`: where each input turns the verdict."
    )
    ranges: RangesOut | None = Field(
        None, description="With `sensitivity=`: how sure the verdict is."
    )
    cost_spread: CostSpreadOut | None = Field(
        None,
        description="A job worked out from its FLOPs (a model and its data): both sides at "
        "the ends of the published runs' spread of hours; null where the hours were stated.",
    )
    same_card: SameCardOut | None = Field(
        description="The cheapest rental of the card the question would buy (a marketplace's "
        "RTX 3090), within the same filters; null when nobody rents it."
    )
    deadline: DeadlineOut = Field(description="What every rental finished within.")
    compared_with: ComparedWithOut = Field(
        description="The rentals the verdict weighs, and the tier of the one it chose."
    )
    money: MoneyOut = Field(description="Both sides as present values at `discount_rate`.")
    own: OwnOut | None = Field(
        None, description="With `own=`: keep the owned card, upgrade, or rent."
    )
    savings_usd: float = Field(description="What the cheaper side saves, present value, USD.")
    breakeven: BreakevenPoint | None = Field(
        description="Where buying stops being dearer than the cheapest rental; null: never."
    )
    curves: CurvesOut = Field(
        description="Both sides' costs over work, sampled by the engine: what a chart draws."
    )
    payoff: Literal[tuple(PAYOFF_CASES)] = Field(  # type: ignore[valid-type]
        description="How the answer says where buying pays off, one of: "
        + "; ".join(f"`{case}`: {words}" for case, words in PAYOFF_CASES.items())
    )
    never_because: NeverBecause | None = Field(
        description="Where buying never pays off (`payoff` `never`), why, with its figures; "
        "null otherwise."
    )
    tiers: list[TierOut] = Field(
        description="The best offer of every pricing tier for the same work and deadline, "
        "each with its verdict against buying: interruptible ones with their risk."
    )
    prices: PricesOut = Field(description="The rentals' price dates and how old they are.")
    throughput: ThroughputOut = Field(description="The bought card's speed the answer used.")
    work: BreakevenWorkOut
    precision: PrecisionOut
    fx: FxOut
    tariff: dict[str, object] | None = Field(
        description="With `country` (or a US `state`): the electricity tariff the bought "
        "cards pay (its country, state, region, sector, price in its currency and in "
        "dollars, period and source); "
        "null: the site's default (US, ownership.csv) or `electricity` as given."
    )
    sources: list[str] | None = Field(None, description=SOURCES)


# -- /offers and /offers/history (answers re-serialised through these models) ---------------


class _ReferenceHourDocumented(_Out):
    # `usd_per_reference_hour` comes with `workload` and `gpu` only: documented, but never a
    # member set to null.
    model_config = ConfigDict(
        json_schema_extra=lambda schema: schema["properties"].update(
            usd_per_reference_hour={
                "type": "number",
                "title": "Usd Per Reference Hour",
                "description": f"With `workload` and `gpu` only. {USD_PER_REFERENCE_HOUR}",
            }
        )
    )


OfferOut = _offer_model(
    "OfferOut",
    CATALOG,
    **COMPACT_SOURCE,
    base=_ReferenceHourDocumented,
    first=(
        *("provider", "product", "region", "zone", "accelerator", "count", "pricing"),
        *("usd_per_hour", "usd_per_accelerator_hour", "price_as_of", "source", "fetched_at"),
    ),
    superseded_by=(
        str | None,
        Field(
            description="An undated row that a dated price of the same provider, accelerator, "
            "terms and market contradicts by more than 10 % per accelerator-hour: the dated "
            "row, which answers use instead (this one is rented by none); null: not superseded."
        ),
    ),
)


class OfferList(_Out):
    count: int = Field(description="Offers in this page.")
    offers: list[OfferOut]
    prices: Freshness = Field(description="How old the prices in this page are.")
    total: int = Field(description="Offers matching the filters, in all pages.")
    next: str | None = Field(description="The next page's path and query; null: the last.")
    fx: FxOut = Field(
        description="The rate of `currency` (each amount named usd gets a sibling in it); "
        "USD: nothing converted."
    )
    sources: list[str] | None = Field(
        None,
        description="`detail=compact`: each source text once; an offer's `source_ref` "
        "is an index here. Absent with `detail=full`.",
    )


HistoryPoint = _offer_model(
    "HistoryPoint",
    HISTORY,
    first=(
        *("at", "provider", "product", "region", "pricing", "usd_per_hour"),
        "usd_per_accelerator_hour",
    ),
)


class History(_Out):
    count: int = Field(description="Points in this page.")
    since: str
    points: list[HistoryPoint]
    next: str | None = Field(description="The next page's path and query; null: the last.")


class SeriesLine(_Out):
    """One provider and tier: a value per day in each column, oldest first."""

    provider: str
    pricing: str
    days: list[str] = Field(description="ISO dates.")
    low: list[float] = Field(description="Lowest price each day, USD per accelerator-hour.")
    median: list[float] = Field(description="Median of the offers, USD per accelerator-hour.")
    offers: list[int] = Field(description="Offers behind each day's figures.")
    origin: list[Literal["recorded", "stored"]] = Field(
        description="recorded: the bundled history of dated public prices; stored: a run of "
        "this store (its last of the day per source)."
    )


class SeriesChange(_Out):
    day: str
    provider: str
    pricing: str
    low_before: Number
    low: Number
    change: Number = Field(description="low / low_before - 1.")


class Series(_Out):
    accelerator: str
    since: str
    recorded_until: str = Field(
        description="The bundled history answers before this day, the store's runs from it."
    )
    count: int = Field(description="Days in all lines.")
    lines: list[SeriesLine] = Field(description="One per provider and pricing tier.")
    changes: list[SeriesChange] = Field(description="Days a line's lowest moved, newest first.")
    next: None = Field(description="Always null: the series is one page.")


# -- /gpus (re-serialised) ------------------------------------------------------------------


class CardPriceOut(_Out):
    """One sourced purchase price: how bought, when, from where."""

    basis: Literal["launch", "new", "used"]
    usd: Number
    usd_low: Number | None = Field(description="Where sources differ: the lowest.")
    usd_high: Number | None
    as_of: str
    kind: str = Field(description="list, street, sold-average, quote or estimate.")
    source: str
    notes: str


class CardOut(_Out):
    """The card's default purchase price (new where sold new, else used, else launch), with
    its kind, date and source, and every sourced price, past ones included."""

    purchase_usd: Number
    price_kind: str
    price_as_of: str
    price_source: str
    consumer: bool
    confidence: str
    bases: list[str] = Field(description="The bases `price_basis=` can ask for.")
    prices: list[CardPriceOut]


class MeasurementOut(_Out):
    """A speed measured with ``breakeven measure``."""

    relative: Number | None = Field(description="On throughput.csv's scale; null: uncalibrated.")
    samples_per_second: Number
    spread: Number
    size: str
    device_name: str
    host: str
    software: str
    measured_at: str
    calibration: str


class GpuOut(_Out):
    id: str
    name: str
    kind: str
    memory_gb: float
    device_memory_gb: float = Field(
        description="What one program addresses: a TPU v2/v3 core holds half its chip's."
    )
    platform: str = Field(description="Software platform its code is written for (cuda, xla ...).")
    aliases: list[str]
    buy: CardOut | None
    throughput: dict[str, ThroughputOut]
    board_power_w: Number | None
    fp16_tensor_tflops: Number | None
    mem_bw_gbps: Number | None
    interconnect: str
    spec_source: str
    measured: dict[str, MeasurementOut] = Field(
        description="This host's measurements, by workload."
    )


class GpuList(_Out):
    count: int
    gpus: list[GpuOut]


class ModelOut(_Out):
    """A model a job may name (`model=`)."""

    id: str
    family: Literal["transformer", "vision"]
    workload: str = Field(description="The throughput class its training is read in.")
    params: float = Field(description="Parameters (all of them: a mixture of experts too).")
    layers: int | None
    hidden: int | None
    seq_len: int | None = Field(description="Default context (transformers) or image side.")
    vocab: int | None = Field(description="Transformers: the output layer's vocabulary.")
    forward_gmacs: float | None = Field(description="Vision: forward multiply-accumulates, 1e9.")
    source: str
    date: str


class MethodOut(_Out):
    """A training method a transformer job may name (`method=`)."""

    name: str
    flops_factor: float = Field(description="Training FLOPs against full training's.")
    time_factor: float = Field(description="Measured wall-clock time against full training's.")
    bytes_per_param: float = Field(description="Weights, gradients and optimizer state.")
    source: str
    notes: str


class ModelList(_Out):
    count: int
    models: list[ModelOut]
    methods: list[MethodOut]


# -- /providers and /health (re-serialised) -------------------------------------------------


class RunOut(_Out):
    id: int
    finished_at: str
    row_count: int
    source_version: str
    age_seconds: Number


class PriceSpan(_Out):
    """The dates of the prices a source serves."""

    oldest_as_of: str | None
    newest_as_of: str | None
    age_seconds: Number | None = Field(description="The oldest price's; null: an age unknown.")
    unknown_age: int = Field(description="Prices with no known age ('before <read date>').")
    stale: bool


class ProviderOut(_Out):
    name: str
    status: str
    current_run: RunOut | None
    last_attempt_at: str
    last_error: str
    age_seconds: Number | None = Field(description="Since the current run loaded.")
    stale: bool = Field(description="The run or its prices are older than the stale limit.")
    prices: PriceSpan


class SchedulerOut(_Out):
    """Whether scheduled refreshes run: the dashboard is only as fresh as its scheduler."""

    active: bool = Field(description="A scheduler leads and polled within its stale bound.")
    quiet_seconds: Number | None = Field(
        description="Since the leading scheduler last polled; null: no scheduler leads."
    )
    says: str


class CatalogProvider(_Out):
    """One provider the served catalog rents from, whichever source brought its rows."""

    provider: str
    name: str = Field(description="As the provider sells itself.")
    offers: int
    dated: int = Field(description="Offers whose price has a date its source states.")
    dated_share: Number
    oldest_price: str | None = Field(description="The oldest dated price's day.")
    newest_price: str | None
    accelerators: list[str]
    pricing: list[str]
    live: bool = Field(
        description="A live adapter is scheduled to refresh it (BREAKEVEN_REFRESH_PROVIDERS); "
        "false: only the bundled snapshot or imports bring its rows."
    )
    bundled_why: str | None = Field(
        description="Where no live adapter refreshes it: why (pricing/bundled_only.py: its "
        "prices a web page, its API behind an account). Null where it is live, or its rows "
        "came from an import alone."
    )
    undated_why: str | None = Field(
        description="Where fewer than 70 % of its offers are dated: why. Null otherwise."
    )


class ProviderList(_Out):
    providers: list[ProviderOut] = Field(description="Each price source (adapter) and its runs.")
    catalog: list[CatalogProvider] = Field(
        description="Each provider the served catalog rents from, with its coverage."
    )
    scheduler: SchedulerOut


class Health(_Out):
    status: str
    catalog_version: int
    offers: int


# -- /refresh -------------------------------------------------------------------------------


class RefreshStarted(_Out):
    status: Literal["started"]
    providers: list[str]
    progress: str = Field(description="Where to watch it: /providers.")


class RefreshResult(_Out):
    provider: str
    status: str = Field(description="ok, failed or skipped.")
    offers: int
    dropped: int = Field(description="Impossible prices removed by the sanity checks.")
    suspect: int = Field(description="Offers flagged by the sanity checks.")
    error: str
    seconds: float


class RefreshDone(_Out):
    status: Literal["done"]
    providers: list[str]
    results: list[RefreshResult]


# -- /rank ----------------------------------------------------------------------------------


class RankedCardOut(_Out):
    id: str
    name: str
    platform: str = Field(description="The software platform it runs (cuda, rocm, xla ...).")
    memory_gb: float
    board_power_w: float | None
    fits: bool
    within_budget: bool
    purchase_usd: float
    price_kind: str
    price_as_of: str
    price_source: str
    price_confidence: str
    throughput: ThroughputOut
    throughput_per_1000_usd: float
    tco_usd: float | None = Field(description="Over `hours` of work; null without `hours`.")
    reference_hours_per_usd: float | None = Field(
        description="Null without `hours`, or when owning costs nothing (full resale, no "
        "host, no power): such a card ranks first."
    )
    cards: int = Field(
        description="How many are bought for the work: the fewest that finish by the "
        "deadline the rentals meet (a whole system where sold only so)."
    )
    replacements: int = Field(
        description="Sets bought again as each set's useful life (`lifetime_years`) ends."
    )
    within_deadline: bool = Field(
        description="False: no purchase of up to the most cards a quote buys finishes in "
        "time; such cards rank last."
    )


RankedRentalOut = _offer_model(
    "RankedRentalOut",
    RANKED,
    **COMPACT_SOURCE,
    name=OFFER_NAME,
    usd_per_reference_hour=(float, Field(description=USD_PER_REFERENCE_HOUR)),
    reference_hours_per_usd=(float, ...),
    throughput_estimated=(bool, ...),
    instances=(
        int,
        Field(description="With `deadline_days`: instances the work takes to finish; else 1."),
    ),
    wall_clock_hours=(
        float | None,
        Field(description="With `deadline_days`: the work's hours on them; else null."),
    ),
)


class RankAnswer(_Out):
    summary: str = Field(
        description="The answer in a sentence or two: the first card for the money, the "
        "cheapest rental for the same work and its price's date (where undated or of low "
        "confidence, the cheapest dated rental beside it)."
    )
    workload: Workload
    gpu: str
    memory: float | None
    budget: float | None
    hours: float | None
    deadline_days: float | None = Field(description="What the rentals finished within.")
    platforms: list[str] | Literal["all"] = Field(
        description="Software platforms whose rentals were ranked (`platforms`)."
    )
    market: list[str] | Literal["all"] = Field(
        description="Market tiers whose rentals were ranked (`market`)."
    )
    pricing: str = Field(
        description="The pricing tiers whose rentals were ranked (`pricing`, default "
        "`dependable`: on-demand and committed)."
    )
    ranked_by: Literal["reference_hours_per_usd", "throughput_per_1000_usd"]
    work: BreakevenWorkOut | None = Field(
        description="The work as stated, read as /breakeven reads it; null without one."
    )
    deadline: DeadlineOut | None = Field(
        description="With stated work: what the rentals finished within and which rule set "
        "it, as on /breakeven; null without work or without a rental."
    )
    precision: RankPrecisionOut
    fx: FxOut
    tariff: dict[str, object] | None = Field(
        description="With `country` (or a US `state`): the electricity tariff at `site` "
        "(home by default)."
    )
    cards: list[RankedCardOut]
    too_small: list[RankedCardOut]
    platform_left_out: list[str] = Field(
        description="Cards for sale left out because they run another platform than "
        "`platforms` (default: the reference card's, so your code runs unchanged); "
        "`platforms=all` ranks them too."
    )
    rent: list[RankedRentalOut]
    candidates: int
    prices: Freshness
    sources: list[str] | None = Field(None, description=SOURCES)


# -- /breakeven's compact answer (service/documents/brief.py) -------------------------------

AMOUNT_SIBLINGS = "Each amount named usd has a sibling in the currency asked (`total_eur`)."


class CompactQuestion(_Out):
    """The question as the answer read it."""

    gpu: str
    gpus: int = Field(description="Cards bought.")
    hours: float = Field(description="Work, in hours of one `gpu` card.")
    workload: Workload
    reading: str = Field(description="The work as read, in words.")
    deadline_hours: float = Field(description="Both sides finish within it.")
    deadline_days: float
    pricing: str = Field(description="The rental tiers the headline is chosen from.")
    site: str


class CompactBuy(_Out):
    """Buying: its total, present value and parts. """ + AMOUNT_SIBLINGS

    gpus: int
    system: str | None = Field(description="The whole systems bought, where cards need one.")
    wall_clock_hours: float
    total_usd: float
    present_usd: float = Field(description="In today's money: what the verdict compares.")
    parts: dict[str, float] = Field(
        description="purchase, replacement, host, network, energy, site, resale (USD)."
    )


class CompactRental(_Out):
    """A rental as a person reads it. """ + AMOUNT_SIBLINGS

    name: str = OFFER_NAME[1]
    pricing: str
    usd_per_hour: float
    price_as_of: str = Field(description="When the price held; `before` a day where undated.")
    confidence: str
    instances: int
    wall_clock_hours: float
    total_usd: float
    present_usd: float
    source_ref: int = Field(description="Its price's source: an index into `sources`.")
    offers: int | None = Field(None, description="`same_card`: the offers of the card.")


class CompactTier(_Out):
    """A pricing tier's best offer for the same work, and its verdict against buying."""

    tier: str
    verdict: Literal["buy", "rent"] | None
    name: str | None = Field(None, description="Its best offer; absent where it has none.")
    wall_clock_hours: float | None = None
    total_usd: float | None = None
    present_usd: float | None = None


class CompactLeftOut(_Out):
    platforms: list[str]
    offers: int
    best: CompactRental


class CompactCrossing(_Out):
    hours: float | None
    days: float | None
    within_life: bool
    crossing_hours: float


class CompactFreshness(_Out):
    as_of: str
    age_seconds: float | None
    stale: bool


class CompactFx(_Out):
    currency: str
    per_usd: float
    as_of: str | None
    stale: bool


class BreakevenCompact(_Out):
    (
        """/breakeven's default answer (`detail=compact`): what a person reads, a few KB, in the
    full answer's names. Money to the cent, hours to a tenth. """
        + AMOUNT_SIBLINGS
    )

    summary: str
    verdict: Literal["buy", "rent"]
    question: CompactQuestion
    buy: CompactBuy
    rent: list[CompactRental] = Field(description="The three cheapest rentals.")
    listed: int = Field(description="Rentals `detail=full` lists (the question's `top`).")
    candidates: int = Field(description="Offers that passed the filters and gates.")
    tiers: list[CompactTier] = Field(
        description="Each hourly tier, and of the committed terms the cheapest and the one "
        "the headline compares with; `detail=full` gives every tier."
    )
    other_terms: list[str] = Field(
        description="The committed terms with an offer this answer leaves out of `tiers`."
    )
    same_card: CompactRental | None = Field(description="The bought card, rented.")
    left_out: CompactLeftOut | None = Field(description="What the platform gate kept out.")
    memory_gate: dict[str, float | None]
    savings_usd: float
    breakeven: CompactCrossing | None
    payoff: Literal[tuple(PAYOFF_CASES)]  # type: ignore[valid-type]
    never_because: Literal[tuple(NEVER_REASONS)] | None  # type: ignore[valid-type]
    sources: list[str] = Field(description="The rentals' price sources, each once.")
    detail: str = Field(description="What `detail=full` adds.")
    prices: CompactFreshness = Field(description="The headline rental's price date and age.")
    fx: CompactFx


# -- the OpenAPI components -----------------------------------------------------------------

# The models of responses documented by hand (documented_response), for add_models: APIFlask
# registers only those of @bp.input and @bp.output.
BY_HAND: dict[str, type[BaseModel]] = {}


def documented_response(
    model: type[BaseModel] | tuple[type[BaseModel], ...], description: str
) -> dict[str, Any]:
    """An @bp.doc response whose JSON body is ``model``, or one of several: for a view that
    answers more than one shape (200 and 202; a compact or a full answer), which one
    @bp.output cannot say."""
    models = model if isinstance(model, tuple) else (model,)
    refs = []
    for each in models:
        BY_HAND[each.__name__] = each
        refs.append({"$ref": SCHEMAS + each.__name__})
    schema = refs[0] if len(refs) == 1 else {"oneOf": refs}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def add_models(spec: dict[str, Any], models: Iterable[type[BaseModel]]) -> None:
    """Put ``models``, and the models they nest, in the components under their own names."""
    models = list(models)
    if not models:
        return
    _, document = models_json_schema(
        [(model, "validation") for model in models], ref_template=SCHEMAS + "{model}"
    )
    components = spec.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in document.get("$defs", {}).items():
        components.setdefault(name, schema)


def finish_components(spec: dict[str, Any]) -> dict[str, Any]:
    """The components a client generator accepts: every model once, each title its own.

    APIFlask registers the models nested in each input or output model as "<Parent>.<Model>",
    once per parent: Freshness as OfferList.Freshness and RankAnswer.Freshness, GpuOut again
    as GpuList.GpuOut, Workload once per query. Generators name a class by its schema's
    title, so the copies clash (openapi-python-client then drops the responses using them).
    Copies that are the same become one component under the model's name; copies that differ
    (two models of one name) keep their dotted names and get distinct titles.
    """
    schemas: dict[str, Any] = spec.get("components", {}).get("schemas", {})
    renames = {name: name.rpartition(".")[2] for name in schemas if "." in name}
    while True:
        copies: dict[str, list[str]] = defaultdict(list)
        for name in schemas:
            copies[renames.get(name, name)].append(name)
        differing = [
            names
            for names in copies.values()
            if len({_canonical(_renamed(schemas[n], renames)) for n in names}) > 1
        ]
        if not differing:
            break
        for names in differing:
            for name in names:
                renames.pop(name, None)  # each pass drops one rename at least: this ends
    spec = _renamed(spec, renames)
    merged: dict[str, Any] = {}
    for name, schema in spec.get("components", {}).get("schemas", {}).items():
        merged.setdefault(renames.get(name, name), schema)
    if merged:
        spec["components"]["schemas"] = merged
    titles = Counter(schema.get("title") for schema in merged.values())
    for name, schema in merged.items():
        if schema.get("title") is not None and titles[schema["title"]] > 1:
            schema["title"] = name.replace(".", "")
    return spec


def _renamed(value: Any, renames: dict[str, str]) -> Any:
    """``value`` with every reference to a renamed component pointing at its new name."""
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMAS) and ref[len(SCHEMAS) :] in renames:
            value = {**value, "$ref": SCHEMAS + renames[ref[len(SCHEMAS) :]]}
        return {key: _renamed(item, renames) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, renames) for item in value]
    return value


def _canonical(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True)
