"""The store's writer as of commit 559d608, which revision 0004 as it first landed folded the
stored runs with (it imported these from pricing/store.py and pricing/changes.py then).
Vendored so tests/migrations_first/0004_price_changes.py runs as it ran then; copied from
``git show 559d608:pricing/store.py`` and ``:pricing/changes.py``, what 0004 called and
what that calls, the tables cut to the two it writes. Offer is the live record: its fields
are the same as at 559d608 (a change to them is a change to this fixture).
"""

from __future__ import annotations

import hashlib
import operator
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Row,
    Select,
    String,
    Table,
    Text,
    bindparam,
    func,
    insert,
    select,
    update,
)

from pricing.offer import TEXT_LIMITS, Offer, PricingModel

# -- pricing/changes.py at 559d608 ----------------------------------------------------------

# Every offer field but the price: what makes two offers the same listing.
# Offer's fields when this writer landed, written out: fields added since (purchase_option
# and upfront_share, revision 0007) have no column in the store it writes.
_FIELDS_THEN = tuple(f.name for f in fields(Offer))[
    : [f.name for f in fields(Offer)].index("interruption") + 1
]
LISTING_FIELDS = tuple(name for name in _FIELDS_THEN if name != "usd_per_hour")

# Stored in place of price_as_of when it is simply the day the run read the price (what
# every live adapter writes): the listing then stays one listing from day to day, and a
# reader gets the reading run's day back (pricing/store.py).
READ_ON_RUN_DAY = "@run"

_listing_values = operator.attrgetter(*LISTING_FIELDS)
_PRICE_AS_OF = LISTING_FIELDS.index("price_as_of")
_PRICING = LISTING_FIELDS.index("pricing")


@dataclass(frozen=True, slots=True)
class Listed:
    """One offer of a batch as the store keys it."""

    digest: bytes  # 16 bytes naming the listing within its source
    values: tuple[object, ...]  # LISTING_FIELDS, price_as_of normalised
    usd_per_hour: float

    def row(self, adapter: str) -> dict[str, object]:
        row = dict(zip(LISTING_FIELDS, self.values, strict=True))
        row.update(adapter=adapter, digest=self.digest, usd_per_hour=self.usd_per_hour)
        return row


@dataclass(frozen=True, slots=True)
class Changes:
    """The prices a run writes: ``(listing id, price)``, None where the run no longer lists
    it, and the listings the store has never seen."""

    moved: list[tuple[int, float | None]]
    unseen: list[Listed]


def listed(batch: Iterable[Offer], read_days: frozenset[str]) -> dict[bytes, Listed]:
    """The batch keyed by listing. Offers alike in all but price are told apart by their
    rank in price, so a listing holds one price at a time and the rank is stable however
    the source orders its rows."""
    prices: dict[tuple[object, ...], list[float]] = defaultdict(list)
    for offer in batch:
        values = list(_listing_values(offer))
        values[_PRICING] = str(values[_PRICING])
        if values[_PRICE_AS_OF] in read_days:
            values[_PRICE_AS_OF] = READ_ON_RUN_DAY
        prices[tuple(values)].append(offer.usd_per_hour)
    keyed: dict[bytes, Listed] = {}
    for values, usd in prices.items():
        for rank, price in enumerate(sorted(usd)):
            digest = _digest(values, rank)
            keyed[digest] = Listed(digest, values, price)
    return keyed


def diff(listed_now: dict[bytes, tuple[int, float]], batch: dict[bytes, Listed]) -> Changes:
    """``listed_now`` maps each listing the source lists now to (id, price)."""
    moved: list[tuple[int, float | None]] = []
    for digest, (listing_id, usd) in listed_now.items():
        offer = batch.get(digest)
        if offer is None:
            moved.append((listing_id, None))
        elif offer.usd_per_hour != usd:
            moved.append((listing_id, offer.usd_per_hour))
    return Changes(moved, [offer for digest, offer in batch.items() if digest not in listed_now])


def chunks(items: Sequence[bytes], size: int) -> Iterable[Sequence[bytes]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _digest(values: tuple[object, ...], rank: int) -> bytes:
    # repr of str, int, float (shortest round trip), bool and None is stable across runs and
    # Python versions; 128 bits make a collision among a source's listings unthinkable.
    text = repr((values, rank)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()


# -- pricing/store.py at 559d608 ------------------------------------------------------------

metadata = MetaData()

listings = Table(
    "listings",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("adapter", String(64), nullable=False),
    Column("digest", LargeBinary(16), nullable=False),  # names the listing within its source
    Column("provider", String(TEXT_LIMITS["provider"]), nullable=False),
    Column("service", String(TEXT_LIMITS["service"]), nullable=False),
    Column("product", String(TEXT_LIMITS["product"]), nullable=False),
    Column("region", String(TEXT_LIMITS["region"]), nullable=False),
    Column("zone", String(TEXT_LIMITS["zone"]), nullable=False),
    Column("accelerator", String(TEXT_LIMITS["accelerator"]), nullable=False),
    Column("count", Integer, nullable=False),
    Column("memory_gb", Float, nullable=True),
    Column("pricing", String(TEXT_LIMITS["pricing"]), nullable=False),
    Column("host_included", Boolean, nullable=False),
    Column("estimated", Boolean, nullable=False),
    Column("suspect", Boolean, nullable=False),
    Column("confidence", String(TEXT_LIMITS["confidence"]), nullable=False),
    Column("price_as_of", String(TEXT_LIMITS["price_as_of"]), nullable=False),
    Column("source", Text, nullable=False),
    Column("notes", Text, nullable=False),
    Column("market", String(TEXT_LIMITS["market"]), nullable=False),
    Column("reliability", Float, nullable=True),
    Column("interruption", String(TEXT_LIMITS["interruption"]), nullable=False),
    # The price its source's current run lists, NULL when it lists it no more: the current
    # catalog is read from here alone, price_changes answers for the past.
    Column("usd_per_hour", Float, nullable=True),
    Index("ux_listings_adapter_digest", "adapter", "digest", unique=True),
    Index("ix_listings_accelerator", "accelerator"),
)

# A listing's price from a run on, until the listing's next change; NULL: that run no longer
# listed it. Keyed (listing, run), which is also how it is read: a listing's price at a run is
# its last change at or before it. 16 bytes of values a row, as narrow as the layout allows,
# since the changes are most of what the store holds. run_id is not a foreign key: pruning
# keeps every run a change refers to.
price_changes = Table(
    "price_changes",
    metadata,
    Column(
        "listing_id",
        Integer,
        ForeignKey("listings.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    ),
    Column("run_id", Integer, primary_key=True, autoincrement=False),
    Column("usd_per_hour", Float, nullable=True),
    sqlite_with_rowid=False,  # the key is the table: no second copy of it as an index
)

# Users' own throughput measurements and the calibrations that put them on the published
# scale (pricing/measurement_store.py reads and writes them).
_OFFER_FIELDS = _FIELDS_THEN


@dataclass(frozen=True, slots=True)
class Run:
    id: int
    adapter: str
    started_at: datetime
    finished_at: datetime
    status: str
    row_count: int
    error: str
    source_version: str
    worker: str = ""  # host:pid of the process that ran it


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back naive; they were written as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _listed(adapter: str, run_id: int | None) -> Select[Any]:
    """The adapter's listings and prices, now (``run_id`` None) or at one of its runs: each
    listing's last change at or before it, where that change is a price."""
    if run_id is None:
        return (
            select(*_LISTING_COLUMNS, listings.c.usd_per_hour)
            .where(listings.c.adapter == adapter, listings.c.usd_per_hour.is_not(None))
            .order_by(listings.c.id)
        )
    earlier = price_changes.alias("earlier")
    last_change = (
        select(func.max(earlier.c.run_id))
        .where(earlier.c.listing_id == listings.c.id, earlier.c.run_id <= run_id)
        .scalar_subquery()
    )
    return (
        select(*_LISTING_COLUMNS, price_changes.c.usd_per_hour)
        .join_from(
            listings,
            price_changes,
            (price_changes.c.listing_id == listings.c.id) & (price_changes.c.run_id == last_change),
        )
        .where(listings.c.adapter == adapter, price_changes.c.usd_per_hour.is_not(None))
        .order_by(listings.c.id)
    )


# Digests looked up per statement: well under SQLite's and PostgreSQL's parameter limits.
LOOKUP_CHUNK = 500


def _write_changes(conn: Connection, adapter: str, run: Run, batch: Sequence[Offer]) -> None:
    """Write what ``run`` changes against the adapter's listed prices (pricing/changes.py)."""
    read_days = frozenset({run.started_at.date().isoformat(), run.finished_at.date().isoformat()})
    incoming = listed(batch, read_days)
    listed_now = {
        row.digest: (row.id, row.usd_per_hour)
        for row in conn.execute(
            select(listings.c.id, listings.c.digest, listings.c.usd_per_hour).where(
                listings.c.adapter == adapter, listings.c.usd_per_hour.is_not(None)
            )
        )
    }
    found = diff(listed_now, incoming)
    moved = list(found.moved)
    if found.unseen:  # new to the current catalog; stored before perhaps, then gone
        known: dict[bytes, int] = {}
        for chunk in chunks([offer.digest for offer in found.unseen], LOOKUP_CHUNK):
            query = select(listings.c.digest, listings.c.id).where(
                listings.c.adapter == adapter, listings.c.digest.in_(chunk)
            )
            known.update((row.digest, row.id) for row in conn.execute(query))
        moved += [(known[o.digest], o.usd_per_hour) for o in found.unseen if o.digest in known]
        fresh = [offer for offer in found.unseen if offer.digest not in known]
        if fresh:
            made = insert(listings).returning(listings.c.id, sort_by_parameter_order=True)
            ids = conn.execute(made, [offer.row(adapter) for offer in fresh]).scalars().all()
            created = [(i, o.usd_per_hour) for i, o in zip(ids, fresh, strict=True)]
            conn.execute(
                insert(price_changes),
                [{"listing_id": i, "run_id": run.id, "usd_per_hour": usd} for i, usd in created],
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


_LISTING_COLUMNS = tuple(listings.c[name] for name in LISTING_FIELDS)
_offer_values = operator.itemgetter(*_OFFER_FIELDS)  # a mapping row -> its fields, in order


def _offer(row: Row[Any], read_day: str) -> Offer:
    """``read_day``: the day of the run that read the row, for a price_as_of stored as
    that day (pricing/changes.py)."""
    # one C-level lookup of every field: a catalog is thousands of rows read at every start
    values = dict(zip(_OFFER_FIELDS, _offer_values(row._mapping), strict=True))
    values["pricing"] = PricingModel(values["pricing"])
    if values["price_as_of"] == READ_ON_RUN_DAY:
        values["price_as_of"] = read_day
    return Offer(**values)


def _run(row: Row[Any]) -> Run:
    return Run(
        id=row.id,
        adapter=row.adapter,
        started_at=_aware(row.started_at),
        finished_at=_aware(row.finished_at),
        status=row.status,
        row_count=row.row_count,
        error=row.error,
        source_version=row.source_version,
        worker=row.worker,
    )


# -- one writer at a time ------------------------------------------------------------------
