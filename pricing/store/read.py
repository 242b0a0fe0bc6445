"""The catalog a source serves, now or as it was at one of its runs.

Now, it is the source's listings with a current price, read from the listings alone. At a
past run, it is each listing's last change at or before that run, where that change is a
price: a few listings (one accelerator's, say) are looked up one by one, and a whole source
is its current catalog less the listings that changed after the run, those read as they
were then. A long read yields between batches of rows, so other requests on the worker are
answered meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    Connection,
    FromClause,
    Row,
    Table,
    case,
    func,
    null,
    select,
    true,
)

from pricing.packs import price_at
from pricing.store.connect import LOOKUP_CHUNK
from pricing.store.records import _LISTED, _LISTING_COLUMNS, Run, _run, _utc
from pricing.store.tables import listings, price_changes, price_packs, runs


def _current_runs(conn: Connection, at: datetime | None) -> dict[str, Run]:
    ok = runs.c.status == "ok"
    if at is not None:
        ok = ok & (runs.c.finished_at <= _utc(at))
    latest = select(func.max(runs.c.id)).where(ok).group_by(runs.c.adapter).scalar_subquery()
    rows = conn.execute(select(runs).where(runs.c.id.in_(latest))).all()
    return {row.adapter: _run(row) for row in rows}


def _listed(
    conn: Connection, adapter: str, run: Run | None, accelerator: str | None = None
) -> list[tuple[Row[Any], float]]:
    """The adapter's listings with their prices, now (``run`` None) or at one of its runs,
    in listing order. A past run's catalog of one accelerator, or of a few listings
    (PAST_LOOKUPS), looks each one up; a larger one is the current catalog less the
    listings that changed after the run, those read as they were then: it costs what is
    listed and what moved since, never the whole history of every listing the source ever had."""
    chosen = [listings.c.adapter == adapter]
    if accelerator is not None:
        chosen.append(listings.c.accelerator == accelerator)
    now = (
        select(*_LISTING_COLUMNS, listings.c.usd_per_hour, listings.c.id)
        .where(*chosen, listings.c.usd_per_hour.is_not(None))
        .order_by(listings.c.id)
    )
    if run is None:
        return [(row, row[_LISTED]) for row in _fetched(conn, now)]
    # One accelerator's listings are looked up one by one, however many: that costs what the
    # question asks. A whole source's are counted first, in the database (at most
    # PAST_LOOKUPS + 1 of them: no id crosses the wire); the count cost a tenth of a past
    # catalog of one accelerator on the history benchmark's store, so it is not asked there.
    if accelerator is not None:
        return _held_at(conn, chosen, run)
    few = select(listings.c.id).where(*chosen).limit(PAST_LOOKUPS + 1).subquery()
    if conn.execute(select(func.count()).select_from(few)).scalar_one() <= PAST_LOOKUPS:
        return _held_at(conn, chosen, run)
    # A whole source: what is listed now, less what changed since, whose prices then are
    # read in two passes over the changes (the last row, else the last pack, by then).
    held = []
    changed = _changed_after(conn, run.id)
    then = _prices_then(conn, run, changed)
    for row in _fetched(conn, now):  # a listing changed since is listed as it was then
        usd = then.pop(row.id, None) if row.id in changed else row[_LISTED]
        if usd is not None:
            held.append((row, usd))
    priced = sorted(i for i, usd in then.items() if usd is not None)  # listed no more
    for chunk in range(0, len(priced), LOOKUP_CHUNK):
        rows = select(*_LISTING_COLUMNS, listings.c.id).where(
            *chosen, listings.c.id.in_(priced[chunk : chunk + LOOKUP_CHUNK])
        )
        held += [(row, then[row.id]) for row in conn.execute(rows)]
        pause()
    held.sort(key=lambda listed: listed[0].id)
    return held


def _prices_then(conn: Connection, run: Run, ids: set[int]) -> dict[int, float | None]:
    """The price each of ``ids`` held at ``run`` (None: not listed then), from each one's
    last change at or before it: a row if it has one (rows come after packs), else its
    last pack's. Each pass is one grouped scan of the table, not a lookup per listing."""
    run_id = run.id
    then: dict[int, float | None] = {}
    if not run.packed:  # else no row holds a change this old
        last = (
            select(price_changes.c.listing_id, func.max(price_changes.c.run_id).label("run"))
            .where(price_changes.c.run_id <= run_id)
            .group_by(price_changes.c.listing_id)
            .subquery()
        )
        rows = select(price_changes.c.listing_id, price_changes.c.usd_per_hour).join(
            last,
            (price_changes.c.listing_id == last.c.listing_id)
            & (price_changes.c.run_id == last.c.run),
        )
        for listing_id, usd in _fetched(conn, rows):
            if listing_id in ids:
                then[listing_id] = usd
    last_pack = (
        select(price_packs.c.listing_id, func.max(price_packs.c.first_run).label("first"))
        .where(price_packs.c.first_run <= run_id)
        .group_by(price_packs.c.listing_id)
        .subquery()
    )
    packs = select(
        price_packs.c.listing_id,
        price_packs.c.last_run,
        price_packs.c.closing_price,
        price_packs.c.runs,
        price_packs.c.prices,
    ).join(
        last_pack,
        (price_packs.c.listing_id == last_pack.c.listing_id)
        & (price_packs.c.first_run == last_pack.c.first),
    )
    for listing_id, last_run, closing, runs_blob, prices_blob in _fetched(conn, packs):
        if listing_id in ids and listing_id not in then:
            then[listing_id] = (
                closing if last_run <= run_id else price_at(runs_blob, prices_blob, run_id)
            )
    return then


def _changed_after(conn: Connection, run_id: int) -> set[int]:
    """Every listing with a change after ``run_id``, of any source (read by the run indexes;
    the caller's own filters keep its source's)."""
    rows = select(price_changes.c.listing_id).where(price_changes.c.run_id > run_id)
    packs = select(price_packs.c.listing_id).where(price_packs.c.last_run > run_id)
    return set(conn.execute(rows.union(packs)).scalars())


def _held_at(conn: Connection, chosen: list[Any], run: Run) -> list[tuple[Row[Any], float]]:
    """The price each of the ``chosen`` listings held at ``run``, in listing order: its last
    change at or before it, where that change is a price. At a packed run every such change
    is in a pack; at a later one, in a row or a pack's closing price."""
    run_id = run.id
    pack, on_pack = _last_by(conn, price_packs, price_packs.c.first_run, run_id, "pack")
    inside = pack.c.last_run > run_id  # the run falls within the pack: read its changes
    joined = listings.outerjoin(pack, on_pack)
    if run.packed:  # no row holds a change this old: skip looking
        raw_columns = [null().label("raw_run"), null().label("raw_price")]
    else:
        raw, on_raw = _last_by(conn, price_changes, price_changes.c.run_id, run_id, "raw")
        raw_columns = [raw.c.run_id.label("raw_run"), raw.c.usd_per_hour.label("raw_price")]
        joined = joined.outerjoin(raw, on_raw)
    query = (
        select(
            *_LISTING_COLUMNS,
            *raw_columns,
            pack.c.last_run,
            pack.c.closing_price,
            case((inside, pack.c.runs)).label("pack_runs"),
            case((inside, pack.c.prices)).label("pack_prices"),
            listings.c.id,
        )
        .select_from(joined)
        .where(*chosen)
        .order_by(listings.c.id)
    )
    held = []
    for row in conn.execute(query).all():
        raw_run, raw_price, last_run, closing, pack_runs, pack_prices = row[_LISTED : _LISTED + 6]
        if raw_run is not None:  # rows come after packs: the latest change there is
            price = raw_price
        elif last_run is None:  # nothing listed by then
            continue
        elif pack_runs is None:
            price = closing
        else:
            price = price_at(pack_runs, pack_prices, run_id)
        if price is not None:
            held.append((row, price))
    return held


def _last_by(
    conn: Connection, table: Table, position: Column[int], run_id: int, name: str
) -> tuple[FromClause, ColumnElement[bool]]:
    """Each listing's row of ``table`` (its changes or its packs) with the largest
    ``position`` at or before ``run_id``, to outer-join to the listings, and the join's
    condition. PostgreSQL finds it in one index probe a listing (LATERAL ... LIMIT 1), not
    the key first and then the row: a past catalog of one accelerator's 2,000 listings on
    the history benchmark's store, 36 -> 32 ms median over 60 moments, the same prices.
    SQLite has no LATERAL: there the key comes from a correlated MAX, the row joined by it."""
    if conn.dialect.name == "postgresql":
        last = (
            select(table)
            .where(table.c.listing_id == listings.c.id, position <= run_id)
            .order_by(position.desc())
            .limit(1)
            .lateral(name)
        )
        return last, true()
    found, earlier = table.alias(name), table.alias(f"earlier_{name}")
    key = (
        select(func.max(earlier.c[position.name]))
        .where(earlier.c.listing_id == listings.c.id, earlier.c[position.name] <= run_id)
        .scalar_subquery()
    )
    return found, (found.c.listing_id == listings.c.id) & (found.c[position.name] == key)


# A past catalog of at most this many listings (one accelerator's, say) looks each one up;
# a larger one reads what is listed now and looks up only what changed since, which costs
# the source's recent changes however few listings the question asks about.
PAST_LOOKUPS = 20_000


# Rows fetched from the driver at a time by the long reads (a catalog, a history page).
FETCH_ROWS = 5_000


def _fetched(conn: Connection, query: Any) -> Iterator[Row[Any]]:
    """A long read's rows a few thousand at a time, pausing between batches so that other
    requests on this worker are answered meanwhile (under gevent the pause yields)."""
    result = conn.execute(query)
    for rows in result.partitions(FETCH_ROWS):
        yield from rows
        pause()


def pause() -> None:
    """Let other requests in: time.sleep(0) is gevent's cooperative yield in a gevent
    worker, and a release of the GIL to other threads anywhere else."""
    time.sleep(0)
