"""Prices stored once per change: listings, price_changes and price_packs replace the full
copy per run.

Every stored run's offers are folded, adapter by adapter in run order, into listings and
changes as the store writes them (pricing/changes.py), so the history already stored is
kept: the catalog of every stored run reads back as it was written (the next refresh packs
the older changes). Downgrading writes each ok run's catalog back out as a full copy.

The fold and the downgrade's reader are copies, made when this revision was frozen, of the
store's writer and past-catalog read as of commit b1e8cf7 (pricing/changes.py,
pricing/store/write.py and read.py; the read in its plain form, one pass over a source's
changes): a revision must do what it did the day it ran, whatever the live code becomes.
It called the live store's private functions before, so what it wrote followed every later
change to the writer; the copy is the writer it followed last, which keys a listing by its
identity fields (revision 0005 re-keys the stores folded by the first one).

This revision was also edited after it first landed (commit 559d608): price_packs and
runs.packed were added to it later (59fe05a, 9357adc). A store migrated to 0004 before
that has neither; revision 0006 adds them, and 0005 indexes price_packs only where the
table is there.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import hashlib
import logging
import math
import sys
from array import array
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

# The runs table as revisions 0001 to 0004 know it.
runs = sa.table(
    "runs",
    sa.column("id", sa.Integer),
    sa.column("adapter", sa.String),
    sa.column("started_at", sa.DateTime(timezone=True)),
    sa.column("finished_at", sa.DateTime(timezone=True)),
    sa.column("status", sa.String),
    sa.column("row_count", sa.Integer),
    sa.column("error", sa.Text),
    sa.column("source_version", sa.String),
    sa.column("worker", sa.String),
    sa.column("packed", sa.Boolean),
)

OFFER_COLUMNS = (
    ("provider", sa.String(64)),
    ("service", sa.String(64)),
    ("product", sa.String(200)),
    ("region", sa.String(64)),
    ("zone", sa.String(64)),
    ("accelerator", sa.String(64)),
    ("count", sa.Integer()),
    ("memory_gb", sa.Float()),
    ("pricing", sa.String(32)),
    ("usd_per_hour", sa.Float()),
    ("host_included", sa.Boolean()),
    ("estimated", sa.Boolean()),
    ("suspect", sa.Boolean()),
    ("confidence", sa.String(32)),
    ("price_as_of", sa.String(64)),
    ("source", sa.Text()),
    ("notes", sa.Text()),
    ("market", sa.String(32)),
    ("reliability", sa.Float()),
    ("interruption", sa.String(16)),
)
NULLABLE = {"memory_gb", "reliability"}
# The offers table as revision 0003 left it: one full copy of the catalog per run.
offers = sa.table(
    "offers",
    sa.column("id", sa.Integer),
    sa.column("run_id", sa.Integer),
    *(sa.column(name, kind) for name, kind in OFFER_COLUMNS),
)

# Runs between progress lines while folding a long history.
PROGRESS_EVERY = 100


def upgrade() -> None:
    op.create_table(
        "listings",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("adapter", sa.String(64), nullable=False),
        sa.Column("digest", sa.LargeBinary(16), nullable=False),
        *(
            sa.Column(name, kind, nullable=name in NULLABLE)
            for name, kind in OFFER_COLUMNS
            if name != "usd_per_hour"
        ),
        sa.Column("usd_per_hour", sa.Float(), nullable=True),
    )
    op.create_index("ux_listings_adapter_digest", "listings", ["adapter", "digest"], unique=True)
    op.create_index("ix_listings_accelerator", "listings", ["accelerator"])
    op.create_table(
        "price_changes",
        _listing_key(),
        sa.Column("run_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("usd_per_hour", sa.Float(), nullable=True),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "price_packs",
        _listing_key(),
        sa.Column("first_run", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("last_run", sa.Integer(), nullable=False),
        sa.Column("closing_price", sa.Float(), nullable=True),
        sa.Column("runs", sa.LargeBinary(), nullable=False),
        sa.Column("prices", sa.LargeBinary(), nullable=False),
        sqlite_with_rowid=False,
    )
    op.add_column(
        "runs", sa.Column("packed", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    _fold_stored_runs(op.get_bind())
    op.drop_index("ix_offers_accelerator", "offers")
    op.drop_index("ix_offers_run_id", "offers")
    op.drop_table("offers")


def _listing_key() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        "listing_id",
        sa.Integer(),
        sa.ForeignKey("listings.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )


def _fold_stored_runs(conn: sa.Connection) -> None:
    ok = conn.execute(sa.select(runs).where(runs.c.status == "ok").order_by(runs.c.id)).all()
    for done, run in enumerate(ok, start=1):
        stored = conn.execute(
            sa.select(offers).where(offers.c.run_id == run.id).order_by(offers.c.id)
        ).all()
        _write_changes(conn, run, stored)
        if done % PROGRESS_EVERY == 0 or done == len(ok):
            log.info("folded %d of %d stored runs into price changes", done, len(ok))


# -- the writer, frozen ------------------------------------------------------------------------
# The store's writer as of commit b1e8cf7 (pricing/changes.py: listed, diff, listing_digest;
# pricing/store/write.py: _write_changes), reading the offers table's rows where the store
# read Offer records. The fields' names and order are Offer's as of then, written out: the
# listing key hashes them in this order.

# Every offer field but the price: the columns of a listing, in Offer's order.
LISTING_FIELDS = (
    "provider", "product", "region", "accelerator", "count", "pricing", "price_as_of",
    "source", "service", "zone", "memory_gb", "host_included", "estimated", "suspect",
    "confidence", "notes", "market", "reliability", "interruption",
)  # fmt: skip
# Fields that describe a listing without identifying it: stored beside it, updated in place.
DESCRIPTIVE_FIELDS = ("source", "notes", "reliability", "suspect")
IDENTITY_FIELDS = tuple(name for name in LISTING_FIELDS if name not in DESCRIPTIVE_FIELDS)
# Stored in place of price_as_of when it is the day the run read the price.
READ_ON_RUN_DAY = "@run"
# Digests looked up per statement: well under SQLite's and PostgreSQL's parameter limits.
LOOKUP_CHUNK = 500

_PRICE_AS_OF = LISTING_FIELDS.index("price_as_of")
_MEMORY = LISTING_FIELDS.index("memory_gb")
_IDENTITY = tuple(LISTING_FIELDS.index(name) for name in IDENTITY_FIELDS)
_DESCRIPTIVE = tuple(LISTING_FIELDS.index(name) for name in DESCRIPTIVE_FIELDS)

_metadata = sa.MetaData()
# The tables this revision makes, for its own reads and writes (Tables, not lightweight
# tables: inserting listings returns their ids in parameter order).
listings = sa.Table(
    "listings",
    _metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("adapter", sa.String(64)),
    sa.Column("digest", sa.LargeBinary(16)),
    *(sa.Column(name, kind) for name, kind in OFFER_COLUMNS if name != "usd_per_hour"),
    sa.Column("usd_per_hour", sa.Float()),
)
price_changes = sa.Table(
    "price_changes",
    _metadata,
    sa.Column("listing_id", sa.Integer(), primary_key=True, autoincrement=False),
    sa.Column("run_id", sa.Integer(), primary_key=True, autoincrement=False),
    sa.Column("usd_per_hour", sa.Float()),
)
price_packs = sa.Table(
    "price_packs",
    _metadata,
    sa.Column("listing_id", sa.Integer(), primary_key=True, autoincrement=False),
    sa.Column("first_run", sa.Integer(), primary_key=True, autoincrement=False),
    sa.Column("runs", sa.LargeBinary()),
    sa.Column("prices", sa.LargeBinary()),
)
_DESCRIPTIVE_COLUMNS = tuple(listings.c[name] for name in DESCRIPTIVE_FIELDS)
# An update's parameters for them (a parameter may not share its column's name).
_NEW_DESCRIPTION = {name: f"new_{name}" for name in DESCRIPTIVE_FIELDS}


def _listed(
    stored: list[sa.Row],
    read_days: frozenset[str],  # type: ignore[type-arg]
) -> dict[bytes, tuple[tuple[object, ...], float]]:
    """A stored run's offers keyed by listing: (LISTING_FIELDS values, price). Offers alike
    in identity are told apart by their rank in price (then description)."""
    alike: dict[tuple[object, ...], list[tuple[float, tuple[object, ...]]]] = defaultdict(list)
    for row in stored:
        values = [getattr(row, name) for name in LISTING_FIELDS]
        if values[_MEMORY] is not None:  # as the Float column gives it back: 24 reads 24.0
            values[_MEMORY] = float(values[_MEMORY])
        if values[_PRICE_AS_OF] in read_days:
            values[_PRICE_AS_OF] = READ_ON_RUN_DAY
        alike[tuple(values[i] for i in _IDENTITY)].append((row.usd_per_hour, tuple(values)))
    keyed: dict[bytes, tuple[tuple[object, ...], float]] = {}
    for identity, listed in alike.items():
        listed.sort(key=lambda offer: (offer[0], repr(_described(offer[1]))))
        for rank, (price, values) in enumerate(listed):
            keyed[_listing_digest(identity, rank)] = (values, price)
    return keyed


def _described(values: tuple[object, ...]) -> tuple[object, ...]:
    return tuple(values[i] for i in _DESCRIPTIVE)


def _listing_digest(identity: tuple[object, ...], rank: int) -> bytes:
    # repr of str, int, float (shortest round trip), bool and None is stable across runs and
    # Python versions; 128 bits make a collision among a source's listings unthinkable.
    text = repr((identity, rank)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()


def _write_changes(conn: sa.Connection, run: sa.Row, stored: list[sa.Row]) -> None:  # type: ignore[type-arg]
    """Write what ``run`` changes against its adapter's listed prices: the prices that
    moved, the listings new to the catalog, and the descriptions that moved beside
    unchanged prices (updated in place: no change row)."""
    adapter = run.adapter
    read_days = frozenset({run.started_at.date().isoformat(), run.finished_at.date().isoformat()})
    incoming = _listed(stored, read_days)
    listed_now = {
        row.digest: (row.id, row.usd_per_hour, tuple(row[3:]))
        for row in conn.execute(
            sa.select(
                listings.c.digest, listings.c.id, listings.c.usd_per_hour, *_DESCRIPTIVE_COLUMNS
            ).where(listings.c.adapter == adapter, listings.c.usd_per_hour.is_not(None))
        )
    }
    moved: list[tuple[int, float | None]] = []
    redescribed: list[tuple[int, tuple[object, ...]]] = []
    for digest, (listing_id, usd, description) in listed_now.items():
        offer = incoming.get(digest)
        if offer is None:
            moved.append((listing_id, None))
            continue
        if offer[1] != usd:
            moved.append((listing_id, offer[1]))
        if _described(offer[0]) != description:
            redescribed.append((listing_id, _described(offer[0])))
    unseen = [digest for digest in incoming if digest not in listed_now]
    if unseen:  # new to the current catalog; stored before perhaps, then gone
        known: dict[bytes, int] = {}
        for start in range(0, len(unseen), LOOKUP_CHUNK):
            query = sa.select(listings.c.digest, listings.c.id).where(
                listings.c.adapter == adapter,
                listings.c.digest.in_(unseen[start : start + LOOKUP_CHUNK]),
            )
            known.update((row.digest, row.id) for row in conn.execute(query))
        back = [digest for digest in unseen if digest in known]
        moved += [(known[digest], incoming[digest][1]) for digest in back]
        redescribed += [(known[digest], _described(incoming[digest][0])) for digest in back]
        fresh = [digest for digest in unseen if digest not in known]
        if fresh:
            made = sa.insert(listings).returning(listings.c.id, sort_by_parameter_order=True)
            rows = [
                {
                    **dict(zip(LISTING_FIELDS, incoming[digest][0], strict=True)),
                    "adapter": adapter,
                    "digest": digest,
                    "usd_per_hour": incoming[digest][1],
                }
                for digest in fresh
            ]
            ids = conn.execute(made, rows).scalars().all()
            conn.execute(
                sa.insert(price_changes),
                [
                    {"listing_id": i, "run_id": run.id, "usd_per_hour": incoming[digest][1]}
                    for i, digest in zip(ids, fresh, strict=True)
                ],
            )
    if redescribed:
        conn.execute(
            sa.update(listings)
            .where(listings.c.id == sa.bindparam("listing"))
            .values({name: sa.bindparam(new) for name, new in _NEW_DESCRIPTION.items()}),
            [
                {"listing": i, **dict(zip(_NEW_DESCRIPTION.values(), described, strict=True))}
                for i, described in redescribed
            ],
        )
    if moved:
        conn.execute(
            sa.update(listings)
            .where(listings.c.id == sa.bindparam("listing"))
            .values(usd_per_hour=sa.bindparam("price")),
            [{"listing": i, "price": usd} for i, usd in moved],
        )
        conn.execute(
            sa.insert(price_changes),
            [{"listing_id": i, "run_id": run.id, "usd_per_hour": usd} for i, usd in moved],
        )


def downgrade() -> None:
    op.create_table(
        "offers",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "run_id", sa.Integer(), sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False
        ),
        *(sa.Column(name, kind, nullable=name in NULLABLE) for name, kind in OFFER_COLUMNS),
    )
    op.create_index("ix_offers_run_id", "offers", ["run_id"])
    op.create_index("ix_offers_accelerator", "offers", ["accelerator"])
    conn = op.get_bind()
    ok = conn.execute(sa.select(runs).where(runs.c.status == "ok").order_by(runs.c.id)).all()
    changes_of: dict[str, dict[int, list[tuple[int, float | None]]]] = {}
    for run in ok:
        if run.adapter not in changes_of:
            changes_of[run.adapter] = _changes(conn, run.adapter)
        day = run.started_at.date().isoformat()
        copy = []
        for listed, usd in _catalog_at(conn, run, changes_of[run.adapter]):
            values = {
                name: getattr(listed, name) for name, _ in OFFER_COLUMNS if name != "usd_per_hour"
            }
            if values["price_as_of"] == READ_ON_RUN_DAY:
                values["price_as_of"] = day
            copy.append({**values, "usd_per_hour": usd, "run_id": run.id})
        if copy:
            conn.execute(sa.insert(offers), copy)
    op.drop_table("price_packs")
    op.drop_table("price_changes")
    op.drop_table("listings")
    with op.batch_alter_table("runs") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("packed")


def _changes(conn: sa.Connection, adapter: str) -> dict[int, list[tuple[int, float | None]]]:
    """Each of the adapter's listings' changes, packed and not, in run order (a listing's
    packs come before its rows and never overlap)."""
    mine = sa.select(listings.c.id).where(listings.c.adapter == adapter)
    changes: dict[int, list[tuple[int, float | None]]] = defaultdict(list)
    packed = (
        sa.select(price_packs)
        .where(price_packs.c.listing_id.in_(mine))
        .order_by(price_packs.c.listing_id, price_packs.c.first_run)
    )
    for pack in conn.execute(packed):
        changes[pack.listing_id] += _unpacked(pack.runs, pack.prices)
    rows = (
        sa.select(price_changes)
        .where(price_changes.c.listing_id.in_(mine))
        .order_by(price_changes.c.listing_id, price_changes.c.run_id)
    )
    for change in conn.execute(rows):
        changes[change.listing_id].append((change.run_id, change.usd_per_hour))
    return changes


def _catalog_at(
    conn: sa.Connection,
    run: sa.Row,  # type: ignore[type-arg]
    changes: dict[int, list[tuple[int, float | None]]],
) -> list[tuple[sa.Row, float]]:  # type: ignore[type-arg]
    """The run's catalog, in listing order: each listing of its source whose last change at
    or before the run is a price."""
    held = []
    query = sa.select(listings).where(listings.c.adapter == run.adapter).order_by(listings.c.id)
    for listed in conn.execute(query):
        before = [usd for run_id, usd in changes.get(listed.id, []) if run_id <= run.id]
        if before and before[-1] is not None:
            held.append((listed, before[-1]))
    return held


def _unpacked(runs_blob: bytes, prices_blob: bytes) -> list[tuple[int, float | None]]:
    """A pack's changes as pricing/packs.py writes them: run ids as 4-byte and prices as
    8-byte little-endian arrays, NaN where the run no longer listed the offer."""
    run_ids, prices = array("i", runs_blob), array("d", prices_blob)
    if sys.byteorder == "big":
        run_ids.byteswap()
        prices.byteswap()
    return [
        (run_id, None if math.isnan(usd) else usd)
        for run_id, usd in zip(run_ids, prices, strict=True)
    ]
