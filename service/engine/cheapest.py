"""Which offers to cost for a question, so the cheapest are found without costing all.

The offer table's shortlist (the first offers of each cheapest-first order, per filter
set) holds the cheapest whatever the hours, as long as every one of them does the job on one
instance in time. Where one needs a cluster or misses the deadline, the orders are read on
together, a stretch at a time, until the next offers' floor (their cost on one instance with
no deadline, which the orders sort by) reaches the cheapest found. /breakeven and /rank both
choose their rentals here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from service.engine.costs import JobCost, Limits, Rentals
from service.engine.offer_table import MemoryNeed, OfferTable
from service.engine.request import QuoteRequest

COSTED_CHUNK = 256  # offers of each cheapest-first order costed first, once the shortlist fails


def cheapest(index: np.ndarray, job: JobCost, top: int) -> np.ndarray:
    """Positions of the ``top`` cheapest feasible offers, by total, then hours, then row: a
    partition first where many were costed, so only the ties at the cut are sorted."""
    total = job.total_usd
    within = np.arange(total.size)
    if total.size > 4 * top:
        cut = np.partition(total, top - 1)[top - 1]
        within = np.flatnonzero(total <= cut)
    order = within[np.lexsort((index[within], job.hours[within], total[within]))][:top]
    return order[job.feasible[order]]


def costed(
    table: OfferTable,
    request: QuoteRequest,
    shortlist: np.ndarray,
    s_ref: float,
    limits: Limits,
    admitted: Callable[[], np.ndarray],
    top: int,
) -> tuple[np.ndarray, JobCost]:
    """The offers costed for the work, and their costs: enough to hold the ``top`` cheapest.

    The shortlist holds the cheapest offers per hour of work on one instance, and a cluster
    or a miss only ever costs more than that (e(N) <= 1, interruptions grow with N). So
    while every shortlisted offer does the job on one instance in time, none outside it can
    be cheaper. Once one needs a cluster or misses the deadline that bound is gone, and each
    cheapest-first order is read on, a chunk at a time, until the next offer's cost on one
    instance with no deadline (a floor under its real cost: the orders sort by it) is no
    less than the ``top``-th cheapest found: a cheap slow offer that needs a cluster is
    costed, the long tail of dear ones is not."""
    job = job_on(table, request, shortlist, s_ref, limits)
    if np.all(job.instances == 1):
        return shortlist, job
    mask = admitted()
    if mask.dtype != bool:  # a few offers' rows: cost them all at once
        return mask, job_on(table, request, mask, s_ref, limits)
    orders = list(table.by_cost[request.workload])
    start, size = 0, COSTED_CHUNK
    rows: list[np.ndarray] = []
    costs: list[JobCost] = []
    bar = np.inf  # the top-th cheapest total so far
    while orders:
        # the next stretch of every order still read, costed together: one vector pass
        chunks = [order[start : start + size] for order in orders]
        chunks = [chunk[mask[chunk]] for chunk in chunks]
        start, size = start + size, size * 8
        ends = np.cumsum([chunk.size for chunk in chunks]) - 1  # each order's last offer
        batch = np.concatenate(chunks)
        if batch.size:
            cost = job_on(table, request, batch, s_ref, limits)
            rows.append(batch)
            costs.append(cost)
            found = np.concatenate([c.total_usd for c in costs])
            if found.size >= top:
                bar = float(np.partition(found, top - 1)[top - 1])
        # an order is done when read to its end, or when its next offers cost at least
        # the bar even on one instance with no deadline (the order sorts by that floor)
        orders = [
            order
            for order, chunk, end in zip(orders, chunks, ends, strict=True)
            if start < order.size and (chunk.size == 0 or cost.floor_usd[end] < bar)
        ]
    if not rows:
        return shortlist[:0], job_on(table, request, shortlist[:0], s_ref, limits)
    return np.concatenate(rows), JobCost.joined(costs)


def job_on(
    table: OfferTable, request: QuoteRequest, index: np.ndarray, s_ref: float, limits: Limits
) -> JobCost:
    rentals = Rentals.of(table, index, s_ref, request.workload)
    a = request.assumptions
    return rentals.job(request.hours, a, request.rent_factor, request.session_hours, limits)


def admitted_mask(table: OfferTable, request: QuoteRequest, need: MemoryNeed) -> np.ndarray:
    """Mask of every offer ``request`` admits, clusters counted."""
    held = table.holding(need, max_instances=request.assumptions.max_instances)
    return table.candidates(request) & held
