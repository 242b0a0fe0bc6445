"""The break-even engine (design section 3): pure arithmetic, no Flask, no database.

A quote prices one question: the cards it would buy, the rentals that could do the same
work, and where the two cross. What each costs is written once, in service/engine/costs.py;
this module chooses what to price (the shortlist, the same-card rental, the measured
alternative, what the platform gate kept out) and says why none is left when none is.
Offers come from a columnar :class:`OfferTable`, so costing them is vector arithmetic.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from hardware import Accelerator, Hardware, Throughput
from hardware.ownership import System
from pricing.offer import TERM_HOURS, StoredOffer, pricing_models
from pricing.tiers import TIERS, Tier
from service.engine.again import (
    LEFT_OUT,
    MEASURED,
    RENT,
    SAME_CARD,
    Planned,
    admits_tier,
    again,
    left_out_question,
    measured_question,
    plan_key,
    remember,
    tier_question,
)
from service.engine.assumptions import Assumptions
from service.engine.cheapest import (
    Costed,
    admitted_mask,
    cheapest,
    costed,
    read_orders,
    read_terms,
)
from service.engine.costs import (
    DEADLINE_TOLERANCE,
    HOURS_PER_YEAR,
    BuyBasis,
    BuyModel,
    Limits,
    bought_fabric,
    bought_speed,
    buy_assumptions,
    buy_model,
    calendar_hours,
    crossing_hours,
    crossing_rates,
    site_parts,
    verdict,
)
from service.engine.hours import HOURS_PER_DAY, LONGEST_HOURS, LONGEST_YEARS
from service.engine.lru import Lru
from service.engine.offer_table import MemoryNeed, OfferTable, Shortlist
from service.engine.request import QuoteRequest

# The filters that narrow the rentals, as (parameter, QuoteRequest field, the value that
# filters nothing), in the order the query lists them: a question they leave without an
# offer is told which of them did it.
FILTERS = (
    ("providers", "providers", None),
    ("rent_gpu", "accelerators", None),
    ("platforms", "platforms", None),
    ("market", "markets", None),
    ("pricing", "pricing", "any"),
    ("region", "region", None),
)


class QuoteError(ValueError):
    """A quote that cannot be answered as asked; ``parameter`` names the culprit, and
    ``blamed`` every culprit with why, ``parameter`` first: filters may leave no offer only
    together (market=secure with providers=aws)."""

    def __init__(
        self, parameter: str, message: str, blamed: Sequence[tuple[str, str]] = ()
    ) -> None:
        self.parameter = parameter
        self.blamed = tuple(blamed) or ((parameter, message),)
        super().__init__(message)


class NoMatchingOffers(QuoteError):
    """No rental passes the filters and the memory gate, so there is nothing to compare."""


@dataclass(frozen=True)
class BuyCost:
    gpu: str
    gpus: int
    purchase_usd: float
    host_usd: float
    energy_usd: float
    resale_usd: float
    total_usd: float
    hours: float  # busy hours of the local cards
    wall_clock_hours: float  # calendar time they take: busy hours / utilization
    nodes: int  # hosts the cards fill
    fabric: str  # between the hosts, where more than one
    price_basis: str  # new, used, launch or given (price=)
    price_source: str
    host: str  # the sized host ("workstation", "2 x server") or "as given"
    host_source: str  # where its price and draw come from
    resale_basis: str  # where the resale share and its yearly loss come from
    watts: float
    site: str  # home, office or colo: where the cards run
    site_basis: str  # given, or where their host class runs by default
    colo_usd: float  # rack space on the nodes' nameplate draw, over the calendar time
    support_usd: float  # support and maintenance on the purchase, over the calendar time
    staff_usd: float  # the people who run the nodes, over the calendar time
    network_usd: float  # the fabric between nodes, bought with them
    replacements: int  # sets of cards bought again as each set's useful life ends
    replacement_usd: float  # what those later sets cost, in cash (the cards at today's price)
    site_usd: float  # colo + support + staff
    present_usd: float  # total_usd's cash flows discounted to now: the figure weighed
    sources: dict[str, str]  # each default from data: where its value came from
    system: str | None  # the whole system bought where the card is sold only in one


class RentOption(NamedTuple):
    """One rental priced for the work. A named tuple, not a frozen dataclass: a quote makes
    a score of them, and a frozen dataclass's field-by-field init was a tenth of a new
    question's time in the engine."""

    stored: StoredOffer
    hours: float  # wall-clock hours the offer runs to do the work (all instances at once)
    instances: int  # of the offer, as one cluster
    fabric: str  # the network between instances (hardware/fabrics.py)
    cluster_efficiency: float  # e(instances) on that fabric; 1 for one instance
    total_usd: float  # cash, whenever paid
    present_usd: float  # the same paid as it falls due, discounted to now: the figure weighed
    usd_per_reference_hour: float  # total over the work, in hours of the reference card
    breakeven_hours: float | None  # reference-card hours where buying gets cheaper
    crossing_rate: float  # USD per hour of work the break-even is solved with (crossing_rates)
    throughput: Throughput  # how the accelerator's speed is known
    sessions: int  # runtimes the work needs: 1 unless the offer is session-bound
    # hours each instance is paid for: ``hours``, or whole terms of a committed offer
    paid_hours: float

    @property
    def throughput_estimated(self) -> bool:
        return self.throughput.estimated


@dataclass(frozen=True)
class LeftOut:
    """Offers on platforms the question did not ask for (the code would need porting)."""

    platforms: frozenset[str]  # the other platforms that have candidates
    offers: int  # candidates on them, past every other filter
    best: RentOption  # the cheapest of them for the same work


@dataclass(frozen=True)
class TierBest:
    """The best offer of one pricing tier for the same work (pricing/tiers.py)."""

    tier: Tier
    best: RentOption | None  # None: no offer of the tier the question admits does the work


@dataclass(frozen=True)
class MemoryGate:
    """The memory rule that applied, and how many offers it removed from the candidates."""

    need: MemoryNeed
    removed: int


@dataclass(frozen=True)
class Quote:
    request: QuoteRequest
    assumptions: Assumptions  # the request's, with the defaults from data filled in
    memory_gb: float | None  # per accelerator; None = a sharded job with no per-device need
    buy: BuyCost
    rent: list[RentOption]
    candidates: int  # offers that passed filters and the memory gate
    verdict: str  # buy or rent
    savings_usd: float
    breakeven_hours: float | None  # against the cheapest rental; None = never
    breakeven_days: float | None
    deadline_hours: float  # wall-clock hours every rental finished within
    deadline_given: bool  # False: the bought cards' own calendar time
    life_hours: float  # reference-card hours of work the cards do in their useful life
    buy_model: BuyModel
    memory_gate: MemoryGate | None = None
    left_out: LeftOut | None = None  # None: no platform gate, or nothing behind it
    # The cheapest offer whose throughput is not estimated, when the cheapest one's is
    cheapest_measured: RentOption | None = None
    # The cheapest rental of the very card the question would buy (a marketplace's RTX 3090),
    # and how many offers rent it: the comparison people make first
    same_card: tuple[RentOption, int] | None = None
    priced: Priced | None = None  # the numbers the answer came from, to price it again
    tiers: tuple[TierBest, ...] = ()  # the best of each pricing tier, in TIERS order


@dataclass(frozen=True)
class Priced:
    """What a quote priced, kept so a what-if (service/engine/sensitivity.py) can price the
    same question again with one input moved, without another scan of the catalog."""

    price_usd: float  # per card
    watts: float
    local_speed: float  # reference-card hours the bought cards do per busy hour
    reference_speed: float  # S(ref, k) the rentals' hours were counted in
    shortlist: np.ndarray  # the offers costed: those that can be cheapest
    limits: Limits  # the deadline, memory and instances the rentals met


@dataclass(frozen=True)
class Bought:
    """What a question buys, but for its hours: the cards' price and where it came from, the
    assumptions filled from data, the cards' draw and speed, the memory they must hold and
    what owning them costs an hour of work. A dashboard sweeping the hours of one question
    asks the same of it each time, a tenth of a new question's time: :func:`bought`
    remembers it."""

    reference: Accelerator  # the card bought
    price: float  # USD per card
    price_basis: str
    price_source: str
    system: System | None  # the whole system the card is sold in, where it is
    assumptions: Assumptions  # the request's, with the defaults from data filled in
    basis: BuyBasis
    watts: float
    need: MemoryNeed
    reference_speed: float  # S(ref, k): the unit a rental's hours are counted in
    local_speed: float  # reference-card hours the bought cards do per busy hour
    nodes: int
    fabric: str  # between the nodes, where more than one
    model: BuyModel
    site_parts: dict[str, float]  # the site's costs per calendar hour (costs.site_parts)


def bought(hardware: Hardware, request: QuoteRequest) -> Bought:
    """The buy side of ``request`` but for its hours, as last worked out for the same
    question on the same hardware data."""
    key = plan_key(request)
    known = _BOUGHT.get(key)
    if known is not None and known[0] is hardware:
        return known[1]
    found = _buy_side(hardware, request)
    _BOUGHT.put(key, (hardware, found))
    return found


BOUGHT_KEPT = 256  # questions (but for their hours) whose buy side is remembered
# per question but for its hours: (the hardware data it was read from, what it buys)
_BOUGHT: Lru[tuple[object, ...], tuple[Hardware, Bought]] = Lru(BOUGHT_KEPT)


def _buy_side(hardware: Hardware, request: QuoteRequest) -> Bought:
    ref = hardware.registry[request.reference]
    k = request.workload
    n = request.gpus
    price, price_basis, price_source, system = _purchase_price(hardware, request)
    a, basis = buy_assumptions(
        request.assumptions,
        hardware,
        request.reference,
        n,
        request.site,
        price_basis,
        price,
        system,
    )
    watts = request.watts if request.watts is not None else ref.board_power_w
    if watts is None:
        raise QuoteError("watts", f"no sourced board power for {ref.id}; pass watts=W")
    held = request.gpus * (ref.memory_gb - request.memory_overhead_gb)
    if request.total_memory_gb is not None and held < request.total_memory_gb:
        kept = ""
        if request.memory_overhead_gb:
            kept = f" besides the {request.memory_overhead_gb:g} GB each keeps for the framework"
        raise QuoteError(
            "total_memory",
            f"{request.gpus} x {ref.id} hold {held:g} GB{kept}, less than total_memory="
            f"{request.total_memory_gb:g}: buy more cards (gpus=) or shard less",
        )
    # n local reference cards; busy hours shrink with n, less the scaling loss
    local_speed = bought_speed(hardware, ref.id, k, n)
    nodes = hardware.host(n).count
    return Bought(
        reference=ref,
        price=price,
        price_basis=price_basis,
        price_source=price_source,
        system=system,
        assumptions=a,
        basis=basis,
        watts=watts,
        need=memory_need(request, ref.device_memory_gb),
        reference_speed=(
            request.reference_speed or hardware.speed(ref.id, k, request.precision).relative
        ),
        local_speed=local_speed,
        nodes=nodes,
        fabric=bought_fabric(hardware, ref.id) if nodes > 1 else "none",
        model=buy_model(price, watts, n, local_speed, a, nodes),
        site_parts=site_parts(price, watts, n, a, nodes),
    )


def quote(
    table: OfferTable, hardware: Hardware, request: QuoteRequest, again_ok: bool = True
) -> Quote:
    """The question priced. ``again_ok``: a question asked before with other hours may be
    priced from the offers its last reading costed (again.py); a what-if that prices the
    answer's offers once more (Priced.shortlist) asks for the full reading instead, so it
    re-prices the same offers whatever was asked before."""
    b = bought(hardware, request)
    ref, n, a, need, model = b.reference, request.gpus, b.assumptions, b.need, b.model
    s_ref, local_speed = b.reference_speed, b.local_speed
    busy_hours = request.hours / local_speed
    wall_clock = calendar_hours(request.hours, local_speed, a.utilization)
    if request.deadline_hours is None and wall_clock > LONGEST_HOURS * (1 + DEADLINE_TOLERANCE):
        raise QuoteError(
            "gpus",
            f"{n} x {ref.id} take {wall_clock / HOURS_PER_YEAR:,.1f} years of calendar time at "
            f"utilization {a.utilization:g}, past the longest time a question spans "
            f"({LONGEST_YEARS} years, the longest useful life): buy more cards (leave gpus= "
            "out to buy the fewest that make it), or state less work",
        )
    deadline = wall_clock if request.deadline_hours is None else request.deadline_hours
    if wall_clock > deadline * (1 + DEADLINE_TOLERANCE):
        raise QuoteError(
            "deadline_days",
            f"{n} x {ref.id} take {wall_clock:,.0f} h of calendar time at utilization "
            f"{a.utilization:g}, past the deadline of {deadline:,.0f} h "
            f"({deadline / HOURS_PER_DAY:,.1f} days): buy more cards (leave gpus= out to buy "
            "the fewest that make it), or allow more time",
            [("deadline_days", "the bought cards miss it"), ("gpus", "too few to make it")],
        )
    # rentals weighed in today's money on the bought cards' calendar, as the verdict weighs
    limits = Limits(
        deadline,
        need.total_gb,
        a.max_instances,
        need.per_card_overhead_gb,
        model.clock,
        request.country,
    )
    buy = _buy_cost(request, b, hours=busy_hours, wall_clock_hours=wall_clock)

    # Rent: the offers that can be cheapest, costed and merged; a question asked before with
    # other hours, from the offers its last reading costed where that proves every part
    shortlist = table.shortlist(request, need)
    if shortlist.candidates == 0:
        raise _no_offers(table, request, need, shortlist.gated)
    planned = again(table, request, need, s_ref, limits) if again_ok else None
    if planned is None:
        rentals = _read(table, request, need, shortlist, s_ref, model, limits)
        remember(table, request, rentals.costed)
    else:
        rentals = _from_plan(table, request, need, shortlist, model, limits, planned)
    rent = rentals.rent
    cheapest = rent[0]
    answer = verdict(buy.present_usd, cheapest.present_usd)
    days = None
    if cheapest.breakeven_hours is not None:
        calendar = calendar_hours(cheapest.breakeven_hours, local_speed, a.utilization)
        days = calendar / HOURS_PER_DAY
    return Quote(
        request=request,
        assumptions=a,
        memory_gb=need.per_accelerator_gb,
        buy=buy,
        rent=rent,
        candidates=shortlist.candidates,
        verdict=answer,
        savings_usd=abs(cheapest.present_usd - buy.present_usd),
        breakeven_hours=cheapest.breakeven_hours,
        breakeven_days=days,
        deadline_hours=deadline,
        deadline_given=request.deadline_hours is not None,
        # busy hours in the life: calendar hours x utilization; work: busy hours x n x eta
        life_hours=a.lifetime_years * HOURS_PER_YEAR * a.utilization * local_speed,
        buy_model=model,
        memory_gate=MemoryGate(need, shortlist.gated),
        left_out=rentals.left_out,
        cheapest_measured=rentals.cheapest_measured,
        same_card=rentals.same_card,
        tiers=rentals.tiers,
        priced=Priced(b.price, b.watts, local_speed, s_ref, rentals.index, limits),
    )


@dataclass(frozen=True)
class _Rentals:
    """The rent side of a quote, and every offer costed to find it."""

    rent: list[RentOption]
    left_out: LeftOut | None
    cheapest_measured: RentOption | None
    same_card: tuple[RentOption, int] | None
    tiers: tuple[TierBest, ...]
    index: np.ndarray  # the costed offers the question admits: Priced.shortlist
    costed: list[np.ndarray]  # the rows of each costing (again.remember)


def _read(
    table: OfferTable,
    request: QuoteRequest,
    need: MemoryNeed,
    shortlist: Shortlist,
    s_ref: float,
    model: BuyModel,
    limits: Limits,
) -> _Rentals:
    """Every part of the rent side read from the cheapest-first orders: the headline's
    rentals, what the platform gate left out, the measured alternative, the same card, the
    tiers; ``seen`` gathers the rows each costed."""
    seen: list[np.ndarray] = []
    rent, main = _asked(table, request, need, shortlist, s_ref, model, limits, seen)
    if not rent:
        raise _missed(request, shortlist.candidates, limits.deadline_hours)
    measured = _cheapest_measured(table, request, need, s_ref, model, rent[0], limits, main, seen)
    return _Rentals(
        rent=rent,
        left_out=_left_out(table, request, need, s_ref, model, limits, seen),
        cheapest_measured=measured,
        same_card=_same_card(table, request, need, shortlist, s_ref, model, limits, main, seen),
        tiers=_tiers(table, request, need, s_ref, model, limits, main, seen),
        index=main.index,
        costed=seen,
    )


def _from_plan(
    table: OfferTable,
    request: QuoteRequest,
    need: MemoryNeed,
    shortlist: Shortlist,
    model: BuyModel,
    limits: Limits,
    planned: Planned,
) -> _Rentals:
    """The rent side from a plan's proved parts (again.py), its rent lines built in one
    pass over every part's offers."""
    named = [(name, found) for name, found in planned.parts.items() if found is not None]
    # an offer that is the best of several parts (the headline, its tier) is built once
    positions = np.concatenate([found for _, found in named]).tolist()
    every = dict.fromkeys(positions)
    at = {position: i for i, position in enumerate(every)}
    options = _options(table, request, model, planned.costed, np.fromiter(every, np.intp))
    built = iter([at[position] for position in positions])
    lines = {name: [options[next(built)] for _ in range(found.size)] for name, found in named}
    rent = lines[RENT]
    if not rent:
        raise _missed(request, shortlist.candidates, limits.deadline_hours)

    def best(name: str) -> RentOption | None:
        found = lines.get(name)
        return found[0] if found else None

    same = best(SAME_CARD)
    left_best = best(LEFT_OUT)
    left_out = None
    if planned.left_out is not None and left_best is not None:
        others, offers = planned.left_out
        left_out = LeftOut(platforms=others, offers=offers, best=left_best)
    return _Rentals(
        rent=rent,
        left_out=left_out,
        cheapest_measured=best(MEASURED) if rent[0].throughput_estimated else None,
        same_card=None if same is None else (same, shortlist.same_card_candidates),
        tiers=tuple(TierBest(tier, best(tier.name)) for tier in TIERS),
        index=planned.costed.index[planned.admitted],
        costed=[planned.costed.index],
    )


def _buy_cost(request: QuoteRequest, b: Bought, hours: float, wall_clock_hours: float) -> BuyCost:
    """The buy side itemized: what is paid now, what running and the site cost over the
    calendar time, what selling fetches; cash and present value, for ``hours`` busy hours
    (``wall_clock_hours`` of calendar time)."""
    work, model, a, basis = request.hours, b.model, b.assumptions, b.basis
    calendar = work * model.calendar_per_hour
    parts = {name: usd * calendar for name, usd in b.site_parts.items()}
    ref = b.reference.id
    return BuyCost(
        gpu=request.reference,
        gpus=request.gpus,
        purchase_usd=request.gpus * b.price,
        host_usd=a.host_cost,
        energy_usd=model.energy_usd_per_hour * work,
        resale_usd=model.resale(work),
        total_usd=model.cash(work),
        hours=hours,
        wall_clock_hours=wall_clock_hours,
        nodes=b.nodes,
        fabric=b.fabric,
        price_basis=b.price_basis,
        price_source=b.price_source,
        host=basis.host,
        host_source=basis.host_source,
        resale_basis=basis.resale,
        watts=b.watts,
        site=basis.site,
        site_basis=basis.site_basis,
        network_usd=b.nodes * a.network_usd,
        replacements=(sets := model.replacements(work)),
        replacement_usd=sets * model.replacement_usd,
        site_usd=sum(parts.values()),
        present_usd=model.cost(work),
        sources=basis.sources,
        system=None if b.system is None else f"{b.nodes} x {b.system.cards}-card {ref} system",
        **parts,
    )


def _purchase_price(
    hardware: Hardware, request: QuoteRequest
) -> tuple[float, str, str, System | None]:
    """(USD per card, basis, where from, the system bought whole): price= wins; else a
    card sold only in whole systems is priced as its share of one (bought new); else the
    card's price of the basis asked for, or of its default basis (new where sold new, else
    used, else launch)."""
    if request.price_usd is not None:
        return request.price_usd, "given", "price= parameter", None
    system = hardware.ownership.sold_whole(request.reference, None, request.price_basis)
    if system is not None:
        spread = ""
        if system.usd_low is not None or system.usd_high is not None:
            spread = f", range {system.usd_low or system.usd:,.0f}-"
            spread += f"{system.usd_high or system.usd:,.0f} USD"
        source = (
            f"a whole {system.cards}-card system at {system.usd:,.0f} USD ({system.kind}"
            f"{spread}) as of {system.as_of}, per card: {system.source}"
        )
        return system.usd / system.cards, "system", source, system
    card = hardware.cards.get(request.reference)
    if card is None:
        raise QuoteError(
            "price", f"no sourced purchase price for {request.reference}; pass price=USD"
        )
    found = card.price(None if request.price_basis == "system" else request.price_basis)
    if found is None:
        raise QuoteError(
            "price_basis",
            f"no sourced {request.price_basis} price for {request.reference}; sourced: "
            f"{', '.join(card.bases())} (or pass price=USD)",
        )
    spread = ""
    if found.usd_low is not None or found.usd_high is not None:
        spread = f", range {found.usd_low or found.usd:g}-{found.usd_high or found.usd:g} USD"
    source = f"{found.basis} price ({found.kind}{spread}) as of {found.as_of}: {found.source}"
    return found.usd, found.basis, source, None


def memory_need(request: QuoteRequest, device_memory_gb: float) -> MemoryNeed:
    """The memory rule of a question: a sharded job (total_memory) needs the total only,
    unless memory= is asked too; otherwise each device holds what the bought card does."""
    per_accelerator = request.memory_gb
    if per_accelerator is None and request.total_memory_gb is None:
        per_accelerator = device_memory_gb
    overhead = request.memory_overhead_gb if request.total_memory_gb is not None else 0.0
    return MemoryNeed(per_accelerator, request.total_memory_gb, overhead)


@dataclass(frozen=True)
class _Filter:
    """One filter a question sets, as ``_no_offers`` weighs it."""

    parameter: str
    shown: str  # as the question gives it: region=nosuch
    field: str  # of QuoteRequest; "need" is the memory gate
    value: Any
    everything: Any  # the value that filters nothing


def _no_offers(
    table: OfferTable, request: QuoteRequest, need: MemoryNeed, gated: int
) -> NoMatchingOffers:
    """Why no offer is left, naming the filters to blame: each without which offers would
    match (market=secure and providers=aws each match some alone). Where dropping any one
    leaves none still, those that match nothing even alone (region=nosuch with
    providers=nobody); where none does that either, all of them. A count per filter, each a
    scan of the catalog: on this error path only."""
    if request.providers is not None and not request.providers & table.providers.keys():
        # None of the providers asked for has an offer: the list is to blame, not the card.
        return NoMatchingOffers(
            "providers",
            f"no rental offer from {', '.join(sorted(request.providers)) or 'no provider'}; "
            f"known providers: {', '.join(sorted(table.providers))}",
        )
    given = [
        _Filter(parameter, f"{parameter}={_shown(value)}", name, value, everything)
        for parameter, name, everything in FILTERS
        if (value := getattr(request, name)) != everything
    ]
    given.append(_Filter(_need_parameter(request), "the memory gate", "need", need, MemoryNeed()))
    nothing = {f.field: f.everything for f in given}

    def matching(fields: dict[str, Any]) -> int:
        asked = replace(request, **{k: v for k, v in fields.items() if k != "need"})
        held = table.holding(
            fields.get("need", need), max_instances=asked.assumptions.max_instances
        )
        return int(np.count_nonzero(table.candidates(asked) & held))

    found = (
        f"no rental offer with {_need_text(need)} matches the filters (providers, rent_gpu, "
        f"platforms, market, pricing, region; the memory gate removed {gated})"
    )
    if not matching(nothing):
        return NoMatchingOffers(given[-1].parameter, f"{found}: the catalog has no rental")
    without = [(f, n) for f in given if (n := matching({f.field: f.everything}))]
    if without:
        names = " and ".join(f.shown for f, _ in without)
        if len(without) == 1:
            counts = f"{names} leaves none; without it {without[0][1]:,} would match"
        else:
            counts = ", ".join(f"without {f.shown} {n:,}" for f, n in without)
            counts = f"{names} leave none together; {counts} would match"
        blamed = [
            (
                f.parameter,
                f"{f.shown} leaves none with the other filters; without it {n:,} would match",
            )
            for f, n in without
        ]
        return NoMatchingOffers(blamed[0][0], f"{found}: {counts}", blamed)
    alone = [f for f in given if not matching({**nothing, f.field: f.value})]
    if alone:
        names = " and ".join(f.shown for f in alone)
        verb = "matches" if len(alone) == 1 else "each match"
        blamed = [(f.parameter, f"{f.shown} matches no offer even alone") for f in alone]
        return NoMatchingOffers(blamed[0][0], f"{found}: {names} {verb} none even alone", blamed)
    names = " and ".join(f.shown for f in given)
    blamed = [(f.parameter, f"{f.shown} leaves none with the other filters") for f in given]
    detail = f"{found}: {names} leave none together, and dropping any one is not enough"
    return NoMatchingOffers(blamed[0][0], detail, blamed)


def _shown(value: Any) -> str:
    """A filter's value as a query string gives it."""
    return ",".join(sorted(value)) if isinstance(value, frozenset) else str(value)


def _need_parameter(request: QuoteRequest) -> str:
    if request.total_memory_gb is not None:
        return "total_memory"
    return "memory" if request.memory_gb is not None else "gpu"


def _need_text(need: MemoryNeed) -> str:
    parts = []
    if need.per_accelerator_gb is not None:
        parts.append(f"at least {need.per_accelerator_gb:g} GB per accelerator")
    if need.total_gb is not None:
        parts.append(f"at least {need.total_gb:g} GB in all its accelerators")
    return " and ".join(parts)


def _rent_options(
    table: OfferTable,
    request: QuoteRequest,
    index: np.ndarray,
    s_ref: float,
    model: BuyModel,
    limits: Limits,
    admitted: Callable[[], np.ndarray],
    top: int | None = None,
    key: Hashable | None = None,
    committed_next: tuple[int, ...] = (),
) -> tuple[list[RentOption], Costed]:
    """The cheapest offers for the work, cheapest first, at most ``top`` (the request's when
    not given), and every offer costed to find them; no options where none meets the
    limits. ``index`` is the shortlist, ``admitted`` the mask of every offer the question
    admits, or the row numbers of a few (one card's offers), asked for only when the
    shortlist is not enough."""
    top = top or request.top
    found = costed(table, request, index, s_ref, limits, admitted, top, key, committed_next)
    best = cheapest(found.index, found.job, top)
    return _options(table, request, model, found, best), found


def _options(
    table: OfferTable, request: QuoteRequest, model: BuyModel, found: Costed, best: np.ndarray
) -> list[RentOption]:
    """The costed offers at positions ``best``, as rent lines."""
    job = found.job.take(best)
    chosen = found.index[best]
    per_hour = crossing_rates(job, request.hours, table.term_hours[chosen])
    crossings = crossing_hours(model, per_hour)
    fabric_code = table.fabric_code[chosen]
    clusters = table.clusters
    efficiency = clusters.efficiency[fabric_code, np.maximum(job.instances, 1) - 1]
    # Python lists before the loop: indexing numpy arrays one scalar at a time is slow.
    columns = zip(
        chosen.tolist(),
        table.throughputs(chosen, request.speed_key),
        fabric_code.tolist(),
        efficiency.tolist(),
        job.hours.tolist(),
        job.instances.tolist(),
        job.total_usd.tolist(),
        job.rate.tolist(),
        crossings.tolist(),
        job.sessions.tolist(),
        job.paid_hours.tolist(),
        job.present_usd.tolist(),
        per_hour.tolist(),
        strict=True,
    )
    return [
        RentOption(
            stored=table.rows[row],
            hours=hours,
            instances=instances,
            fabric=clusters.names[fabric],
            cluster_efficiency=efficiency,
            total_usd=total,
            present_usd=present,
            usd_per_reference_hour=rate,
            breakeven_hours=None if math.isinf(crossing) else crossing,
            crossing_rate=crossing_rate,
            throughput=throughput,
            sessions=int(count),
            paid_hours=paid,
        )
        for (
            row,
            throughput,
            fabric,
            efficiency,
            hours,
            instances,
            total,
            rate,
            crossing,
            count,
            paid,
            present,
            crossing_rate,
        ) in columns
    ]


def _narrower(
    table: OfferTable, request: QuoteRequest, model: BuyModel, main: Costed, kept: np.ndarray
) -> RentOption | None:
    """The cheapest of a narrower question's offers from the main question's costing, where
    that proves it the cheapest (cheapest.Costed.cheapest_of); None: ask it on its own."""
    best = main.cheapest_of(kept)
    if best is None:
        return None
    (option,) = _options(table, request, model, main, np.array([best]))
    return option


def _missed(request: QuoteRequest, candidates: int, deadline: float) -> QuoteError:
    """No candidate finishes in time, on any cluster up to max_instances."""
    most = request.assumptions.max_instances
    return QuoteError(
        "deadline_days",
        f"none of the {candidates:,} rentals that hold the job finishes {request.hours:,.0f} h "
        f"of {request.reference}'s work within {deadline:,.0f} h "
        f"({deadline / HOURS_PER_DAY:,.1f} days) "
        f"on up to {most:,} instances of one offer (max_instances): allow more time "
        "(deadline_days=) or more instances",
        [
            ("deadline_days", "no rental finishes within it"),
            ("max_instances", "too few instances to finish in time"),
        ],
    )


def _left_out(
    table: OfferTable,
    request: QuoteRequest,
    need: MemoryNeed,
    s_ref: float,
    model: BuyModel,
    limits: Limits,
    seen: list[np.ndarray],
) -> LeftOut | None:
    """What the platform gate kept out: how many offers, and the cheapest of them."""
    asked = left_out_question(table, request)
    if asked is None or asked.platforms is None:
        return None
    found = _cheapest_of(table, asked, need, s_ref, model, limits, seen)
    return None if found is None else LeftOut(asked.platforms, offers=found[1], best=found[0])


def _cheapest_measured(
    table: OfferTable,
    request: QuoteRequest,
    need: MemoryNeed,
    s_ref: float,
    model: BuyModel,
    cheapest: RentOption,
    limits: Limits,
    main: Costed,
    seen: list[np.ndarray],
) -> RentOption | None:
    """When the cheapest offer's speed is an estimate, the cheapest one whose is not: an
    answer should not rest on an estimate without showing the measured alternative."""
    if not cheapest.throughput_estimated:
        return None
    measured = ~table.estimated[request.speed_key][main.index]
    found = _narrower(table, request, model, main, measured)
    if found is not None:
        return found
    found = _cheapest_of(table, measured_question(request), need, s_ref, model, limits, seen)
    return None if found is None else found[0]


def _same_card(
    table: OfferTable,
    request: QuoteRequest,
    need: MemoryNeed,
    shortlist: Shortlist,
    s_ref: float,
    model: BuyModel,
    limits: Limits,
    main: Costed,
    seen: list[np.ndarray],
) -> tuple[RentOption, int] | None:
    """The cheapest rental of the card the question would buy, and how many rent it."""
    if shortlist.same_card_candidates == 0:
        return None
    own = table.accelerator_code[main.index] == table.accelerators[request.reference]
    found = _narrower(table, request, model, main, own)
    if found is not None:
        return found, shortlist.same_card_candidates

    def admitted(rows: np.ndarray | None = None) -> np.ndarray:
        """One card's offers, few enough to cost at once: their row numbers; or which of
        ``rows`` are among them (a committed order read on, cheapest._with_committed)."""
        most = request.assumptions.max_instances
        own = table.comparable(request.reference, request, need, most)
        return own if rows is None else np.isin(rows, own)

    found, costing = _rent_options(
        table,
        request,
        shortlist.same_card,
        s_ref,
        model,
        limits,
        admitted,
        1,
        committed_next=shortlist.same_card_committed_next,
    )
    seen.append(costing.index)
    return (found[0], shortlist.same_card_candidates) if found else None


TERMS = tuple(TERM_HOURS)  # a term's position: its floor in Costed.term_floors
# each term's position and the code of its tier (its place in TIERS)
TERM_TIERS = {TERMS.index(t.pricing): code for code, t in enumerate(TIERS) if t.pricing in TERMS}


def _tiers(
    table: OfferTable,
    request: QuoteRequest,
    need: MemoryNeed,
    s_ref: float,
    model: BuyModel,
    limits: Limits,
    main: Costed,
    seen: list[np.ndarray],
) -> tuple[TierBest, ...]:
    """The best offer of each pricing tier for the same work and limits. A tier the question
    admits is read from its own costing; the others from one costing of the tiers it left
    out (the interruptible ones, by default). A term whose cheapest that costing does not
    prove has its two orders read on until it does (cheapest.read_terms); an hourly tier it
    does not prove is asked on its own."""
    asked = pricing_models(request.pricing)
    left = {tier.pricing for tier in TIERS} - asked
    other: Costed | None = None
    wider = request
    if left:
        pricing = next(
            name for name in ("interruptible", "dependable", "any") if left <= pricing_models(name)
        )
        wider = replace(request, pricing=pricing, top=1)
        shortlist = table.shortlist(wider, need, own=False)
        if shortlist.candidates:
            admitted = functools.partial(admitted_mask, table, wider, need)
            key = table.filter_key(wider, need)
            other = costed(
                table,
                wider,
                shortlist.index,
                s_ref,
                limits,
                admitted,
                1,
                key,
                shortlist.committed_next,
            )
            seen.append(other.index)
    best: list[RentOption | None] = [None] * len(TIERS)
    # the tiers each costing proves, rendered together: one pass over its chosen rows
    proven: dict[int, tuple[Costed, list[tuple[int, int]]]] = {}
    # a costing's committed orders read on for every term tier it leaves unproved, at once
    terms_read: dict[int, Costed] = {}

    def read_on(costing: Costed, asking: QuoteRequest, mine: bool) -> Costed:
        found = terms_read.get(id(costing))
        if found is None:
            unproved = tuple(
                term
                for term, code in TERM_TIERS.items()
                if (TERMS[term] in asked) == mine  # a term of this costing's question
                and table.terms_offered[term]
                and costing.cheapest_of(
                    table.tier_code[costing.index] == code, whole_orders=True, term=term
                )
                is None
            )
            admits = functools.partial(admitted_mask, table, asking, need)

            def bar_of(term: int, index: np.ndarray, presents: np.ndarray) -> float:
                return _tier_bar(table, TERM_TIERS[term], index, presents)

            found = read_terms(table, asking, costing, s_ref, limits, admits, bar_of, unproved)
            terms_read[id(costing)] = found
            seen.append(found.index)
        return found

    for code, tier in enumerate(TIERS):
        if not admits_tier(request, tier):
            continue  # the question admits none of the tier's markets
        mine = tier.pricing in asked
        costing, asking = (main, request) if mine else (other, wider)
        term = TERMS.index(tier.pricing) if tier.pricing in TERM_HOURS else None
        kept = None if costing is None else table.tier_code[costing.index] == code
        own = table.tier_orders[code]
        position = None
        if costing is not None and kept is not None:
            position = costing.cheapest_of(kept, whole_orders=True, term=term, orders=own)
            if position is not None and costing.floor is None and term is None:
                # the shortlist sufficed: its cheapest of each order is the order's first,
                # which in an order two tiers share may be the other's
                position = position if _firsts_costed(table, asking, need, costing, code) else None
            if position is None and term is not None:
                # read the term's orders on until its own cheapest is proved
                costing = read_on(costing, asking, mine)
                kept = table.tier_code[costing.index] == code
                position = costing.cheapest_of(kept, whole_orders=True, term=term)
        if position is not None:
            proven.setdefault(id(costing), (costing, []))[1].append((code, position))
        elif term is None and costing is not None and costing.stops and kept.any():
            # read its own orders on from where the walk stopped until it is proved
            admits = functools.partial(admitted_mask, table, asking, need)
            tier_bar = functools.partial(_tier_bar, table, code)
            costing = read_orders(table, asking, costing, s_ref, limits, admits, own, tier_bar)
            seen.append(costing.index)
            main, other = (costing, other) if mine else (main, costing)  # for the next tiers
            kept = table.tier_code[costing.index] == code
            position = costing.cheapest_of(kept, whole_orders=True, orders=own)
            if position is not None:
                proven.setdefault(id(costing), (costing, []))[1].append((code, position))
        if position is None and term is None and costing is not None and kept is not None:
            # a tier whose own orders were read to their ends, none of it feasible, has none
            ended = costing.order_floors and all(math.isinf(costing.order_floors[g]) for g in own)
            if ended and not (kept & costing.job.feasible).any():
                continue
        # none of a tier's offers costed: it has none where its orders hold its offers
        # alone (each order's first admitted was costed); an order shared with another
        # tier's (the banded one: a marketplace's banded offer behind a cloud's) says
        # nothing of it, so it is asked alone, as a tier whose cheapest was not proved is
        shared = any(len(table.order_tiers[g]) > 1 for g in own)
        if position is None and term is None and kept is not None and (kept.any() or shared):
            alone = tier_question(request, tier)
            single = _cheapest_of(table, alone, need, s_ref, model, limits, seen)
            best[code] = None if single is None else single[0]
    for costing, chosen in proven.values():
        positions = np.array([position for _, position in chosen])
        options = _options(table, request, model, costing, positions)
        for (code, _), option in zip(chosen, options, strict=True):
            best[code] = option
    return tuple(TierBest(tier, option) for tier, option in zip(TIERS, best, strict=True))


def _firsts_costed(
    table: OfferTable, asking: QuoteRequest, need: MemoryNeed, costing: Costed, code: int
) -> bool:
    """Whether tier ``code``'s first admitted offer in each hourly order it shares with
    another tier was costed. The shortlist takes each order's first offers whatever their
    tier: in the banded order (a cloud's spot offers with a published band and a
    marketplace's interruptible ones) it may hold the other tier's alone, and this tier's
    cheapest there was never costed."""
    admitted = None
    for g in table.tier_orders[code]:
        if len(table.order_tiers[g]) < 2:
            continue
        if admitted is None:
            admitted = admitted_mask(table, asking, need)
        order = table.by_cost[asking.speed_key][g]
        mine = order[admitted[order] & (table.tier_code[order] == code)]
        if mine.size and not (costing.index == mine[0]).any():
            return False
    return True


def _tier_bar(table: OfferTable, code: int, index: np.ndarray, presents: np.ndarray) -> float:
    """The cheapest present value of tier ``code`` among the offers costed (inf: none yet)."""
    own = presents[table.tier_code[index] == code]
    return float(own.min()) if own.size else np.inf


def _cheapest_of(
    table: OfferTable,
    asked: QuoteRequest,
    need: MemoryNeed,
    s_ref: float,
    model: BuyModel,
    limits: Limits,
    seen: list[np.ndarray],
) -> tuple[RentOption, int] | None:
    """The cheapest offer a variant of the question admits (asked with top=1: a shortlist of
    one), and how many it admits; None where none does, or none meets the limits."""
    shortlist = table.shortlist(asked, need, own=False)
    if shortlist.candidates == 0:
        return None
    found, _ = _asked(table, asked, need, shortlist, s_ref, model, limits, seen)
    return (found[0], shortlist.candidates) if found else None


def _asked(
    table: OfferTable,
    asked: QuoteRequest,
    need: MemoryNeed,
    shortlist: Shortlist,
    s_ref: float,
    model: BuyModel,
    limits: Limits,
    seen: list[np.ndarray],
) -> tuple[list[RentOption], Costed]:
    """A question's cheapest offers read from its shortlist on (its walk remembered by its
    filters), and the costing that found them, whose rows ``seen`` keeps."""
    admitted = functools.partial(admitted_mask, table, asked, need)
    found, costing = _rent_options(
        table,
        asked,
        shortlist.index,
        s_ref,
        model,
        limits,
        admitted,
        key=table.filter_key(asked, need),
        committed_next=shortlist.committed_next,
    )
    seen.append(costing.index)
    return found, costing
