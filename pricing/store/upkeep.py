"""Upkeep: packing a source's older changes a month to a row (pricing/packs.py) and pruning
what is past the retention. Both run under the write lock, after a refresh's own write.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import Connection, delete, func, insert, select, update

from pricing.packs import KEEP_RAW_RUNS, PACK_EVERY_RUNS, Pack
from pricing.store.connect import LOOKUP_CHUNK
from pricing.store.read import _current_runs
from pricing.store.tables import listings, price_changes, price_packs, runs


def _pack(conn: Connection, adapter: str) -> int:
    """Pack the adapter's changes older than its latest KEEP_RAW_RUNS runs, once
    PACK_EVERY_RUNS runs' worth have gathered there. Returns how many changes it packed."""
    ok = select(runs.c.id).where(runs.c.adapter == adapter, runs.c.status == "ok")
    recent = conn.execute(ok.order_by(runs.c.id.desc()).limit(KEEP_RAW_RUNS + 1)).scalars().all()
    if len(recent) <= KEEP_RAW_RUNS:
        return 0
    cutoff = recent[-1]  # the newest run whose changes are packed
    unpacked = ok.where(~runs.c.packed, runs.c.id <= cutoff).subquery()
    if conn.execute(select(func.count()).select_from(unpacked)).scalar_one() < PACK_EVERY_RUNS:
        return 0  # asked of the runs table alone: cheap after every refresh
    mine = select(listings.c.id).where(listings.c.adapter == adapter)
    old = (price_changes.c.listing_id.in_(mine)) & (price_changes.c.run_id <= cutoff)
    by_listing: dict[int, list[tuple[int, float | None]]] = {}
    query = (
        select(price_changes)
        .where(old)
        .order_by(price_changes.c.listing_id, price_changes.c.run_id)
    )
    for change in conn.execute(query):
        by_listing.setdefault(change.listing_id, []).append((change.run_id, change.usd_per_hour))
    if by_listing:  # a month in which nothing moved leaves nothing to pack
        packs = [_pack_row(i, by_listing[i]) for i in _by_accelerator(conn, adapter, by_listing)]
        conn.execute(insert(price_packs), packs)
        conn.execute(delete(price_changes).where(old))
    # Only the runs this job packed: setting the flag again on every earlier run rewrote
    # each of them monthly, and PostgreSQL kept the old copies (the runs table grew to ~8
    # rows a page, which every past moment's run lookup scans).
    conn.execute(
        update(runs)
        .where(runs.c.adapter == adapter, runs.c.id <= cutoff, ~runs.c.packed)
        .values(packed=True)
    )
    return sum(len(seq) for seq in by_listing.values())


def _by_accelerator(conn: Connection, adapter: str, ids: Iterable[int]) -> list[int]:
    """``ids`` in the order their packs are written: accelerator by accelerator, then by
    listing. PostgreSQL keeps a table's rows in the order they were written, so a month's
    packs of one accelerator share a few dozen pages, and a past catalog of that accelerator
    (pricing/store/read.py) reads those instead of a page per listing: ~2,000 of them on the
    history benchmark's store, mostly from outside the database's buffers. (SQLite keeps
    price_packs in key order whatever the order written.)"""
    mine = select(listings.c.id, listings.c.accelerator).where(listings.c.adapter == adapter)
    accelerator_of = {listing: accelerator for listing, accelerator in conn.execute(mine)}
    return sorted(ids, key=lambda i: (accelerator_of[i], i))


def _pack_row(listing_id: int, changes: Sequence[tuple[int, float | None]]) -> dict[str, object]:
    pack = Pack.of(changes)
    runs_blob, prices_blob = pack.encode()
    return {
        "listing_id": listing_id,
        "first_run": changes[0][0],
        "last_run": changes[-1][0],
        "closing_price": pack.closing,
        "runs": runs_blob,
        "prices": prices_blob,
    }


def _prune(conn: Connection, adapter: str, keep_after: datetime) -> int:
    """Each listing keeps its last change at the cutoff (its price then, if it had one) and
    every later one; its earlier changes, packed or not, go."""
    ok_before = (
        (runs.c.adapter == adapter) & (runs.c.status == "ok") & (runs.c.finished_at < keep_after)
    )
    cutoff = conn.execute(select(func.max(runs.c.id)).where(ok_before)).scalar()
    current = _current_runs(conn, None).get(adapter)
    held_runs: set[int] = set()
    if cutoff is not None:
        mine = select(listings.c.id).where(listings.c.adapter == adapter)
        old_packs = price_packs.c.listing_id.in_(mine) & (price_packs.c.first_run <= cutoff)
        old_rows = price_changes.c.listing_id.in_(mine) & (price_changes.c.run_id <= cutoff)
        before: dict[int, list[tuple[int, float | None]]] = {}
        for pack in conn.execute(
            select(price_packs).where(old_packs).order_by(price_packs.c.first_run)
        ):
            before.setdefault(pack.listing_id, []).extend(
                Pack.decode(pack.runs, pack.prices).changes()
            )
        from_rows: set[int] = set()
        for change in conn.execute(
            select(price_changes).where(old_rows).order_by(price_changes.c.run_id)
        ):
            before.setdefault(change.listing_id, []).append((change.run_id, change.usd_per_hour))
            from_rows.add(change.listing_id)
        conn.execute(delete(price_packs).where(old_packs))
        conn.execute(delete(price_changes).where(old_rows))
        packs, rows = [], []
        for listing_id, sequence in before.items():
            held = [c for c in sequence if c[0] <= cutoff][-1:]
            kept = [c for c in held if c[1] is not None] + [c for c in sequence if c[0] > cutoff]
            held_runs.update(run for run, _ in kept if run <= cutoff)
            if not kept:
                continue
            if listing_id in from_rows:  # rows come after packs: the held change stays a row
                rows += [
                    {"listing_id": listing_id, "run_id": r, "usd_per_hour": u} for r, u in kept
                ]
            else:
                packs.append(_pack_row(listing_id, kept))
        if packs:
            conn.execute(insert(price_packs), packs)
        if rows:
            conn.execute(insert(price_changes), rows)
        conn.execute(
            delete(listings).where(
                listings.c.adapter == adapter,
                listings.c.usd_per_hour.is_(None),
                ~select(price_changes.c.listing_id)
                .where(price_changes.c.listing_id == listings.c.id)
                .exists(),
                ~select(price_packs.c.listing_id)
                .where(price_packs.c.listing_id == listings.c.id)
                .exists(),
            )
        )
    old = select(runs.c.id).where(runs.c.adapter == adapter, runs.c.finished_at < keep_after)
    if current is not None:
        old = old.where(runs.c.id != current.id)
    ids = [run_id for run_id in conn.execute(old).scalars() if run_id not in held_runs]
    for chunk in range(0, len(ids), LOOKUP_CHUNK):
        conn.execute(delete(runs).where(runs.c.id.in_(ids[chunk : chunk + LOOKUP_CHUNK])))
    return len(ids)
