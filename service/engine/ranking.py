"""Which card? Buyable cards and rentals ranked by what a dollar buys of one workload class.

The classic GPU guides answer this with a static chart of old prices; this answers it from
the same data as /breakeven. Buying is ranked by relative throughput per purchase dollar, or,
given a workload size, by hours of work per dollar of total cost of ownership (price, host,
energy, less resale). Renting is priced per hour of the same work, so both sides can share a
scale: hours of the reference card's work per dollar.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from hardware import Accelerator, Card, Hardware, SpeedKey, Workload, speed_key
from hardware.ownership import System
from pricing.offer import StoredOffer
from service.engine.assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from service.engine.breakeven import Quote, RentOption
from service.engine.costs import BuyModel, Rentals, bought_speed, buy_assumptions, buy_model
from service.engine.hours import LONGEST_HOURS
from service.engine.offer_table import MemoryNeed, OfferTable
from service.engine.request import QuoteRequest
from service.engine.sizing import SizingError, fewest_cards

PER_DOLLARS = 1000.0  # throughput is shown per $1,000 of purchase price


@dataclass(frozen=True)
class RankRequest:
    workload: Workload
    reference: str  # the card `hours` are measured on; rentals are priced per its hour
    memory_gb: float | None = None  # per accelerator; None = no memory need
    budget_usd: float | None = None
    hours: float | None = None
    top: int = 10
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS
    # software platforms whose cards and rentals compete (None: all): a card on another runs
    # your code only once it is ported, as on /breakeven
    platforms: frozenset[str] | None = None
    markets: frozenset[str] | None = None  # market tiers whose rentals compete; None = all
    pricing: str = "any"  # a pricing.offer.PRICING_CHOICES name: the tiers whose rentals compete
    site: str | None = None  # where bought cards run; None: where their host class runs
    precision: str | None = None  # bf16, fp16 or fp8: only cards and offers that run it
    excluded_providers: frozenset[str] = frozenset()  # providers that do not serve the asker
    accelerators: frozenset[str] | None = None  # the accelerators rented (rent_gpu=); None: all
    home: str | None = None  # the asker's country (lower case): where a tie between rentals goes
    # USD per kWh where each card runs (home, office, colo), from the asker's country; a site
    # not named keeps the assumption's electricity
    electricity_at: Mapping[str, float] = field(default_factory=dict)
    most_cards: int = 4096  # the most cards of one kind a ranking buys for the work

    @property
    def speed_key(self) -> SpeedKey:
        return speed_key(self.workload, self.precision)


@dataclass(frozen=True)
class RankedCard:
    accelerator: Accelerator
    card: Card
    relative: float
    method: str
    source: str
    fits: bool
    within_budget: bool
    throughput_per_1000_usd: float
    tco_usd: float | None  # over `hours` of work, when given
    reference_hours_per_usd: float | None
    cards: int = 1  # bought for the work: the fewest that finish by the deadline (or a system)
    replacements: int = 0  # sets bought again as each set's useful life ends
    within_deadline: bool = True  # False: no count up to most_cards finishes in time


@dataclass(frozen=True)
class RankedRental:
    stored: StoredOffer
    usd_per_reference_hour: float  # at its instances (one without a deadline)
    throughput_estimated: bool
    instances: int = 1
    wall_clock_hours: float | None = None  # the work's, with a deadline


@dataclass(frozen=True)
class Ranking:
    request: RankRequest
    cards: list[RankedCard]  # fit the memory need: within budget first, best first
    too_small: list[RankedCard]  # below the memory need, listed apart
    rent: list[RankedRental]  # cheapest per hour of the reference card's work
    candidates: int
    deadline_hours: float | None = None  # what the rentals finished within; None: none


def ranks_by_work(request: RankRequest) -> bool:
    """Whether cards are ranked by work per dollar of ownership (the question states the
    work), else by throughput per purchase dollar. Stated work is never 0 h (hours= and
    every job keep service/engine/work.py's floor); a 0 read as "none stated" switched the
    ranking silently and dropped every card's total cost."""
    return request.hours is not None


def rank(
    hardware: Hardware, table: OfferTable, request: RankRequest, quoted: Quote | None = None
) -> Ranking:
    """Cards and rentals ranked. ``quoted``: the quote of the same stated work, whose
    rentals (by present value, on the same deadline, memory gate and filters) are the
    ranking's, so /rank and /breakeven name the same cheapest rental."""
    s_ref = hardware.speed(request.reference, request.workload, request.precision).relative
    runs = [
        c
        for c in hardware.cards.values()
        if _runs(hardware, c.accelerator, request.precision)
        and _on_platforms(hardware, c.accelerator, request.platforms)
    ]
    deadline = None if quoted is None else quoted.deadline_hours
    ranked = [_card(hardware, request, card, s_ref, deadline) for card in runs]

    def key(c: RankedCard) -> tuple[bool, bool, float]:
        metric = c.reference_hours_per_usd if ranks_by_work(request) else c.throughput_per_1000_usd
        # None: owning costs nothing over `hours` (full resale, no host, no power): the best
        best = -(math.inf if metric is None else metric)
        return (not c.within_deadline, not c.within_budget, best)

    cards = sorted((c for c in ranked if c.fits), key=key)
    too_small = sorted((c for c in ranked if not c.fits), key=key)
    if quoted is None:
        rent, candidates = _rentals(table, request, s_ref)
        return Ranking(request, cards, too_small, rent, candidates)
    rent = [_rented(option) for option in quoted.rent[: request.top]]
    return Ranking(request, cards, too_small, rent, quoted.candidates, quoted.deadline_hours)


def _rented(option: RentOption) -> RankedRental:
    return RankedRental(
        stored=option.stored,
        usd_per_reference_hour=option.usd_per_reference_hour,
        throughput_estimated=option.throughput_estimated,
        instances=option.instances,
        wall_clock_hours=option.hours,
    )


def _runs(hardware: Hardware, accelerator: str, precision: str | None) -> bool:
    """A card takes part when it trains in the precision asked (any, when none is)."""
    return precision is None or hardware.supports(accelerator, precision)


def _on_platforms(hardware: Hardware, accelerator: str, platforms: frozenset[str] | None) -> bool:
    return platforms is None or hardware.registry[accelerator].platform in platforms


def off_platforms(hardware: Hardware, platforms: frozenset[str] | None) -> list[str]:
    """The cards for sale left out of a ranking because they run another platform."""
    return sorted(c for c in hardware.cards if not _on_platforms(hardware, c, platforms))


def untrained_in(hardware: Hardware, precision: str | None) -> list[str]:
    """The cards for sale left out of a ranking because they do not train in ``precision``."""
    return sorted(c for c in hardware.cards if not _runs(hardware, c, precision))


def _card(
    hardware: Hardware, request: RankRequest, card: Card, s_ref: float, deadline: float | None
) -> RankedCard:
    """One card's place. A card sold only in whole systems (systems.csv) is owned by the
    node: its cost over the work, and the budget, are a whole node's doing it. Given the
    work, each card is bought in the count that finishes it by ``deadline`` (the quote's,
    as the rentals meet it; None: within the longest time a question spans), so a slow card
    is priced as the many a team would buy, not one running for decades."""
    acc = hardware.registry[card.accelerator]
    speed = hardware.speed(acc.id, request.workload, request.precision)
    system = hardware.ownership.sold_whole(acc.id)
    step, price, basis = 1, card.purchase_usd, "new"
    if system is not None:
        step, price, basis = system.cards, system.usd / system.cards, "system"
    cards, tco, per_usd, replacements, in_time = step, None, None, 0, True
    if request.hours is not None:
        a = request.assumptions
        relative = speed.relative / s_ref
        speed_of = functools.partial(_work_speed, hardware, request, acc.id, relative)
        needed = request.hours / (a.utilization * (deadline or LONGEST_HOURS))
        # the buy side's search, over whole nodes of ``step`` cards in the card's own units
        most = max(1, request.most_cards // step)

        def per_node(nodes: int) -> float:
            return bought_speed(hardware, acc.id, request.workload, nodes * step) / step

        try:
            nodes = fewest_cards(1, per_node, needed / relative / step, most, "deadline")
        except SizingError:  # no count up to the most finishes in time: the most, said so
            nodes, in_time = most, False
        cards = nodes * step
        model = _owning(hardware, request, acc, cards, price, basis, system, speed_of(cards))
        tco = model.cost(request.hours)
        replacements = model.replacements(request.hours)
        per_usd = request.hours / tco if tco > 0 else None  # tco=0 divided by zero: a 500
    within = request.budget_usd is None or cards * price <= request.budget_usd
    return RankedCard(
        accelerator=acc,
        card=card,
        relative=speed.relative,
        method=speed.method,
        source=speed.source,
        fits=request.memory_gb is None or acc.device_memory_gb >= request.memory_gb,
        within_budget=within,
        throughput_per_1000_usd=speed.relative / card.purchase_usd * PER_DOLLARS,
        tco_usd=tco,
        reference_hours_per_usd=per_usd,
        cards=cards,
        replacements=replacements,
        within_deadline=in_time,
    )


def _work_speed(
    hardware: Hardware, request: RankRequest, accelerator: str, relative: float, cards: int
) -> float:
    """Reference-card hours of work ``cards`` of a card do per busy hour, at their scaling."""
    return relative * bought_speed(hardware, accelerator, request.workload, cards)


def _owning(
    hardware: Hardware,
    request: RankRequest,
    acc: Accelerator,
    cards: int,
    price: float,
    basis: str,
    system: System | None,
    work_speed: float,
) -> BuyModel:
    """Owning ``cards`` of a card for the work, at the asker's tariff where they run."""
    given = request.assumptions
    site = request.site or hardware.host(cards).host.site
    if site in request.electricity_at:  # the asker's tariff where this card runs
        given = replace(given, electricity=request.electricity_at[site])
    assumptions, _ = buy_assumptions(
        given, hardware, acc.id, cards, request.site, basis, price, system
    )
    return buy_model(
        price, acc.board_power_w or 0.0, cards, work_speed, assumptions, hardware.host(cards).count
    )


def _rentals(
    table: OfferTable, request: RankRequest, s_ref: float
) -> tuple[list[RankedRental], int]:
    """Without stated work: every admitted rental by its price per hour of the reference
    card's work, the interruption allowance of one instance included."""
    probe = QuoteRequest(
        reference=request.reference,
        hours=1.0,
        workload=request.workload,
        memory_gb=request.memory_gb,
        top=request.top,
        assumptions=request.assumptions,
        platforms=request.platforms,
        markets=request.markets,
        pricing=request.pricing,
        precision=request.precision,
        excluded_providers=request.excluded_providers,
        accelerators=request.accelerators,
    )
    need = MemoryNeed(per_accelerator_gb=request.memory_gb)
    shortlist = table.shortlist(probe, need, own=False)
    index, candidates = shortlist.index, shortlist.candidates
    if index.size == 0:
        return [], candidates
    k = request.speed_key
    per_hour = Rentals.of(table, index, s_ref, k).rate(request.assumptions.spot_overhead)
    # equal prices: the asker's country first, then a dated price (OfferTable.tie_rank), as
    # a quote's rentals are ordered
    best = np.lexsort((index, table.tie_rank(request.home)[index], per_hour))[: request.top]
    return [
        RankedRental(
            stored=table.rows[index[i]],
            usd_per_reference_hour=float(per_hour[i]),
            throughput_estimated=bool(table.estimated[k][index[i]]),
        )
        for i in best
    ], candidates
