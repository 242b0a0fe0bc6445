"""The break-even engine (design section 3): pure arithmetic, no Flask, no database.

All work is measured in hours on the reference card the user names. For each rental offer
with accelerator a, count n and hourly price p, on workload class k:

    hours_o = hours * S(ref, k) / (n * eta(a, n, k) * S(a, k))    (x (1 + spot_overhead) if
    cost_o  = hours_o * p                                           the offer is interruptible)

Buying n reference cards costs capex - resale(hours) + energy(hours). Offers come from a
columnar :class:`OfferTable`, so costing them is vector arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from hardware import Hardware, Throughput, Workload
from pricing.offer import StoredOffer
from service.engine.assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from service.engine.offer_table import MemoryNeed, OfferTable, Shortlist

HOURS_PER_YEAR = 8760.0
# The filters that narrow the rentals, as (parameter, QuoteRequest field, the value that
# filters nothing), in the order the query lists them: a question they leave without an
# offer is told which of them did it.
FILTERS = (
    ("providers", "providers", None),
    ("platforms", "platforms", None),
    ("market", "markets", None),
    ("pricing", "pricing", "any"),
    ("region", "region", None),
)
NEWTON_STEPS = 50  # a cap; convergence is quadratic, 5-8 steps in practice
NEWTON_TOLERANCE_HOURS = 1e-9  # well below a millionth of an hour


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
class QuoteRequest:
    reference: str  # canonical id of the card that would be bought
    hours: float  # workload size in hours on one reference card
    workload: Workload = Workload.TRANSFORMER
    gpus: int = 1
    memory_gb: float | None = None  # per accelerator; None = the reference card's memory
    total_memory_gb: float | None = None  # a sharded job's total; None = not sharded
    price_usd: float | None = None  # None = the card's sourced purchase price
    price_basis: str | None = None  # new, used or launch; None = new, else used, else launch
    watts: float | None = None  # None = the card's board power
    providers: frozenset[str] | None = None
    pricing: str = "any"  # on_demand, spot or any
    region: str | None = None  # prefix: "us" matches us-east-1 and us-central1
    top: int = 10
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS
    reference_speed: float | None = None  # measured on the user's own card; None = published
    platforms: frozenset[str] | None = None  # software platforms that compete; None = all
    measured_only: bool = False  # only offers whose throughput is not estimated
    session_hours: float | None = None  # longest session of session-bound offers (Colab)
    markets: frozenset[str] | None = None  # market tiers that compete (pricing.offer.MARKETS)
    rent_factor: float = 1.0  # every rental price times this: a what-if (1.2 = 20 % dearer)


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
    price_basis: str  # new, used, launch or given (price=)
    price_source: str
    host: str  # the sized host ("workstation", "2 x server") or "as given"
    host_source: str  # where its price and draw come from
    resale_basis: str  # where the resale share and its yearly loss come from
    watts: float


@dataclass(frozen=True)
class BuyModel:
    """Buying as a function of workload H (reference-card hours), for charts and crossings:
    cost(H) = capex - resale_start * exp(-resale_decay * H) + energy_per_hour * H."""

    capex_usd: float
    energy_usd_per_hour: float
    resale_start_usd: float
    resale_decay_per_hour: float

    def resale(self, hours: float) -> float:
        return self.resale_start_usd * math.exp(-self.resale_decay_per_hour * hours)

    def cost(self, hours: float) -> float:
        return self.capex_usd - self.resale(hours) + self.energy_usd_per_hour * hours


def buy_model(price_usd: float, watts: float, cards: int, speed: float, a: Assumptions) -> BuyModel:
    """What owning ``cards`` cards costs per hour of work, in hours of the reference card.

    ``speed`` is how many reference-card hours of work the cards do per busy hour (n x eta
    for n reference cards; S(card) / S(ref) for another card). Shared by quote() and /rank.
    """
    if a.host_cost is None or a.host_watts is None or a.resale is None or a.depreciation is None:
        raise ValueError("buy_model needs the defaults from data filled: buy_assumptions()")
    energy_per_busy_hour = (cards * watts * a.load + a.host_watts) / 1000 * a.pue
    energy_per_busy_hour *= a.electricity
    # resale(H) = resale_start * exp(-decay * H): value lost with calendar time, which is
    # busy time (H / speed) over utilization
    decay = -math.log1p(-a.depreciation) / (speed * a.utilization * HOURS_PER_YEAR)
    return BuyModel(
        capex_usd=cards * price_usd + a.host_cost,
        energy_usd_per_hour=energy_per_busy_hour / speed,
        resale_start_usd=cards * price_usd * a.resale,
        resale_decay_per_hour=decay,
    )


@dataclass(frozen=True)
class RentOption:
    stored: StoredOffer
    hours: float  # hours the offer runs to do the work
    total_usd: float
    usd_per_reference_hour: float  # total over the work, in hours of the reference card
    breakeven_hours: float | None  # reference-card hours where buying gets cheaper
    throughput: Throughput  # how the accelerator's speed is known
    sessions: int  # runtimes the work needs: 1 unless the offer is session-bound

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


@dataclass(frozen=True)
class Priced:
    """What a quote priced, kept so a what-if (service/engine/sensitivity.py) can price the
    same question again with one input moved, without another scan of the catalog."""

    price_usd: float  # per card
    watts: float
    local_speed: float  # reference-card hours the bought cards do per busy hour
    reference_speed: float  # S(ref, k) the rentals' hours were counted in
    shortlist: np.ndarray  # the offers that can be cheapest


@dataclass(frozen=True)
class BuyBasis:
    """The buy side's defaults that come from data, and where from: the answer states them."""

    host: str
    host_source: str
    resale: str


def buy_assumptions(
    a: Assumptions, hardware: Hardware, reference: str, cards: int
) -> tuple[Assumptions, BuyBasis]:
    """``a`` with every unset buy-side assumption filled from the hardware data: the host
    sized for ``cards`` (hosts.csv) and the used-price curve (resale.csv)."""
    filled: dict[str, float] = {}
    host, host_source = "as given", "host_cost= and host_watts="
    if a.host_cost is None or a.host_watts is None:
        choice = hardware.host(cards)
        h = choice.host
        host = h.name if choice.count == 1 else f"{choice.count} x {h.name}"
        host_source = (
            f"{host} for {cards} card(s) (hosts.csv): price {h.price_usd:g} USD each "
            f"({h.price_kind}, {h.price_as_of}: {h.price_source}); draw {h.watts:g} W each "
            f"({h.watts_kind}: {h.watts_source})"
        )
        if a.host_cost is None:
            filled["host_cost"] = choice.price_usd
        if a.host_watts is None:
            filled["host_watts"] = choice.watts
    curve = hardware.resale
    if a.depreciation is None:
        filled["depreciation"] = curve.yearly_loss
    card = hardware.cards.get(reference)
    if a.resale is not None:
        resale = "resale= as given"
    elif card is not None and card.consumer:
        filled["resale"] = 1.0
        resale = (
            f"used-price curve (hardware/data/resale.csv): sold for the price paid less "
            f"{curve.yearly_loss:.1%} a year of ownership; {curve.source}"
        )
    else:
        filled["resale"] = 0.0
        resale = (
            "no sourced used prices for datacenter cards: resale 0 (pass resale= and "
            "depreciation= to model one)"
        )
    if a.depreciation is not None and a.resale is not None:
        resale = "resale= and depreciation= as given"
    return replace(a, **filled), BuyBasis(host, host_source, resale)


def quote(table: OfferTable, hardware: Hardware, request: QuoteRequest) -> Quote:
    a, basis = buy_assumptions(request.assumptions, hardware, request.reference, request.gpus)
    ref = hardware.registry[request.reference]
    k = request.workload
    n = request.gpus
    price, price_basis, price_source = _purchase_price(hardware, request)
    watts = request.watts if request.watts is not None else ref.board_power_w
    if watts is None:
        raise QuoteError("watts", f"no sourced board power for {ref.id}; pass watts=W")
    need = memory_need(request, ref.device_memory_gb)
    held = request.gpus * ref.memory_gb
    if request.total_memory_gb is not None and held < request.total_memory_gb:
        raise QuoteError(
            "total_memory",
            f"{request.gpus} x {ref.id} hold {held:g} GB, less than total_memory="
            f"{request.total_memory_gb:g}: buy more cards (gpus=) or shard less",
        )

    # Buy: n local reference cards; busy hours shrink with n, less the scaling loss.
    s_ref = request.reference_speed or hardware.speed(ref.id, k).relative
    local_speed = n * hardware.efficiency(ref.id, k, n)
    busy_hours = request.hours / local_speed
    model = buy_model(price, watts, n, local_speed, a)
    resale = model.resale(request.hours)
    energy = model.energy_usd_per_hour * request.hours
    buy_total = model.cost(request.hours)
    buy = BuyCost(
        gpu=ref.id,
        gpus=n,
        purchase_usd=n * price,
        host_usd=a.host_cost,
        energy_usd=energy,
        resale_usd=resale,
        total_usd=buy_total,
        hours=busy_hours,
        price_basis=price_basis,
        price_source=price_source,
        host=basis.host,
        host_source=basis.host_source,
        resale_basis=basis.resale,
        watts=watts,
    )

    # Rent: the shortlist of possible cheapest offers, costed and merged.
    shortlist = table.shortlist(request, need)
    if shortlist.candidates == 0:
        raise _no_offers(table, request, need, shortlist.gated)
    rent = _rent_options(table, request, shortlist.index, s_ref, model)
    cheapest = rent[0]
    verdict = "buy" if buy_total < cheapest.total_usd else "rent"
    days = None
    if cheapest.breakeven_hours is not None:
        days = cheapest.breakeven_hours / local_speed / (24 * a.utilization)
    return Quote(
        request=request,
        assumptions=a,
        memory_gb=need.per_accelerator_gb,
        buy=buy,
        rent=rent,
        candidates=shortlist.candidates,
        verdict=verdict,
        savings_usd=abs(cheapest.total_usd - buy_total),
        breakeven_hours=cheapest.breakeven_hours,
        breakeven_days=days,
        # busy hours in the life: calendar hours x utilization; work: busy hours x n x eta
        life_hours=a.lifetime_years * HOURS_PER_YEAR * a.utilization * local_speed,
        buy_model=model,
        memory_gate=MemoryGate(need, shortlist.gated),
        left_out=_left_out(table, request, need, s_ref, model),
        cheapest_measured=_cheapest_measured(table, request, need, s_ref, model, cheapest),
        same_card=_same_card(table, request, shortlist, s_ref, model),
        priced=Priced(price, watts, local_speed, s_ref, shortlist.index),
    )


def _purchase_price(hardware: Hardware, request: QuoteRequest) -> tuple[float, str, str]:
    """(USD per card, basis, where from): price= wins; else the card's price of the basis
    asked for, or of its default basis (new where sold new, else used, else launch)."""
    if request.price_usd is not None:
        return request.price_usd, "given", "price= parameter"
    card = hardware.cards.get(request.reference)
    if card is None:
        raise QuoteError(
            "price", f"no sourced purchase price for {request.reference}; pass price=USD"
        )
    found = card.price(request.price_basis)
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
    return found.usd, found.basis, source


def memory_need(request: QuoteRequest, device_memory_gb: float) -> MemoryNeed:
    """The memory rule of a question: a sharded job (total_memory) needs the total only,
    unless memory= is asked too; otherwise each device holds what the bought card does."""
    per_accelerator = request.memory_gb
    if per_accelerator is None and request.total_memory_gb is None:
        per_accelerator = device_memory_gb
    return MemoryNeed(per_accelerator, request.total_memory_gb)


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
        held = table.holding(fields.get("need", need))
        return int(np.count_nonzero(table.candidates(asked) & held))

    found = (
        f"no rental offer with {_need_text(need)} matches the filters (providers, platforms, "
        f"market, pricing, region; the memory gate removed {gated})"
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
) -> list[RentOption]:
    """The shortlisted offers costed for the work, cheapest first, at most ``top``."""
    k = request.workload
    offer_hours, sessions, totals = rent_costs(table, request, index, s_ref)
    best = np.lexsort((index, offer_hours, totals))[: request.top]

    rent_per_ref_hour = totals[best] / request.hours
    energy_per_ref_hour = model.energy_usd_per_hour
    crossings = breakeven_hours(
        model.capex_usd,
        model.resale_start_usd,
        model.resale_decay_per_hour,
        energy_per_ref_hour,
        rent_per_ref_hour,
    )
    chosen = index[best]
    # Python lists before the loop: indexing numpy arrays one scalar at a time is slow.
    columns = zip(
        chosen.tolist(),
        offer_hours[best].tolist(),
        totals[best].tolist(),
        rent_per_ref_hour.tolist(),
        crossings.tolist(),
        sessions[best].tolist(),
        strict=True,
    )
    rent = [
        RentOption(
            stored=table.rows[row],
            hours=hours,
            total_usd=total,
            usd_per_reference_hour=per_ref_hour,
            breakeven_hours=None if math.isinf(crossing) else crossing,
            throughput=table.throughput(row, k),
            sessions=int(count),
        )
        for row, hours, total, per_ref_hour, crossing, count in columns
    ]
    return rent


def rent_costs(
    table: OfferTable, request: QuoteRequest, index: np.ndarray, s_ref: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hours each offer runs, its sessions, its total USD) for the request's work."""
    a = request.assumptions
    overhead = table.overhead(index, a.spot_overhead)
    work_hours = request.hours * s_ref / table.speed[request.workload][index] * overhead
    sessions = np.ones_like(work_hours)
    if request.session_hours is not None:
        # Each session past the first restarts the job: restart_hours of paid time redone.
        bound = table.session_bound[index]
        sessions[bound] = sessions_needed(work_hours[bound], request.session_hours)
    offer_hours = work_hours + (sessions - 1) * a.restart_hours
    return offer_hours, sessions, offer_hours * table.price[index] * request.rent_factor


def sessions_needed(work_hours: np.ndarray, session_hours: float) -> np.ndarray:
    """Runtimes a session-bound offer (Colab) takes to do ``work_hours``: one at the least.
    A job that rounded to 0 h took ceil(0) = 0 sessions, so -1 restarts: hours -0.5 and a
    negative total, cheaper than any real offer."""
    return np.maximum(np.ceil(work_hours / session_hours), 1.0)


def _left_out(
    table: OfferTable, request: QuoteRequest, need: MemoryNeed, s_ref: float, model: BuyModel
) -> LeftOut | None:
    """What the platform gate kept out: how many offers, and the cheapest of them."""
    if request.platforms is None:
        return None
    others = frozenset(table.platforms) - request.platforms
    if not others:
        return None
    found = _cheapest_of(table, replace(request, platforms=others), need, s_ref, model)
    return None if found is None else LeftOut(platforms=others, offers=found[1], best=found[0])


def _cheapest_measured(
    table: OfferTable,
    request: QuoteRequest,
    need: MemoryNeed,
    s_ref: float,
    model: BuyModel,
    cheapest: RentOption,
) -> RentOption | None:
    """When the cheapest offer's speed is an estimate, the cheapest one whose is not: an
    answer should not rest on an estimate without showing the measured alternative."""
    if not cheapest.throughput_estimated:
        return None
    found = _cheapest_of(table, replace(request, measured_only=True), need, s_ref, model)
    return None if found is None else found[0]


def _same_card(
    table: OfferTable, request: QuoteRequest, shortlist: Shortlist, s_ref: float, model: BuyModel
) -> tuple[RentOption, int] | None:
    """The cheapest rental of the card the question would buy, and how many rent it."""
    if shortlist.same_card_candidates == 0:
        return None
    asked = replace(request, top=1)
    (best,) = _rent_options(table, asked, shortlist.same_card, s_ref, model)
    return best, shortlist.same_card_candidates


def _cheapest_of(
    table: OfferTable, asked: QuoteRequest, need: MemoryNeed, s_ref: float, model: BuyModel
) -> tuple[RentOption, int] | None:
    """The cheapest offer a variant of the question admits, and how many it admits."""
    asked = replace(asked, top=1)
    shortlist = table.shortlist(asked, need)
    if shortlist.candidates == 0:
        return None
    (best,) = _rent_options(table, asked, shortlist.index, s_ref, model)
    return best, shortlist.candidates


def breakeven_hours(
    capex: float,
    resale_start: float,
    decay: float,
    energy_per_hour: float,
    rent_per_hour: np.ndarray,
) -> np.ndarray:
    """Workload H at which buying stops being dearer than renting; inf where it never does.

    Buying costs capex - resale_start * exp(-decay * H) + energy_per_hour * H, renting
    rent_per_hour * H. Their difference f(H) is convex with f(0) = resale_start - capex <= 0,
    so there is one crossing, inside [0, capex / margin]: closed form without resale,
    Newton's method from capex / margin with it.
    """
    margin = np.asarray(rent_per_hour, dtype=np.float64) - energy_per_hour
    never = margin <= 0
    safe = np.where(never, 1.0, margin)
    if resale_start >= capex:
        result = np.zeros_like(safe)
    elif resale_start == 0 or decay == 0:
        result = (capex - resale_start) / safe
    else:
        # Newton from the right: f(capex / margin) = resale left > 0, and f is convex, so
        # each step lands between the root and the last point; a few steps reach the
        # tolerance (bisection took 100 steps, a millisecond per quote once resale is on).
        result = capex / safe
        for _ in range(NEWTON_STEPS):
            decayed = resale_start * np.exp(-decay * result)
            step = (safe * result - capex + decayed) / (safe - decay * decayed)
            result = result - step
            if np.all(np.abs(step) <= NEWTON_TOLERANCE_HOURS):
                break
    return np.where(never, np.inf, result)
