"""Which offers to cost for a question, so the cheapest are found without costing all.

The offer table's shortlist (the first offers of each cheapest-first order, per filter
set) holds the cheapest whatever the hours, as long as every one of them does the job on one
instance in time. Where one needs a cluster or misses the deadline, the orders are read on
together, a stretch at a time, until the next offers' floor (their cost on one instance with
no deadline, which the orders sort by) reaches the cheapest found. /breakeven and /rank both
choose their rentals here.

Cheapest means in today's money (JobCost.present_usd, weighed by the limits' PayClock), the
figure a verdict compares; every bar and floor here is a present value. An hourly offer's is
its total times one share, the same for every hourly offer of a question, so the hourly
orders keep their order; a committed offer's floor is its cash floor times the least share
any of its term that finishes by the deadline can have (PayClock.term_floor_share).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace

import numpy as np

from pricing.offer import TERM_HOURS
from service.engine.clusters import DEADLINE_TOLERANCE
from service.engine.costs import JobCost, Limits, PayClock, Rentals
from service.engine.interruption import slowdown
from service.engine.offer_table import MemoryNeed, OfferTable
from service.engine.request import QuoteRequest

COSTED_CHUNK = 256  # offers of each cheapest-first order costed first, once the shortlist fails
FEW_ROWS = 4096  # one card's offers costed all at once, not walked, up to this many
# offers of each committed order costed first when a term is read on: a term's cheapest is
# usually among its first few (its orders sort by a term's cost and by the work's), and the
# offers a reading costs are those a question asked again costs each time (again.py)
TERMS_CHUNK = 32


def cheapest(
    index: np.ndarray, job: JobCost, top: int, within: np.ndarray | None = None
) -> np.ndarray:
    """Positions of the ``top`` cheapest feasible offers (of those at positions ``within``,
    else all), by present value, then hours, then the asker's country and a dated price
    (JobCost.tie: the same host's rate in three countries goes to the asker's, not to the
    first in the catalog), then row: a partition first where many were costed, so only the
    ties at the cut are sorted."""
    present = job.present_usd
    within = np.arange(present.size) if within is None else within
    if within.size > 4 * top:
        cut = np.partition(present[within], top - 1)[top - 1]
        within = within[present[within] <= cut]
    order = cheapest_first(index, job, within)[:top]
    return order[job.feasible[order]]


def cheapest_first(index: np.ndarray, job: JobCost, within: np.ndarray | None = None) -> np.ndarray:
    """The positions ``within`` (else all), cheapest first: by present value, then hours,
    then JobCost.tie, then row; the one order every choice of a cheapest reads."""
    if within is None:
        return np.lexsort((index, job.tie, job.hours, job.present_usd))
    keys = (index[within], job.tie[within], job.hours[within], job.present_usd[within])
    return within[np.lexsort(keys)]


@dataclass(frozen=True)
class Walk:
    """What reading the cheapest-first orders found for one filter set: the offers costed,
    and where each order stopped (its length where read to the end). The next question on
    the same filters costs these offers again and checks the stops' floors against its own
    bar, instead of reading the orders from the start: a sweep over hours costs O(offers
    costed), not a pass over the catalog."""

    rows: np.ndarray
    stops: tuple[int, ...]


@dataclass(frozen=True)
class Costed:
    """The offers costed for a question, their costs, and a floor under the present value of
    every offer the question admits that was not costed (inf: all were; None: unknown, the
    shortlist sufficed).
    A narrower question on the same filters (one card's offers, measured speeds only) is
    answered from these where its cheapest costed offer is at or under the floor."""

    index: np.ndarray
    job: JobCost
    floor: float | None
    # Per term (TERM_HOURS order), a floor under every offer of it the question admits that
    # was not costed (inf: all were); none until the committed orders are read. ``reached``:
    # where each committed order was read to (OfferTable.committed_orders).
    term_floors: tuple[float, ...] = ()
    reached: tuple[int, ...] = ()
    # Per hourly order (OfferTable.by_cost), where the walk stopped and a floor under its
    # offers not costed (inf: read to its end); ``floor`` is the least of them. Empty where
    # no walk read them.
    stops: tuple[int, ...] = ()
    order_floors: tuple[float, ...] = ()

    @property
    def committed_floor(self) -> float:
        """Under every committed offer the question admits that was not costed."""
        return min(self.term_floors) if self.term_floors else 0.0

    def cheapest_of(
        self,
        kept: np.ndarray,
        whole_orders: bool = False,
        term: int | None = None,
        orders: tuple[int, ...] | None = None,
    ) -> int | None:
        """Position of the cheapest feasible offer among the ``kept`` (a mask over
        ``index``), where nothing uncosted can undercut it; None otherwise.

        ``whole_orders``: the kept are whole cheapest-first orders (an hourly pricing tier)
        of what the question admits. Where the shortlist sufficed (each order's first offers
        cost what their order sorts them by), the cheapest of an order is then its first.
        ``term``: the kept are one term's committed offers (its position in TERM_HOURS),
        which that term's floor bounds. ``orders``: the hourly orders that hold every kept
        offer (an hourly tier's), whose floors alone then bound them: a cheap order of
        another tier read no further does not stand in the way."""
        if term is not None:
            floor = self.term_floors[term] if self.term_floors else 0.0
        elif self.floor is None:
            if not whole_orders:
                return None
            floor = np.inf
        elif whole_orders and orders is not None and self.order_floors:
            floor = min((self.order_floors[g] for g in orders), default=np.inf)
        else:
            floor = self.floor if whole_orders else min(self.floor, self.committed_floor)
        found = cheapest(self.index, self.job, 1, np.flatnonzero(kept))
        if found.size == 0:
            return None
        best = int(found[0])
        # strictly under: an offer not costed at the floor could tie it and win the tie-break
        return best if self.job.present_usd[best] < floor else None


def costed(
    table: OfferTable,
    request: QuoteRequest,
    shortlist: np.ndarray,
    s_ref: float,
    limits: Limits,
    admitted: Callable[[], np.ndarray],
    top: int,
    key: Hashable | None = None,
    committed_next: tuple[int, ...] = (),
) -> Costed:
    """The offers costed for the work, and their costs: enough to hold the ``top`` cheapest.

    The shortlist holds the cheapest offers per hour of work on one instance, and a cluster
    or a miss only ever costs more than that (e(N) <= 1, interruptions grow with N). So
    while every shortlisted offer does the job on one instance in time, none outside it can
    be cheaper, unless a session restarts (a restart is a step, not a share, so it can move
    a session-bound offer past one its order sorts after it). Once one needs a cluster, a
    second session or misses the deadline that bound is gone, and each
    cheapest-first order is read on, a chunk at a time, until the next offer's cost on one
    instance with no deadline (a floor under its real cost: the orders sort by it) is no
    less than the ``top``-th cheapest found: a cheap slow offer that needs a cluster is
    costed, the long tail of dear ones is not. Where ``key`` names the filter set, the walk
    is remembered (:class:`Walk`). Committed offers are then read on as far as their own
    bound needs (:func:`_with_committed`); ``committed_next`` says where the shortlist left
    their orders."""
    found = _hourly(table, request, shortlist, s_ref, limits, admitted, top, key)
    return _with_committed(table, request, found, committed_next, s_ref, limits, admitted, top)


def _hourly(
    table: OfferTable,
    request: QuoteRequest,
    shortlist: np.ndarray,
    s_ref: float,
    limits: Limits,
    admitted: Callable[[], np.ndarray],
    top: int,
    key: Hashable | None,
) -> Costed:
    """The shortlist costed, and the hourly orders read on where it does not hold."""
    # the shortlist's committed offers (the first of each committed order, read on in
    # _with_committed) bound nothing here: only the hourly ones bound the rest, and only
    # where each costs what its order sorted it by
    committed = table.term_hours[shortlist] > 0
    if _outruns(table, request, shortlist[~committed], s_ref, limits):
        # a cluster is certain: the walk reads the hourly ones again, so its first costing
        # takes the committed ones too (one pass fewer)
        shortlisted = None
    else:
        shortlisted = job_on(table, request, shortlist, s_ref, limits)
        # one instance each, and one session each: a restart (a step per session) moves a
        # session-bound offer past one its order sorts after it, as a cluster does
        alone = (shortlisted.instances == 1) & (shortlisted.sessions == 1)
        if np.all(alone | committed):
            return Costed(shortlist, shortlisted, None)
    if key is not None:
        walk = table.walks.get(key)
        if walk is not None:
            job = job_on(table, request, walk.rows, s_ref, limits)
            floors = _order_floors(table, request, walk.stops, s_ref, limits)
            floor = min(floors, default=np.inf)
            if job.present_usd.size >= top and floor > _bar(job.present_usd, top):
                return Costed(walk.rows, job, floor, stops=walk.stops, order_floors=floors)
    mask = admitted()
    if mask.dtype != bool:  # one card's offers' rows
        if mask.size <= FEW_ROWS:  # few: cost them all at once
            every = (np.inf,) * len(TERM_HOURS)
            return Costed(mask, job_on(table, request, mask, s_ref, limits), np.inf, every)
        rows, mask = mask, np.zeros(len(table), dtype=bool)
        mask[rows] = True  # many (one card in every region): walk them as any others
    orders = list(table.by_cost[request.speed_key])
    stops = [order.size for order in orders]
    reading = list(range(len(orders)))
    start, size = 0, COSTED_CHUNK
    # the shortlist's committed offers, as it costed them, or costed with the first stretch
    rows: list[np.ndarray] = []
    costs: list[JobCost] = []
    waiting = shortlist[committed]
    bar = np.inf  # the top-th cheapest so far
    if shortlisted is not None:
        rows, costs, waiting = [waiting], [shortlisted.take(committed)], waiting[:0]
        found = costs[0].present_usd
        bar = _bar(found, top) if found.size >= top else bar
    share = limits.clock.hourly_share(request.hours)  # every hourly offer's present per USD

    def _penalty(g: int, position: int) -> float:
        return _order_penalty(table, request, g, position, s_ref, limits)

    while reading:
        # the next stretch of every order still read, costed together: one vector pass
        chunks = [orders[g][start : start + size] for g in reading]
        chunks = [chunk[mask[chunk]] for chunk in chunks]
        start, size = start + size, size * 8
        # each order's last offer, past the committed offers still waiting to be costed
        ends = np.cumsum([chunk.size for chunk in chunks]) - 1 + waiting.size
        batch = np.concatenate([waiting, *chunks])
        waiting = waiting[:0]
        if batch.size:
            cost = job_on(table, request, batch, s_ref, limits)
            rows.append(batch)
            costs.append(cost)
            found = np.concatenate([c.present_usd for c in costs])
            if found.size >= top:
                bar = _bar(found, top)
        # an order is done when read to its end, or when its next offers cost at least
        # the bar even on one instance with no deadline (the order sorts by that floor),
        # times, by a deadline, the least cluster penalty the offers left in it can pay
        still = []
        for g, chunk, end in zip(reading, chunks, ends, strict=True):
            more = start < orders[g].size
            if more and chunk.size:
                floor = cost.floor_usd[end] * share
                # read on while an offer could tie the bar: the tie-break settles ties
                more = _short_of(floor, bar, start) and _short_of(
                    floor * _penalty(g, start), bar, start
                )
            if more:
                still.append(g)
            else:
                stops[g] = min(start, orders[g].size)
        reading = still
    floors = _order_floors(table, request, tuple(stops), s_ref, limits)
    index, job = np.concatenate(rows), JobCost.joined(costs)
    if key is not None:
        table.walks.put(key, Walk(index, tuple(stops)))
    floor = min(floors, default=np.inf)
    return Costed(index, job, floor, stops=tuple(stops), order_floors=floors)


class _Reading:
    """The offers a reading-on has costed, from what it started with: their rows, their
    costs, and the rows and present values joined for the next bar. One account for the
    hourly orders and the committed ones."""

    def __init__(self, found: Costed) -> None:
        self.rows, self.costs = [found.index], [found.job]
        self.index, self.presents = found.index, found.job.present_usd

    def cost(
        self,
        table: OfferTable,
        request: QuoteRequest,
        batch: np.ndarray,
        s_ref: float,
        limits: Limits,
    ) -> None:
        self.rows.append(batch)
        self.costs.append(job_on(table, request, batch, s_ref, limits))
        self.index = np.concatenate(self.rows)
        self.presents = np.concatenate([c.present_usd for c in self.costs])

    @property
    def grew(self) -> bool:
        return len(self.rows) > 1

    def job(self) -> JobCost:
        return JobCost.joined(self.costs) if self.grew else self.costs[0]


def read_orders(
    table: OfferTable,
    request: QuoteRequest,
    found: Costed,
    s_ref: float,
    limits: Limits,
    admitted: Callable[..., np.ndarray],
    orders: tuple[int, ...],
    bar_of: Callable[[np.ndarray, np.ndarray], float],
) -> Costed:
    """Read the hourly ``orders`` on from where ``found``'s walk stopped, costing the offers
    the question admits (``admitted(rows)``: a filter of those rows only), until each order's
    floor reaches ``bar_of`` the offers costed and their present values: an hourly tier's
    own cheapest, proved without a walk of its own from the orders' starts."""
    by_cost = table.by_cost[request.speed_key]
    stops, floors = list(found.stops), list(found.order_floors)
    read = _Reading(found)
    size = COSTED_CHUNK
    while True:
        bar = bar_of(read.index, read.presents)
        reading = [g for g in orders if _short_of(floors[g], bar, stops[g])]
        if not reading:
            break
        parts = []
        for g in reading:
            part = by_cost[g][stops[g] : stops[g] + size]
            stops[g] += part.size
            parts.append(part)
        batch = np.concatenate(parts)
        batch = batch[admitted(batch)] if batch.size else batch
        if batch.size:
            read.cost(table, request, batch, s_ref, limits)
        size *= 8
        floors = list(_order_floors(table, request, tuple(stops), s_ref, limits))
    if tuple(stops) == found.stops:
        return found
    moved = replace(
        found, floor=min(floors, default=np.inf), stops=tuple(stops), order_floors=tuple(floors)
    )
    # the stops moved on even where every offer read was one the question does not admit
    return replace(moved, index=read.index, job=read.job()) if read.grew else moved


def _with_committed(
    table: OfferTable,
    request: QuoteRequest,
    found: Costed,
    committed_next: tuple[int, ...],
    s_ref: float,
    limits: Limits,
    admitted: Callable[..., np.ndarray],
    top: int,
) -> Costed:
    """``found`` with the committed offers that could be among the ``top`` cheapest costed.

    A job on a committed offer costs at least one term on one instance, and at least the
    work at its rate on one instance; by a deadline D shorter than a term T, at least T / D
    times that (its N instances run b / N hours at the most, b the hours on one, each paid a
    whole term: N x T x p >= b / D x T x p). So an offer of a term read in neither of that
    term's orders costs at least the larger of their next keys (in today's money, that times
    the term's floor share), and the orders are read on, a chunk at a time, until that floor
    reaches the ``top``-th cheapest found. A short job stops at once (a year's term outweighs
    it); a long one reads the terms whose work is cheap."""
    if found.term_floors:
        return found  # every offer the question admits was costed
    reached = committed_next or (0,) * len(table.committed_orders[request.speed_key])
    floors = _term_floors(table, request, tuple(reached), s_ref, limits)
    started = Costed(
        found.index, found.job, found.floor, floors, tuple(reached), found.stops, found.order_floors
    )

    def bar_of(term: int, index: np.ndarray, presents: np.ndarray) -> float:
        return _bar(presents, top) if presents.size >= top else np.inf  # every term's

    return read_terms(table, request, started, s_ref, limits, admitted, bar_of)


def read_terms(
    table: OfferTable,
    request: QuoteRequest,
    found: Costed,
    s_ref: float,
    limits: Limits,
    admitted: Callable[..., np.ndarray],
    bar_of: Callable[[int, np.ndarray, np.ndarray], float],
    terms: tuple[int, ...] | None = None,
) -> Costed:
    """Read the committed orders of ``terms`` (all, by default) on from where ``found`` left
    them, costing the offers the question admits (``admitted(rows)``: a filter of those rows
    only, never a scan of the catalog), until each term's floor reaches ``bar_of`` that term
    (its position in TERM_HOURS), the offers costed and their present values so far: the
    ``top``-th cheapest, or a term's own cheapest, to prove it. Terms read together share
    each stretch's costing."""
    orders = table.committed_orders[request.speed_key]
    chosen = range(len(found.term_floors)) if terms is None else terms
    reached, floors = list(found.reached), list(found.term_floors)
    read = _Reading(found)
    size = TERMS_CHUNK
    costed: np.ndarray | None = None
    while True:
        reading = [
            t
            for t in chosen
            if _short_of(floors[t], bar_of(t, read.index, read.presents), reached[2 * t])
        ]
        if not reading:
            break
        if costed is None:
            costed = np.zeros(len(table), dtype=bool)
            costed[read.index] = True
        chunks = []
        for t in reading:
            for g in (2 * t, 2 * t + 1):
                part = orders[g][reached[g] : reached[g] + size]
                reached[g] += part.size
                part = part[~costed[part]]
                chunks.append(part[admitted(part)] if part.size else part)
        batch = np.unique(np.concatenate(chunks))  # an offer early in both orders: once
        if batch.size:
            costed[batch] = True
            read.cost(table, request, batch, s_ref, limits)
        size *= 8
        floors = list(_term_floors(table, request, tuple(reached), s_ref, limits))
    return Costed(
        read.index,
        read.job(),
        found.floor,
        tuple(floors),
        tuple(reached),
        found.stops,
        found.order_floors,
    )


def _term_floors(
    table: OfferTable,
    request: QuoteRequest,
    reached: tuple[int, ...],
    s_ref: float,
    limits: Limits,
) -> tuple[float, ...]:
    """Per term, a floor under the present value of every offer of it read in neither of
    its orders (term_floors, for one reading)."""
    found = term_floors(table, request, np.array([reached], dtype=np.intp), s_ref, limits)
    return tuple(found[0].tolist())


def term_floors(
    table: OfferTable,
    request: QuoteRequest,
    reached: np.ndarray,
    s_ref: float,
    limits: Limits,
) -> np.ndarray:
    """For each reading (a row of ``reached``: where each committed order was read to), per
    term, a floor under the present value of every offer of it read in neither of its
    orders: the next offer's term (by one term's cost), the next offer's work on one
    instance (by the work's cost) times a term over the deadline where that is more than 1,
    times the least share of today's money the term can have by the deadline; inf where an
    order is read to its end (every offer of the term was read)."""
    return terms_floors_at(table, request, next_terms(table, request, reached, s_ref), limits)


@dataclass(frozen=True)
class NextTerms:
    """Where readings stopped in the committed orders, as the offers next in them: per
    reading and term with both its orders open (the others read every offer of the term),
    the offer next by one term's cost and next by the work's, all terms in one array so
    that their floors are costed at once. Which offers are next does not move with the
    hours: a plan keeps them (again.py)."""

    readings: int
    reading: np.ndarray  # per entry, its reading
    term: np.ndarray  # and its term (position in TERM_HOURS)
    by_term: np.ndarray  # the offer next by the term's cost
    by_work: Rentals  # and next by the work's


def next_terms(
    table: OfferTable, request: QuoteRequest, reached: np.ndarray, s_ref: float
) -> NextTerms:
    flat = table.committed_flat[request.speed_key]
    by_term_cost, by_work_cost = reached[:, 0::2], reached[:, 1::2]  # per reading and term
    open_ = (by_term_cost < flat.sizes[0::2]) & (by_work_cost < flat.sizes[1::2])
    reading, term = np.nonzero(open_)  # a term none sells is read to its end: never open
    return NextTerms(
        reached.shape[0],
        reading,
        term,
        flat.at(2 * term, by_term_cost[reading, term]),
        Rentals.of(
            table, flat.at(2 * term + 1, by_work_cost[reading, term]), s_ref, request.speed_key
        ),
    )


def terms_floors_at(
    table: OfferTable, request: QuoteRequest, nexts: NextTerms, limits: Limits
) -> np.ndarray:
    """term_floors of the readings ``nexts`` stands for, at the question's hours."""
    floors = np.full((nexts.readings, len(TERM_HOURS)), np.inf)
    if nexts.term.size:
        term, work = _term_bounds(table, request, nexts.term, nexts.by_term, nexts.by_work, limits)
        floors[nexts.reading, nexts.term] = np.maximum(term, work)
    return floors


def _term_bounds(
    table: OfferTable,
    request: QuoteRequest,
    terms: np.ndarray,
    by_term: np.ndarray,
    by_work: Rentals,
    limits: Limits,
) -> tuple[np.ndarray, np.ndarray]:
    """The two bounds under a committed offer's present value (term_floors), in today's
    money, each entry of its term (``terms``: positions in TERM_HOURS): one term's cost, of
    the offers ``by_term``; the work's on one instance times a term over the deadline where
    that is more than 1, of the offers ``by_work``."""
    rf = request.rent_factor
    works = by_work.floor_usd(request.hours, request.assumptions.spot_overhead, rf)
    many, share = _term_factors(limits.deadline_hours, limits.clock)
    return table.term_cost[by_term] * rf * share[terms], works * many[terms] * share[terms]


@functools.lru_cache(maxsize=256)  # a sweep over hours asks the same deadline and rate
def _term_factors(deadline: float, clock: PayClock) -> tuple[np.ndarray, np.ndarray]:
    """Per term (TERM_HOURS order), the terms an instance pays over the deadline where
    more than one, and the least share of today's money one USD of the term can have."""
    many = [max(1.0, hours / deadline) if deadline > 0 else 1.0 for hours in TERM_HOURS.values()]
    share = [clock.term_floor_share(hours, deadline) for hours in TERM_HOURS.values()]
    many_of, share_of = np.array(many), np.array(share)
    many_of.flags.writeable = share_of.flags.writeable = False  # shared by every asking
    return many_of, share_of


def _hourly_bound(rentals: Rentals, request: QuoteRequest, limits: Limits) -> np.ndarray:
    """Each of ``rentals``' work on one instance with no deadline, in today's money: what
    no N, deadline or restart undercuts (an hourly order's floor before its penalty)."""
    a = request.assumptions
    costs = rentals.floor_usd(request.hours, a.spot_overhead, request.rent_factor)
    return costs * limits.clock.hourly_share(request.hours)


def row_floors(
    table: OfferTable, request: QuoteRequest, rows: np.ndarray, s_ref: float, limits: Limits
) -> np.ndarray:
    """Per offer of ``rows``, the floor a reading that stops on it would draw, before an
    hourly order's cluster penalty: its work on one instance, or a committed offer's greater
    bound with the offer next in both its orders (term_floors)."""
    floors = np.zeros(rows.size)
    terms = table.term_hours[rows]
    hourly = terms == 0
    rentals = Rentals.of(table, rows[hourly], s_ref, request.speed_key)
    floors[hourly] = _hourly_bound(rentals, request, limits)
    committed = ~hourly
    if committed.any():
        of = rows[committed]
        term, work = _term_bounds(
            table,
            request,
            table.term_code[of],
            of,
            Rentals.of(table, of, s_ref, request.speed_key),
            limits,
        )
        floors[committed] = np.maximum(term, work)
    return floors


def _outruns(
    table: OfferTable, request: QuoteRequest, hourly: np.ndarray, s_ref: float, limits: Limits
) -> bool:
    """Whether one of the ``hourly`` offers surely needs more than one instance to finish by
    the deadline (its work per instance-hour, interruptions counted, past what one does):
    then the shortlist cannot hold, and costing it first is a pass for nothing."""
    deadline = limits.deadline_hours
    if not hourly.size or not math.isfinite(deadline) or deadline <= 0:
        return False
    rentals = Rentals.of(table, hourly, s_ref, request.speed_key)
    return bool(rentals.outrun(request.hours, request.assumptions.spot_overhead, deadline).any())


def _short_of(floor: float, bar: float, read: int) -> bool:
    """Whether an order (or a term) whose unread offers cost at least ``floor``, read to
    position ``read``, must be read on to find the offers at or under ``bar``: at the bar
    too, since an offer that ties it may win the tie-break (cheapest.cheapest), within the
    first TIED_READ offers of the order (one price in thousands of regions is not read to
    its end for a tie: past that, the first by row); never once read to its end."""
    if floor < bar:
        return True
    return floor == bar and read < TIED_READ and math.isfinite(floor)


# how far into an order a tie with the bar is read on (_short_of)
TIED_READ = 4096


def _bar(presents: np.ndarray, top: int) -> float:
    """The top-th cheapest of ``presents``."""
    return float(np.partition(presents, top - 1)[top - 1])


def _order_floors(
    table: OfferTable,
    request: QuoteRequest,
    stops: tuple[int, ...],
    s_ref: float,
    limits: Limits,
) -> tuple[float, ...]:
    """Per hourly order, a floor under the present value of every offer of it a walk did
    not read (order_floors, for one walk)."""
    found = order_floors(table, request, np.array([stops], dtype=np.intp), s_ref, limits)
    return tuple(found[0].tolist())


def order_floors(
    table: OfferTable,
    request: QuoteRequest,
    stops: np.ndarray,
    s_ref: float,
    limits: Limits,
) -> np.ndarray:
    """For each walk (a row of ``stops``: where each hourly order was read to), per order, a
    floor under the present value of every offer of it the walk did not read: its first
    unread offer's cost on one instance with no deadline, which no later offer of that order
    undercuts, in today's money (inf where it was read to its end); by a deadline, times the
    least cluster penalty any unread offer of an order whose offers all pay the assumed
    overhead can get away with (:func:`_cluster_penalty`)."""
    return orders_floors_at(table, request, next_offers(table, request, stops, s_ref), limits)


@dataclass(frozen=True)
class NextOffers:
    """Where walks stopped in the hourly orders, as the offers next in them: each distinct
    (order, position) once, and each walk's per order (-1: read to its end). Which offers
    are next does not move with the hours: a plan keeps them (again.py)."""

    pairs: tuple[tuple[int, int], ...]  # (order, position) of each distinct next offer
    rentals: Rentals  # those offers
    at: np.ndarray  # per walk and order, its next offer's index into ``pairs``


def next_offers(
    table: OfferTable, request: QuoteRequest, stops: np.ndarray, s_ref: float
) -> NextOffers:
    key = request.speed_key
    orders = table.by_cost[key]
    sizes = np.array([order.size for order in orders], dtype=np.intp)
    walks, unread = np.nonzero(stops < sizes)
    found = list(zip(unread.tolist(), stops[walks, unread].tolist(), strict=True))
    pairs = tuple(dict.fromkeys(found))  # each once, in the order met
    index = {pair: i for i, pair in enumerate(pairs)}
    at = np.full(stops.shape, -1, dtype=np.intp)
    at[walks, unread] = [index[pair] for pair in found]
    rows = np.array([orders[g][p] for g, p in pairs], dtype=np.intp)
    return NextOffers(pairs, Rentals.of(table, rows, s_ref, key), at)


def orders_floors_at(
    table: OfferTable, request: QuoteRequest, nexts: NextOffers, limits: Limits
) -> np.ndarray:
    """order_floors of the walks ``nexts`` stands for, at the question's hours."""
    s_ref = nexts.rentals.reference_speed
    costs = _hourly_bound(nexts.rentals, request, limits)
    penalties = [_order_penalty(table, request, g, p, s_ref, limits) for g, p in nexts.pairs]
    per_pair = np.append(costs * np.array(penalties), np.inf)  # at -1: the last, inf
    return per_pair[nexts.at]


def _order_penalty(
    table: OfferTable,
    request: QuoteRequest,
    g: int,
    position: int,
    s_ref: float,
    limits: Limits,
) -> float:
    """The least cluster penalty any offer of order ``g`` from ``position`` on pays by the
    deadline: 1 unless the order's offers all pay the assumed overhead (banded ones pay
    their own, on demand none)."""
    overhead = request.assumptions.spot_overhead
    if not table.order_assumed[g] or overhead <= 0 or not math.isfinite(limits.deadline_hours):
        return 1.0
    fastest = float(table.fastest_after[request.speed_key][g][position])
    return _cluster_penalty(request.hours * s_ref / fastest, overhead, limits)


def _cluster_penalty(busy: float, overhead: float, limits: Limits) -> float:
    """At least how much more than its one-instance cost, ``busy`` hours on one instance at
    the least, an offer pays to finish by the deadline: N instances with no scaling loss
    do N (1 - (N - 1) o) / (1 + o) instances' work an hour (interruption.slowdown), so the
    fewest that can keep up cost 1 / (1 - (N - 1) o) times more; inf where none can."""
    deadline = limits.deadline_hours
    if not math.isfinite(deadline) or deadline <= 0:
        return 1.0
    # twice the deadline's tolerance: rounding here must err towards a lower floor
    needed = busy / deadline * (1 - 2 * DEADLINE_TOLERANCE)
    if needed * (1.0 + overhead) <= 1.0:
        return 1.0  # one instance keeps up
    # N (1 + o - N o) >= needed (1 + o): o N^2 - (1 + o) N + needed (1 + o) <= 0
    a, b = overhead, 1.0 + overhead
    disc = b * b - 4.0 * a * needed * b
    if disc < 0:
        return np.inf  # no N keeps up
    root = math.sqrt(disc)
    # the smaller root as needed b / (a x the larger): no cancellation for a small o
    low, high = 2.0 * needed * b / (b + root), (b + root) / (2.0 * a)
    n = max(1, math.ceil(low - 1e-9))
    if n > high + 1e-9 or n > limits.max_instances:
        return np.inf
    return slowdown(overhead, n) / (1.0 + overhead)


def job_on(
    table: OfferTable, request: QuoteRequest, index: np.ndarray, s_ref: float, limits: Limits
) -> JobCost:
    return job_of(Rentals.of(table, index, s_ref, request.speed_key), request, limits)


def job_of(rentals: Rentals, request: QuoteRequest, limits: Limits) -> JobCost:
    """The question's work on ``rentals``, within ``limits``."""
    a = request.assumptions
    return rentals.job(request.hours, a, request.rent_factor, request.session_hours, limits)


def admitted_mask(
    table: OfferTable, request: QuoteRequest, need: MemoryNeed, rows: np.ndarray | None = None
) -> np.ndarray:
    """Mask of every offer ``request`` admits, clusters counted: over the catalog, or over
    ``rows`` only."""
    held = table.holding(need, rows, max_instances=request.assumptions.max_instances)
    return table.candidates(request, rows) & held
