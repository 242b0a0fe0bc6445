"""Listings keyed by what identifies the offer; indexes for reading the past by run.

A listing's key (its digest) was every field but the price, so a marketplace whose notes
(machine ids, offer counts) or reliability score moved between refreshes, or an import under
a new file name (its default ``source``), wrote every offer again as a new listing. The key
is now the identity fields alone (pricing/changes.py); the descriptive ones are updated in
place. The listings each source lists now are re-keyed here, so the next refresh finds them;
listings no longer listed keep their old key (nothing will match it; their history stays).

``price_changes.run_id`` and ``price_packs.last_run`` get indexes: a past moment is read as
the current catalog less what changed after it, and history finds the listings that changed
after ``since``, both by run.

The key function is the live one on purpose: the key must be the one the writer computes.
A later change to it needs a migration of its own that re-keys with the shape it knew.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import logging
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

from pricing.changes import DESCRIPTIVE_FIELDS, IDENTITY_FIELDS, LISTING_FIELDS, listing_digest

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

# The listings table's columns this revision reads and writes, as revision 0004 made them.
TYPES = {
    "count": sa.Integer(),
    "memory_gb": sa.Float(),
    "host_included": sa.Boolean(),
    "estimated": sa.Boolean(),
    "suspect": sa.Boolean(),
    "reliability": sa.Float(),
}
listings = sa.table(
    "listings",
    sa.column("id", sa.Integer),
    sa.column("adapter", sa.String),
    sa.column("digest", sa.LargeBinary),
    sa.column("usd_per_hour", sa.Float),
    *(sa.column(name, TYPES.get(name, sa.String())) for name in LISTING_FIELDS),
)
REKEY_BATCH = 5_000


def upgrade() -> None:
    op.create_index("ix_price_changes_run", "price_changes", ["run_id"])
    op.create_index("ix_price_packs_last_run", "price_packs", ["last_run"])
    conn = op.get_bind()
    adapters = conn.execute(sa.select(listings.c.adapter).distinct()).scalars().all()
    for adapter in adapters:
        keys = _new_keys(conn, adapter)
        items = list(keys.items())
        for start in range(0, len(items), REKEY_BATCH):
            conn.execute(
                sa.update(listings)
                .where(listings.c.id == sa.bindparam("listing"))
                .values(digest=sa.bindparam("key")),
                [{"listing": i, "key": key} for i, key in items[start : start + REKEY_BATCH]],
            )
        log.info("re-keyed %d listed offers of %s", len(items), adapter)


def _new_keys(conn: sa.Connection, adapter: str) -> dict[int, bytes]:
    """Each listed offer's key as pricing/changes.listed computes it: identity and rank."""
    identity = [listings.c[name] for name in IDENTITY_FIELDS]
    described = [listings.c[name] for name in DESCRIPTIVE_FIELDS]
    query = sa.select(listings.c.id, listings.c.usd_per_hour, *identity, *described).where(
        listings.c.adapter == adapter, listings.c.usd_per_hour.is_not(None)
    )
    alike: dict[tuple[object, ...], list[tuple[float, str, int]]] = defaultdict(list)
    width = len(identity)
    for row in conn.execute(query):
        key = tuple(row[2 : 2 + width])
        alike[key].append((row.usd_per_hour, repr(tuple(row[2 + width :])), row.id))
    keys = {}
    for key, offers in alike.items():
        for rank, (_, _, listing_id) in enumerate(sorted(offers)):
            keys[listing_id] = listing_digest(key, rank)
    return keys


def downgrade() -> None:
    # The keys stay as they are: revision 0004's writer keys by every field but the price,
    # so its first run writes the listed offers once more as new listings, then goes on.
    op.drop_index("ix_price_packs_last_run", "price_packs")
    op.drop_index("ix_price_changes_run", "price_changes")
