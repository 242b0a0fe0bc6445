"""History: the prices listings held since a moment, each once with the span it held.

A page reads the listings in id order, a window at a time, and only those with a span
ending after ``since`` (listed now, or changed since), so it costs what it returns; a scan
budget caps what one page reads, full or not, and its cursor says where the next goes on.
A listing's spans come from its changes, packed and not, and the times of their runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, func, select, true

from pricing.listed import listed_offer
from pricing.offer import PriceSpan
from pricing.packs import Pack
from pricing.store.connect import LOOKUP_CHUNK
from pricing.store.read import pause
from pricing.store.records import _LISTING_COLUMNS, _aware
from pricing.store.tables import listings, price_changes, price_packs, runs

# ten sources, a few MB.
RUN_TIMES_KEPT = 150_000
# Listing ids a history page reads in its first window; doubled while the page is not full.
HISTORY_FIRST_WINDOW = 64
# Listing ids one history page reads at most, full or not (about 0.1-0.3 s): a deep or
# sparse page answers with what it found and a cursor, never by walking the whole store.
HISTORY_SCAN_LISTINGS = 100_000
# Spans one history page looks at at most, skipped (offset) or kept: above the largest page.
HISTORY_SCAN_SPANS = 50_000

# Where a history page goes on: (listing id, run id) of the last span it gave, or of the
# listing before the first it has not read (run -1).
HistoryCursor = tuple[int, int]


@dataclass(frozen=True, slots=True)
class HistoryPage:
    spans: list[PriceSpan]
    resume: HistoryCursor | None  # None: no span after these
    skip: int  # of the offset asked, what is still to skip on the next page


# A price span before it is made an offer: (listing row, run id, price, its run's start and
# end, until); a page builds offers for its own spans only.
_Span = tuple[Row[Any], int, float, datetime, datetime, datetime | None]


def _chosen(
    accelerator: str | None, provider: str | None, region_prefix: str | None, pricing: str | None
) -> list[Any]:
    """The listings a question asks about, as conditions on their columns."""
    chosen: list[Any] = []
    if accelerator:
        chosen.append(listings.c.accelerator == accelerator)
    if provider:
        chosen.append(listings.c.provider == provider)
    if region_prefix:
        chosen.append(listings.c.region.startswith(region_prefix, autoescape=True))
    if pricing:
        chosen.append(listings.c.pricing == pricing)
    return chosen


def _page(
    conn: Connection,
    since: datetime,
    chosen: list[Any],
    limit: int,
    offset: int,
    after: HistoryCursor | None,
    times_of: Callable[[Connection, set[int]], dict[int, tuple[datetime, datetime]]],
) -> HistoryPage:
    """One page of the ``chosen`` listings' spans that end after ``since`` (as
    Store.history says), read in one snapshot, ``conn``."""
    start_listing, start_run = after if after is not None else (0, -1)
    spans: list[_Span] = []
    skip = offset
    first_after = _first_run_after(conn, since)
    moved = (
        select(price_changes.c.listing_id)
        .where(
            price_changes.c.listing_id == listings.c.id,
            price_changes.c.run_id >= first_after,
        )
        .exists()
    ) | (
        select(price_packs.c.listing_id)
        .where(
            price_packs.c.listing_id == listings.c.id,
            price_packs.c.last_run >= first_after,
        )
        .exists()
    )
    # since before every stored run: every listing with a change is relevant, and
    # the listings without one yield no span, so no listing need be looked up twice
    relevant = true() if first_after <= 0 else listings.c.usd_per_hour.is_not(None) | moved
    query = select(listings.c.id, *_LISTING_COLUMNS).where(*chosen, relevant)
    query = query.order_by(listings.c.id)
    last_id = conn.execute(select(func.max(listings.c.id))).scalar() or 0
    after_key = (start_listing, start_run)
    lower, window = start_listing - 1, HISTORY_FIRST_WINDOW
    scanned = seen = 0  # listing ids read, spans looked at (skipped or kept)
    last_seen: HistoryCursor | None = None
    stopped = False  # within a window: the page is full, or the budget spent
    while (
        not stopped
        and len(spans) < limit
        and lower < last_id
        and scanned < HISTORY_SCAN_LISTINGS
        and seen < HISTORY_SCAN_SPANS
    ):
        upper = min(lower + max(min(window, HISTORY_SCAN_LISTINGS - scanned), 1), last_id)
        batch = conn.execute(query.where(listings.c.id > lower, listings.c.id <= upper)).all()
        for span in _spans(conn, batch, since, first_after, times_of):
            key = (span[0].id, span[1])
            if key <= after_key:
                continue
            if len(spans) >= limit or seen >= HISTORY_SCAN_SPANS:
                stopped = True
                break
            seen, last_seen = seen + 1, key
            if skip:
                skip -= 1
            else:
                spans.append(span)
        scanned += upper - lower
        if not stopped:
            lower = upper  # the window was read whole
        wanted = min(limit - len(spans) + skip, HISTORY_SCAN_SPANS - seen)
        window = _next_window(window, seen, scanned, wanted)
        pause()
    if stopped and last_seen is not None:
        resume: HistoryCursor | None = last_seen
    elif lower < last_id:  # the budget ran out between windows
        resume = (lower + 1, -1)
    else:
        resume = None
    return HistoryPage(
        [
            PriceSpan(listed_offer(row, began.date().isoformat(), usd, 1), run_id, finished, until)
            for row, run_id, usd, began, finished, until in spans
        ],
        resume,
        skip,
    )


class RunTimes:
    """When each run started and finished, as history has needed them: a run never
    changes once written, so what is remembered stays true (a pruned run is simply
    never asked for again)."""

    def __init__(self) -> None:
        self._run_times: dict[int, tuple[datetime, datetime]] = {}

    def __call__(self, conn: Connection, wanted: set[int]) -> dict[int, tuple[datetime, datetime]]:
        """Start and finish of each wanted run; the missing ones read as one id range."""
        missing = wanted - self._run_times.keys()
        if missing:
            if len(self._run_times) > RUN_TIMES_KEPT:
                self._run_times.clear()
            query = select(runs.c.id, runs.c.started_at, runs.c.finished_at).where(
                runs.c.id.between(min(missing), max(missing))
            )
            self._run_times.update(
                (r.id, (_aware(r.started_at), _aware(r.finished_at))) for r in conn.execute(query)
            )
        return self._run_times


def _next_window(window: int, seen: int, scanned: int, wanted: int) -> int:
    """The next window of listing ids: about what the spans found so far per id say the
    page still needs, growing at most eightfold, so a window never reads far past it."""
    if seen == 0:
        return window * 4
    needed = math.ceil(wanted * scanned / seen * 1.25)
    return max(HISTORY_FIRST_WINDOW, min(needed, window * 8))


def _first_run_after(conn: Connection, since: datetime) -> int:
    """The first run that finished after ``since``: a change from it on ends a span after
    ``since`` (runs are numbered in the order they finish, under the write lock)."""
    first = conn.execute(select(func.min(runs.c.id)).where(runs.c.finished_at > since)).scalar()
    if first is None:
        return int(conn.execute(select(func.max(runs.c.id))).scalar() or 0) + 1
    oldest = conn.execute(select(func.min(runs.c.id))).scalar()
    return 0 if first == oldest else int(first)  # 0: every stored change is after it


def _spans(
    conn: Connection,
    chosen: Sequence[Row[Any]],
    since: datetime,
    first_after: int,
    times_of: Callable[[Connection, set[int]], dict[int, tuple[datetime, datetime]]],
) -> list[_Span]:
    """The price spans of ``chosen`` listings that end after ``since``, listing by listing."""
    changes = _changes_of(conn, [row.id for row in chosen], first_after)
    times = times_of(conn, {run for sequence in changes.values() for run, _ in sequence})
    spans = []
    for row in chosen:
        sequence = changes.get(row.id, [])
        for i, (run_id, usd) in enumerate(sequence):
            if usd is None:
                continue
            following = sequence[i + 1][0] if i + 1 < len(sequence) else None
            until = times[following][1] if following is not None else None
            if until is not None and until <= since:
                continue
            spans.append((row, run_id, usd, *times[run_id], until))
    return spans


def _changes_of(
    conn: Connection, ids: list[int], first_after: int
) -> dict[int, list[tuple[int, float | None]]]:
    """Each listing's changes from the one in force before ``first_after`` on, packed and
    not, in run order: the older ones end no span after ``since``."""
    changes: dict[int, list[tuple[int, float | None]]] = {i: [] for i in ids}
    earlier_pack = price_packs.alias("earlier_pack")
    last_pack_before = (
        select(func.max(earlier_pack.c.first_run))
        .where(
            earlier_pack.c.listing_id == price_packs.c.listing_id,
            earlier_pack.c.first_run < first_after,
        )
        .scalar_subquery()
    )
    earlier = price_changes.alias("earlier")
    last_row_before = (
        select(func.max(earlier.c.run_id))
        .where(earlier.c.listing_id == price_changes.c.listing_id, earlier.c.run_id < first_after)
        .scalar_subquery()
    )
    # since before every stored run: every change counts, and no floor need be looked up
    pack_floor = (price_packs.c.last_run >= first_after) | (
        price_packs.c.first_run == last_pack_before
    )
    row_floor = price_changes.c.run_id >= func.coalesce(last_row_before, 0)
    if first_after <= 0:
        pack_floor = row_floor = true()
    for chunk in range(0, len(ids), LOOKUP_CHUNK):
        wanted = ids[chunk : chunk + LOOKUP_CHUNK]
        packed = (
            select(price_packs.c.listing_id, price_packs.c.runs, price_packs.c.prices)
            .where(price_packs.c.listing_id.in_(wanted), pack_floor)
            .order_by(price_packs.c.listing_id, price_packs.c.first_run)
        )
        for pack in conn.execute(packed):
            changes[pack.listing_id] += Pack.decode(pack.runs, pack.prices).changes()
        recent = (
            select(price_changes)
            .where(price_changes.c.listing_id.in_(wanted), row_floor)
            .order_by(price_changes.c.listing_id, price_changes.c.run_id)
        )
        for change in conn.execute(recent):
            changes[change.listing_id].append((change.run_id, change.usd_per_hour))
    return changes
