"""Writing a run: its row, then what it changes against the prices its source lists now
(pricing/changes.py), in the caller's transaction and under the write lock (locks.py).

Only the prices that moved are written, as changes; a listing new to the catalog is
inserted, one seen before comes back with a change; a description that moved beside an
unchanged price is updated in place, with no change row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy import Connection, bindparam, insert, select, update

from pricing import changes
from pricing.changes import DESCRIPTIVE_FIELDS
from pricing.offer import Offer
from pricing.store.connect import LOOKUP_CHUNK
from pricing.store.records import Run, this_worker, utcnow
from pricing.store.tables import listings, price_changes, runs

_DESCRIPTIVE_COLUMNS = tuple(listings.c[name] for name in DESCRIPTIVE_FIELDS)
# An update's parameters for them (a parameter may not share its column's name).
_NEW_DESCRIPTION = {name: f"new_{name}" for name in DESCRIPTIVE_FIELDS}

# The next run from the adapter's current offers: (offers, source_version).
NextRun = Callable[[list[Offer]], tuple[Sequence[Offer], str]]


def _insert_run(
    conn: Connection,
    adapter: str,
    started_at: datetime,
    status: str,
    row_count: int,
    error: str,
    source_version: str,
) -> Run:
    values = {
        "adapter": adapter,
        "started_at": started_at,
        "finished_at": utcnow(),
        "status": status,
        "row_count": row_count,
        "error": error,
        "source_version": source_version[:200],
        "worker": this_worker(),
    }
    run_id = conn.execute(insert(runs).values(**values)).inserted_primary_key[0]
    return Run(id=run_id, **values)  # type: ignore[arg-type]


def _write_changes(conn: Connection, adapter: str, run: Run, batch: Sequence[Offer]) -> None:
    """Write what ``run`` changes against the adapter's listed prices (pricing/changes.py):
    the prices that moved, the listings new to the catalog, and the descriptions that moved
    beside unchanged prices (updated in place: no change row)."""
    read_days = frozenset({run.started_at.date().isoformat(), run.finished_at.date().isoformat()})
    incoming = changes.listed(batch, read_days)
    listed_now = {
        row.digest: (row.id, row.usd_per_hour, tuple(row[3:]))
        for row in conn.execute(
            select(
                listings.c.digest, listings.c.id, listings.c.usd_per_hour, *_DESCRIPTIVE_COLUMNS
            ).where(listings.c.adapter == adapter, listings.c.usd_per_hour.is_not(None))
        )
    }
    found = changes.diff(listed_now, incoming)
    moved = list(found.moved)
    redescribed = list(found.redescribed)
    if found.unseen:  # new to the current catalog; stored before perhaps, then gone
        known: dict[bytes, int] = {}
        for chunk in changes.chunks([offer.digest for offer in found.unseen], LOOKUP_CHUNK):
            query = select(listings.c.digest, listings.c.id).where(
                listings.c.adapter == adapter, listings.c.digest.in_(chunk)
            )
            known.update((row.digest, row.id) for row in conn.execute(query))
        back = [o for o in found.unseen if o.digest in known]
        moved += [(known[o.digest], o.usd_per_hour) for o in back]
        redescribed += [(known[o.digest], o.description) for o in back]
        fresh = [offer for offer in found.unseen if offer.digest not in known]
        if fresh:
            made = insert(listings).returning(listings.c.id, sort_by_parameter_order=True)
            ids = conn.execute(made, [offer.row(adapter) for offer in fresh]).scalars().all()
            created = [(i, o.usd_per_hour) for i, o in zip(ids, fresh, strict=True)]
            conn.execute(
                insert(price_changes),
                [{"listing_id": i, "run_id": run.id, "usd_per_hour": usd} for i, usd in created],
            )
    if redescribed:
        conn.execute(
            update(listings)
            .where(listings.c.id == bindparam("listing"))
            .values({name: bindparam(new) for name, new in _NEW_DESCRIPTION.items()}),
            [
                {"listing": i, **dict(zip(_NEW_DESCRIPTION.values(), described, strict=True))}
                for i, described in redescribed
            ],
        )
    if moved:
        conn.execute(
            update(listings)
            .where(listings.c.id == bindparam("listing"))
            .values(usd_per_hour=bindparam("price")),
            [{"listing": i, "price": usd} for i, usd in moved],
        )
        conn.execute(
            insert(price_changes),
            [{"listing_id": i, "run_id": run.id, "usd_per_hour": usd} for i, usd in moved],
        )
