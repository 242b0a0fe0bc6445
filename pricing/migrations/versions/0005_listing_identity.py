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

The key is the writer's as of commit b1e8cf7, copied in (pricing/changes.py: the fields,
listing_digest): it must be the key the writer computed when this revision was written, and
a revision must not change what it does when the live code does. It read the live function
before; a later change to the writer's key needs a revision of its own that re-keys.

Each index is created only where it is missing and its table is there: a store migrated by
0004 as it first landed (commit 559d608) has no price_packs, and this revision failed on it.
Every store it upgraded before had both tables and neither index, so it does for them what
it did; revision 0006 then creates price_packs, with its index, where it is missing.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

# pricing/changes.py's fields as of commit b1e8cf7: every offer field but the price, in
# Offer's order (the key hashes them in this order), and the ones that only describe.
LISTING_FIELDS = (
    "provider", "product", "region", "accelerator", "count", "pricing", "price_as_of",
    "source", "service", "zone", "memory_gb", "host_included", "estimated", "suspect",
    "confidence", "notes", "market", "reliability", "interruption",
)  # fmt: skip
DESCRIPTIVE_FIELDS = ("source", "notes", "reliability", "suspect")
IDENTITY_FIELDS = tuple(name for name in LISTING_FIELDS if name not in DESCRIPTIVE_FIELDS)

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
    conn = op.get_bind()
    if "ix_price_changes_run" not in (_indexes(conn, "price_changes") or ()):
        op.create_index("ix_price_changes_run", "price_changes", ["run_id"])
    packs = _indexes(conn, "price_packs")
    if packs is not None and "ix_price_packs_last_run" not in packs:
        op.create_index("ix_price_packs_last_run", "price_packs", ["last_run"])
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


def _indexes(conn: sa.Connection, table: str) -> set[str] | None:
    """The names of ``table``'s indexes; None where there is no such table."""
    found = sa.inspect(conn)
    return {i["name"] for i in found.get_indexes(table)} if found.has_table(table) else None


def listing_digest(identity: tuple[object, ...], rank: int) -> bytes:
    """The key of a listing within its source: its IDENTITY_FIELDS values (price_as_of as
    stored) and its rank among offers alike in them (pricing/changes.py as of b1e8cf7)."""
    # repr of str, int, float (shortest round trip), bool and None is stable across runs and
    # Python versions; 128 bits make a collision among a source's listings unthinkable.
    text = repr((identity, rank)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()


def downgrade() -> None:
    # The keys stay as they are: revision 0004's writer keys by every field but the price,
    # so its first run writes the listed offers once more as new listings, then goes on.
    if "ix_price_packs_last_run" in (_indexes(op.get_bind(), "price_packs") or ()):
        op.drop_index("ix_price_packs_last_run", "price_packs")
    op.drop_index("ix_price_changes_run", "price_changes")
