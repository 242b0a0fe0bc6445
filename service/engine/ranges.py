"""How sure the verdict is: the spread of the rent side across comparable offers and
across the uncertainty of the speeds it was counted with.

Comparable offers rent the cheapest offer's accelerator anywhere: every region and
provider, on the question's platforms, markets and pricing, with the memory it needs. Their
costs for the work give P10, P50 and P90. Speeds carry a stated spread per method
(``SPEED_SPREAD``); the rent total moves inversely with the speed ratio, so a spread u of
the rental's and the bought card's speeds, combined in quadrature, bounds it by T / (1 + u)
and T / (1 - u). A job worked out from its FLOPs carries the spread of the published runs
around the utilization fit (its kind's runs held out with their teams, ratios of
predicted over reported hours: work.hours_spread): the true hours are the predicted over
that ratio, and the rent total moves with them (buying's cards are bought either way;
their power, which moves too, is not counted here). The verdict is close when the buy
total falls inside any range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from hardware import Throughput
from service.engine.breakeven import Quote
from service.engine.costs import Limits, Rentals
from service.engine.offer_table import MemoryNeed, OfferTable
from service.engine.sensitivity import case_of, case_verdict

# The spread each way a speed of each method carries: an assumption, grounded as follows.
# measured: a card's speed relative to Lambda's reference card moved by a median 10 % (CNN)
#   and 14 % (transformer) between Lambda's 2022-07 and 2025-12 sets (10 cards in both;
#   hardware/data/sources/lambda_relative_perf_single_gpu.csv): 15 %.
# adjusted: a measurement carried to another set or chip adds that bridge's error: 20 %.
# estimated: the capped and uncapped estimates of one card differ by up to 40 %
#   (hardware/data/README.md, the estimates' table): 40 %.
SPEED_SPREAD = {"measured": 0.15, "adjusted": 0.20, "estimated": 0.40}
PERCENTILES = (10, 50, 90)


@dataclass(frozen=True)
class OfferSpread:
    accelerator: str
    offers: int
    p10_usd: float
    p50_usd: float
    p90_usd: float


@dataclass(frozen=True)
class SpeedSpread:
    methods: tuple[str, str]  # the bought card's speed, the cheapest rental's
    spread: float  # combined, each way
    low_usd: float  # the cheapest rental's total if the speeds favour it
    high_usd: float


@dataclass(frozen=True)
class WorkSpread:
    ratios: tuple[float, float]  # work.hours_spread: low and high predicted / reported hours
    low_usd: float  # the cheapest rental's total if the job takes fewer hours than predicted
    high_usd: float


@dataclass(frozen=True)
class Ranges:
    offers: OfferSpread
    speed: SpeedSpread
    work: WorkSpread | None  # a job worked out from its FLOPs; None for hours stated
    buy_usd: float
    close: bool  # the buy total falls inside a range: the verdict could go either way
    note: str


def ranges(
    quote: Quote,
    table: OfferTable,
    reference: Throughput,
    hours_spread: tuple[float, float] | None = None,
) -> Ranges:
    request, cheapest = quote.request, quote.rent[0]
    accelerator = cheapest.stored.offer.accelerator
    comparable = replace(request, providers=None, region=None)
    need = quote.memory_gate.need if quote.memory_gate is not None else MemoryNeed()
    most = quote.assumptions.max_instances
    index = table.comparable(accelerator, comparable, need, most)
    s_ref = quote.priced.reference_speed if quote.priced else reference.relative
    limits = quote.priced.limits if quote.priced else Limits(quote.deadline_hours)
    limits = replace(limits, clock=quote.buy_model.clock)
    rentals = Rentals.of(table, index, s_ref, request.speed_key)
    job = rentals.job(
        request.hours, quote.assumptions, request.rent_factor, request.session_hours, limits
    )
    # present values, as the verdict weighs them, of those that finish in time (the
    # cheapest does), on the quote's clock
    totals = job.present_usd[job.feasible]
    p10, p50, p90 = (float(v) for v in np.percentile(totals, PERCENTILES))
    offers = OfferSpread(accelerator, int(totals.size), p10, p50, p90)

    methods = (reference.method, cheapest.throughput.method)
    spread = math.hypot(*(SPEED_SPREAD.get(m, SPEED_SPREAD["estimated"]) for m in methods))
    spread = min(spread, 0.9)  # a speed cannot be off by its whole value
    total = cheapest.present_usd
    speed = SpeedSpread(methods, spread, total / (1 + spread), total / (1 - spread))

    work = None
    candidates = [
        (f"{accelerator}'s offers (P10-P90)", p10, p90),
        ("the speeds' stated spread", speed.low_usd, speed.high_usd),
    ]
    if hours_spread is not None:
        fewer, more = hours_spread
        work = WorkSpread(hours_spread, total / more, total / fewer)
        candidates.append(("the published runs' spread", work.low_usd, work.high_usd))
    buy = quote.buy.present_usd
    inside = [name for name, low, high in candidates if low <= buy <= high]
    note = (
        f"close: buying ({buy:,.0f} USD) falls within {' and within '.join(inside)}"
        if inside
        else f"clear: buying ({buy:,.0f} USD) is outside every range"
    )
    return Ranges(offers, speed, work, buy, bool(inside), note)


@dataclass(frozen=True)
class SpreadEnd:
    """The question priced again with the job's hours at one end of the published runs'
    spread: both sides, and which wins."""

    hours: float  # reference-card hours of work the job would take
    buy_usd: float  # present values, as the verdict weighs them
    rent_usd: float  # the cheapest rental's, among those the quote costed
    verdict: str


@dataclass(frozen=True)
class CostSpread:
    ratios: tuple[float, float]  # low and high predicted / reported hours (hours_spread)
    fewer: SpreadEnd  # the job as quick as the high ratio says: hours / high
    more: SpreadEnd  # as slow as the low ratio says: hours / low
    flips: bool  # the verdict at an end differs from the answer's


def cost_spread(quote: Quote, table: OfferTable, hours_spread: tuple[float, float]) -> CostSpread:
    """A job worked out from its FLOPs takes the predicted hours over a ratio the published
    runs spread across (work.hours_spread): both sides priced again at the two ends, each
    with its own deadline where the answer took one from the bought cards' calendar (like
    for like), so the money says what the spread means and whether the verdict holds."""
    case = case_of(quote, table)
    low, high = hours_spread

    def end(hours: float) -> SpreadEnd:
        found, buy, rent = case_verdict(case.moved("hours", hours))
        return SpreadEnd(hours, buy, rent, found)

    fewer, more = end(case.hours / high), end(case.hours / low)
    flips = quote.verdict != fewer.verdict or quote.verdict != more.verdict
    return CostSpread(hours_spread, fewer, more, flips)
