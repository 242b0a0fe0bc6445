"""A question asked again with other hours, priced from the offers its last asking costed.

A dashboard sweeps the hours of one question, and an internal tool asks the same filters for
each of its jobs. Each new value would read the cheapest-first orders again for every part of
the answer (the headline's rentals, each tier, the same card, the measured alternative, what
the platform gate left out): half a dozen readings and a dozen small costings, most of a new
question's time. Which offers can be cheapest hardly moves with the hours (an hourly offer's
cost is its rate times the work on a cluster its speed sizes; whole terms and restarts move
it in steps), so the offers the last asking costed (its :class:`Plan`) are costed again in
one pass, and each part's cheapest among them stands where it is proved: strictly under a
floor on every offer that part admits and the plan does not hold, the next such offer in each
cheapest-first order (cheapest.order_floors and term_floors, the bounds a walk stops on), so
no offer outside can undercut or tie it. One part not proved sends the question down the
full reading, which makes a new plan. Both settle ties alike: by the tie-break, among every
offer that ties (cheapest.cheapest).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from pricing.tiers import TIERS, Tier
from service.engine.cheapest import (
    Costed,
    NextOffers,
    NextTerms,
    admitted_mask,
    cheapest_first,
    job_of,
    next_offers,
    next_terms,
    orders_floors_at,
    row_floors,
    terms_floors_at,
)
from service.engine.costs import Limits, Rentals
from service.engine.offer_table import MemoryNeed, OfferTable
from service.engine.request import QuoteRequest

PLAN_ROWS = 8192  # the most offers (counted once per costing) a plan keeps
# Present values this close are a tie, which the tie-break (cheapest.cheapest) settles: a
# plan answers only where every offer outside it costs more than that, so that the plan holds
# every offer the tie-break weighs, as a full reading does (it reads on through ties)
TIE = 1e-9
RENT = "rent"  # the headline's rentals: the question's own `top`
SAME_CARD = "same_card"
MEASURED = "measured"
LEFT_OUT = "left_out"


# -- the parts of an answer, one definition for the full reading and the plan --------------------


def _markets(asked: frozenset[str] | None, tier: Tier) -> frozenset[str] | None:
    """The markets both the question and ``tier`` admit; None: every market."""
    if asked is None or tier.markets is None:
        return tier.markets if asked is None else asked
    return asked & tier.markets


def admits_tier(request: QuoteRequest, tier: Tier) -> bool:
    """Whether the question admits any of ``tier``'s markets."""
    markets = _markets(request.markets, tier)
    return markets is None or bool(markets)


def tier_question(request: QuoteRequest, tier: Tier) -> QuoteRequest:
    """The question of ``tier``'s best offer alone (of a tier the question admits)."""
    markets = _markets(request.markets, tier)
    return replace(request, pricing=str(tier.pricing), markets=markets, top=1)


def measured_question(request: QuoteRequest) -> QuoteRequest:
    """The cheapest rental whose speed is not an estimate."""
    return replace(request, measured_only=True, top=1)


def left_out_question(table: OfferTable, request: QuoteRequest) -> QuoteRequest | None:
    """The cheapest rental on the platforms the question did not ask for; None where it
    asked for every platform (or named none)."""
    if request.platforms is None:
        return None
    others = frozenset(table.platforms) - request.platforms
    return replace(request, platforms=others, top=1) if others else None


# -- the plan ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One part of an answer as the plan prices it: the plan's offers it admits, how many it
    names, and where in each cheapest-first order its first offer outside the plan stands
    (the order's length where there is none)."""

    admits: np.ndarray  # a mask over Plan.rows
    top: int
    stops: np.ndarray  # per hourly order (OfferTable.by_cost)
    reached: np.ndarray  # per committed order (OfferTable.committed_orders)


@dataclass
class Plan:
    """The offers a question's last full reading costed (each costing's rows, as it read
    them); sorted and its parts worked out the first time the question comes back, so a
    question asked once pays nothing for them."""

    costed: list[np.ndarray]
    ready: Ready | None = None  # swapped whole: a worker reads one consistent snapshot


@dataclass(frozen=True)
class Ready:
    """A plan as askings read it: its offers once each, every part's place in them, and
    their columns gathered once for all askings' costings. ``trimmed``: the offers no part
    needs (:func:`_trimmed`) are left out."""

    rows: np.ndarray
    parts: dict[str, Part | None]
    admits: np.ndarray  # the shown parts' masks over ``rows``, stacked in ``parts``' order
    rentals: Rentals
    nexts: NextOffers  # the shown parts' next offers outside the plan, per hourly order
    next_terms: NextTerms  # and per committed term
    admitted: np.ndarray  # the positions of the offers the question itself admits
    # the platforms the question left out and their candidates (None: it named none)
    left_out: tuple[frozenset[str], int] | None
    trimmed: bool
    # the plan a trimmed one was cut from: it proves hours far from the trim's (a sweep
    # that jumps), where the trimmed one does not
    whole: Ready | None = None


@dataclass(frozen=True)
class Planned:
    """The plan's offers costed for this asking, and each part's offers, cheapest first
    (positions into ``costed``; empty: none does the work); None for a part the question
    does not have. ``admitted``: the positions of the offers the question itself admits."""

    costed: Costed
    parts: dict[str, np.ndarray | None]
    admitted: np.ndarray
    left_out: tuple[frozenset[str], int] | None  # Ready.left_out


def plan_key(request: QuoteRequest) -> tuple[object, ...]:
    """What a plan is remembered by: the question but for its hours."""
    return tuple(getattr(request, name) for name in _BUT_HOURS)


_BUT_HOURS = tuple(f.name for f in fields(QuoteRequest) if f.name != "hours")


def remember(table: OfferTable, request: QuoteRequest, costed: list[np.ndarray]) -> None:
    """The offers a full reading of ``request`` costed, for the next asking of it; not
    where it read thousands (a deep walk by a deadline): costing them all again would cost
    as much as reading anew, and a table keeps many plans."""
    if sum(rows.size for rows in costed) <= PLAN_ROWS:
        table.plans.put(plan_key(request), Plan(costed))


def again(
    table: OfferTable, request: QuoteRequest, need: MemoryNeed, s_ref: float, limits: Limits
) -> Planned | None:
    """Each part of the answer from the plan of the last asking, where every one is proved;
    None where there is no plan or a part is not proved (the full reading answers)."""
    plan = table.plans.get(plan_key(request))
    if plan is None:
        return None
    ready = plan.ready
    if ready is None or ready.rentals.reference_speed != s_ref:
        rows = np.sort(np.concatenate(plan.costed))
        rows = rows[np.diff(rows, prepend=-1) != 0]  # each offer once
        plan.ready = ready = _ready(table, request, need, s_ref, rows, trimmed=False)
    proved = _proved(table, request, ready, s_ref, limits)
    if proved is None and ready.whole is not None:
        proved = _proved(table, request, ready.whole, s_ref, limits)
        return None if proved is None else proved.planned
    if proved is None:
        return None
    if not ready.trimmed:
        plan.ready = _trimmed(table, request, need, s_ref, limits, ready, proved.bars)
    return proved.planned


@dataclass(frozen=True)
class _Proof:
    planned: Planned
    bars: dict[str, float]  # per part, the present value of its dearest choice (inf: all of them)


def _proved(
    table: OfferTable, request: QuoteRequest, ready: Ready, s_ref: float, limits: Limits
) -> _Proof | None:
    """Every part's choice among the plan's offers, where each is proved: None otherwise."""
    rows, parts = ready.rows, ready.parts
    job = job_of(ready.rentals, request, limits)
    shown = {name: part for name, part in parts.items() if part is not None}
    floors = orders_floors_at(table, request, ready.nexts, limits).min(axis=1, initial=np.inf)
    terms = terms_floors_at(table, request, ready.next_terms, limits)
    floors = np.minimum(floors, terms.min(axis=1, initial=np.inf))
    found: dict[str, np.ndarray | None] = dict.fromkeys(parts)
    bars: dict[str, float] = {}
    order = cheapest_first(rows, job)  # every part's cheapest from one order of them all
    present = job.present_usd
    # per shown part, cheapest first, whether each offer is one it admits that does the work
    doing = ready.admits[:, order] & job.feasible[order]
    counts, firsts = doing.sum(axis=1).tolist(), order[doing.argmax(axis=1)]
    for i, ((name, part), floor) in enumerate(zip(shown.items(), floors.tolist(), strict=True)):
        if part.top == 1:  # most parts: their cheapest alone
            best = firsts[i : i + 1] if counts[i] else firsts[:0]
        else:
            best = order[np.flatnonzero(doing[i])[: part.top]]
        if best.size < part.top:
            if floor < np.inf:
                return None  # fewer do the work than it names: an offer outside may too
            bars[name] = np.inf
        else:
            bars[name] = float(present[best[-1]])
            if floor <= bars[name] * (1 + TIE):
                return None  # an offer outside the plan may cost as little, or less
        found[name] = best
    planned = Planned(Costed(rows, job, None), found, ready.admitted, ready.left_out)
    return _Proof(planned, bars)


# A trimmed plan keeps each offer whose floor is within this many times the dearest choice of
# a part that admits it: the parts still prove while the hours move that far
TRIM_MARGIN = 2.0


def _trimmed(
    table: OfferTable,
    request: QuoteRequest,
    need: MemoryNeed,
    s_ref: float,
    limits: Limits,
    ready: Ready,
    bars: dict[str, float],
) -> Ready:
    """``ready`` without the offers no part needs, as proved at this asking (each part's
    dearest choice: ``bars``); ``ready`` itself, marked trimmed, where the parts would not
    prove without them. A reading reads its orders in growing chunks and keeps all it read,
    most far above any part's choice (a term reading read 760 offers where the parts chose
    among a few dozen), and an asking costs every offer its plan holds. An offer is left
    out where its own floor (cheapest.row_floors) is over TRIM_MARGIN times the bar of every
    part that admits it: a floor then drawn at it stands over the bar at these hours, and
    near them. Far from them (a sweep that jumps) the plan it was cut from is asked next
    (Ready.whole), so a jump is not a full reading each time."""
    floors = row_floors(table, request, ready.rows, s_ref, limits)
    bar = np.zeros(ready.rows.size)  # per offer, the dearest bar of a part admitting it
    for name, part in ready.parts.items():
        if part is not None:
            np.maximum(bar, np.where(part.admits, bars[name], 0.0), out=bar)
    kept = floors <= TRIM_MARGIN * bar
    if kept.all():
        return replace(ready, trimmed=True)
    trimmed = _ready(table, request, need, s_ref, ready.rows[kept], trimmed=True)
    # a committed offer's floor takes its two orders' next offers, each by one bound: where
    # the offers left out hold one bound low and the other high, the parts may not prove
    if _proved(table, request, trimmed, s_ref, limits) is None:
        return replace(ready, trimmed=True)
    return replace(trimmed, whole=ready)


def _ready(
    table: OfferTable,
    request: QuoteRequest,
    need: MemoryNeed,
    s_ref: float,
    rows: np.ndarray,
    trimmed: bool,
) -> Ready:
    """A plan of ``rows`` as askings read it."""
    parts = _parts(table, request, need, rows)
    headline = parts[RENT]
    assert headline is not None  # every question has it
    shown = [part for part in parts.values() if part is not None]
    stops = np.array([part.stops for part in shown], dtype=np.intp)
    reached = np.array([part.reached for part in shown], dtype=np.intp)
    left = left_out_question(table, request)
    left_out = None
    if left is not None:  # left_out_question names the platforms
        others = left.platforms or frozenset()
        left_out = (others, table.shortlist(left, need, own=False).candidates)
    return Ready(
        rows,
        parts,
        np.array([part.admits for part in shown], dtype=bool).reshape(len(shown), rows.size),
        Rentals.of(table, rows, s_ref, request.speed_key),
        next_offers(table, request, stops, s_ref),
        next_terms(table, request, reached, s_ref),
        np.flatnonzero(headline.admits),
        left_out,
        trimmed,
    )


def _parts(
    table: OfferTable, request: QuoteRequest, need: MemoryNeed, rows: np.ndarray
) -> dict[str, Part | None]:
    """Each part's offers among ``rows`` and, per order, its first offer outside them."""
    held = np.zeros(len(table), dtype=bool)
    held[rows] = True
    main = admitted_mask(table, request, need)
    masks: dict[str, np.ndarray | None] = {RENT: main}
    for tier in TIERS:
        admits = admits_tier(request, tier)
        asked = tier_question(request, tier)
        masks[tier.name] = admitted_mask(table, asked, need) if admits else None
    same = table.accelerators.get(request.reference)
    masks[SAME_CARD] = None if same is None else main & (table.accelerator_code == same)
    masks[MEASURED] = admitted_mask(table, measured_question(request), need)
    left = left_out_question(table, request)
    masks[LEFT_OUT] = None if left is None else admitted_mask(table, left, need)
    hourly = table.by_cost[request.speed_key]
    committed = table.committed_orders[request.speed_key]
    parts: dict[str, Part | None] = {}
    for name, mask in masks.items():
        if mask is None:
            parts[name] = None
            continue
        outside = mask & ~held
        parts[name] = Part(
            admits=mask[rows],
            top=request.top if name == RENT else 1,
            stops=np.array([_first(order, outside) for order in hourly], dtype=np.intp),
            reached=np.array([_first(order, outside) for order in committed], dtype=np.intp),
        )
    return parts


def _first(order: np.ndarray, mask: np.ndarray) -> int:
    """The position of the first row of ``order`` that ``mask`` admits; its length if none."""
    at = np.flatnonzero(mask[order])
    return int(at[0]) if at.size else order.size
