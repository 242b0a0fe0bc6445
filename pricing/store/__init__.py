"""The price store: refresh runs and the prices they read, in SQLite or PostgreSQL (Core).

Each offer is stored once as a listing and each price once per change (pricing/changes.py);
changes older than a month of runs are packed a month to a row (pricing/packs.py). A run and
all it changes are written in one transaction, under one write lock: a run is either
complete and current or absent, and a crash mid-write leaves the previous run serving. The
current catalog is every source's latest ``ok`` run, read from the listings alone; the
catalog of a past moment, each source's latest ``ok`` run by then, is each listing's last
change at or before that run. Readers read in one snapshot, so a run landing meanwhile is
seen whole or not at all.
"""

from __future__ import annotations

import math
import os
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Row,
    String,
    Table,
    Text,
    bindparam,
    case,
    create_engine,
    delete,
    event,
    false,
    func,
    insert,
    null,
    select,
    true,
    update,
)
from sqlalchemy.engine import make_url

from pricing import changes, schema
from pricing.changes import DESCRIPTIVE_FIELDS, LISTING_FIELDS, READ_ON_RUN_DAY
from pricing.offer import BUNDLED, TEXT_LIMITS, Offer, PriceSpan, PricingModel, StoredOffer
from pricing.packs import KEEP_RAW_RUNS, PACK_EVERY_RUNS, Pack, price_at

metadata = MetaData()

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("adapter", String(64), nullable=False, index=True),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("status", String(16), nullable=False),  # ok, failed
    Column("row_count", Integer, nullable=False, default=0),
    Column("error", Text, nullable=False, default=""),
    Column("source_version", String(200), nullable=False, default=""),
    Column("worker", String(200), nullable=False, default="", server_default=""),
    # Its changes, and every earlier run's of its source, are in price_packs now.
    Column("packed", Boolean, nullable=False, default=False, server_default=false()),
)

# Each offer a source has listed, once: every field but the price (pricing/changes.py). A
# listing whose fields change (a new note, another interruption band) is a new listing; a
# new price is a row of price_changes.
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


def _listing_key() -> Column[int]:
    """The first half of a change's key: its listing (a Column belongs to one table)."""
    return Column(
        "listing_id",
        Integer,
        ForeignKey("listings.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )


# A listing's price from a run on, until the listing's next change; NULL: that run no longer
# listed it. Keyed (listing, run), which is also how it is read: a listing's price at a run is
# its last change at or before it. A month of changes stays here, older ones are packed
# (price_packs). run_id is not a foreign key: pruning keeps every run a change refers to.
price_changes = Table(
    "price_changes",
    metadata,
    _listing_key(),
    Column("run_id", Integer, primary_key=True, autoincrement=False),
    Column("usd_per_hour", Float, nullable=True),
    # what changed after a run: a past moment is the current catalog less that
    Index("ix_price_changes_run", "run_id"),
    sqlite_with_rowid=False,  # the key is the table: no second copy of it as an index
)

# A listing's changes over a range of runs, packed into one row once they are older than its
# source's latest KEEP_RAW_RUNS runs (pricing/packs.py): 12 bytes a change instead of ~64.
# A listing's packs come before its rows in price_changes, and never overlap.
price_packs = Table(
    "price_packs",
    metadata,
    _listing_key(),
    Column("first_run", Integer, primary_key=True, autoincrement=False),
    Column("last_run", Integer, nullable=False),
    Column("closing_price", Float, nullable=True),  # after last_run; NULL: no longer listed
    Column("runs", LargeBinary, nullable=False),
    Column("prices", LargeBinary, nullable=False),
    Index("ix_price_packs_last_run", "last_run"),
    sqlite_with_rowid=False,
)

# Users' own throughput measurements and the calibrations that put them on the published
# scale (pricing/measurement_store.py reads and writes them).
calibrations = Table(
    "calibrations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("accelerator", String(64), nullable=False),
    Column("workload", String(16), nullable=False),
    Column("size", String(16), nullable=False),
    Column("samples_per_second", Float, nullable=False),
    Column("published_relative", Float, nullable=False),
    Column("device_name", String(200), nullable=False),
    Column("host", String(200), nullable=False),
    Column("software", String(200), nullable=False),
    Column("measured_at", DateTime(timezone=True), nullable=False),
)

measurements = Table(
    "measurements",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("accelerator", String(64), nullable=False, index=True),
    Column("workload", String(16), nullable=False),
    Column("size", String(16), nullable=False),
    Column("samples_per_second", Float, nullable=False),
    Column("spread", Float, nullable=False),
    Column("relative", Float, nullable=True),
    Column("calibration", Text, nullable=False),
    Column("device_name", String(200), nullable=False),
    Column("memory_gb", Float, nullable=True),
    Column("power_limit_w", Float, nullable=True),
    Column("host", String(200), nullable=False),
    Column("software", String(200), nullable=False),
    Column("measured_at", DateTime(timezone=True), nullable=False),
)

_OFFER_FIELDS = tuple(f.name for f in fields(Offer))


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
    packed: bool = False  # its changes are packed (pricing/packs.py)


@dataclass(frozen=True, slots=True)
class ProviderStatus:
    adapter: str
    current: Run | None  # latest ok run: what is served
    last_attempt: Run  # latest run of any status

    @property
    def last_error(self) -> str:
        return self.last_attempt.error if self.last_attempt.status != "ok" else ""


def utcnow() -> datetime:
    return datetime.now(UTC)


def this_worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back naive; they were written as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _utc(moment: datetime) -> datetime:
    """A moment as UTC before it reaches SQL (naive ones are taken as UTC): SQLite compares
    the stored text, so 19:30+01:00 and 18:30Z must be written alike to be one instant."""
    return _aware(moment).astimezone(UTC)


class Store:
    """Runs and prices behind one SQLAlchemy engine; safe to share across threads."""

    def __init__(self, url: str, statement_timeout_seconds: float | None = None) -> None:
        """``statement_timeout_seconds`` bounds every statement (PostgreSQL) and every wait
        for a lock (SQLite's busy timeout), so a held lock fails a request, never hangs it."""
        self.url = url
        self.engine: Engine = _make_engine(url, statement_timeout_seconds)
        # When each run started and finished, as history has needed them: a run never
        # changes once written, so what is remembered stays true (a pruned run is simply
        # never asked for again).
        self._run_times: dict[int, tuple[datetime, datetime]] = {}

    def create_schema(self) -> None:
        """Migrate to the current schema (Alembic): see pricing/schema.py."""
        schema.upgrade(self.engine)

    def dispose(self) -> None:
        self.engine.dispose()

    # -- writing -------------------------------------------------------------------------

    def record_run(
        self,
        adapter: str,
        batch: Sequence[Offer],
        started_at: datetime,
        source_version: str = "",
    ) -> Run:
        """Write a complete run in one transaction; it is current from the commit on. Only
        the prices it changes are written (pricing/changes.py)."""
        with self.engine.connect() as conn:
            _lock_writes(conn)
            run = _insert_run(conn, adapter, started_at, "ok", len(batch), "", source_version)
            _write_changes(conn, adapter, run, batch)
            conn.commit()
        return run

    def record_failure(self, adapter: str, started_at: datetime, error: str) -> Run:
        with self.engine.begin() as conn:
            return _insert_run(conn, adapter, started_at, "failed", 0, error[:4000], "")

    def prune(self, adapter: str, keep_after: datetime) -> int:
        """Forget the adapter's prices before ``keep_after``: the changes superseded by then,
        the listings nothing is left of, and the runs no change refers to (never the
        current one). Every listing keeps the price it had at ``keep_after``, so any later
        moment is still answered whole. Returns how many runs went."""
        with self.engine.connect() as conn:
            _lock_writes(conn)
            pruned = _prune(conn, adapter, _utc(keep_after))
            conn.commit()
        return pruned

    def pack(self, adapter: str) -> int:
        """Pack the adapter's older changes when enough have gathered (pricing/packs.py);
        cheap to call after every run. Returns how many changes it packed."""
        with self.engine.connect() as conn:
            _lock_writes(conn)
            packed = _pack(conn, adapter)
            conn.commit()
        if packed and self.engine.dialect.name == "postgresql":
            # The packed rows' space, free for the next month's rows now rather than when
            # autovacuum gets to it; SQLite reuses freed pages by itself.
            with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.exec_driver_sql("VACUUM (ANALYZE) price_changes")
        return packed

    # -- reading -------------------------------------------------------------------------

    def catalog_version(self) -> int:
        """Changes whenever a run becomes current: cheap enough to ask every few seconds."""
        with self.engine.connect() as conn:
            value = conn.execute(select(func.max(runs.c.id)).where(runs.c.status == "ok"))
            return value.scalar() or 0

    def check_readable(self) -> None:
        """Raise as an answer would if a table the answers read (every table here) is gone
        or locked: one key of one row of each. For readiness, which asked only the catalog
        version, so it saw the runs alone."""
        with self.engine.connect() as conn:
            for table in metadata.sorted_tables:
                conn.execute(select(*table.primary_key.columns).limit(1)).first()

    def current_runs(self, at: datetime | None = None) -> dict[str, Run]:
        """Each source's current run: its latest ok run, or the latest finished by ``at``."""
        with self.engine.connect() as conn:
            return _current_runs(conn, at)

    def first_run_finished(self) -> datetime | None:
        """When the oldest ok run still stored finished: how far back ``at`` can see."""
        with self.engine.connect() as conn:
            value = conn.execute(select(func.min(runs.c.finished_at)).where(runs.c.status == "ok"))
            first = value.scalar()
        return _aware(first) if first is not None else None

    def current_offers(
        self,
        adapter: str | None = None,
        at: datetime | None = None,
        accelerator: str | None = None,
        runs_then: dict[str, Run] | None = None,
    ) -> list[StoredOffer]:
        """The served catalog, now or as it was at ``at``, of one accelerator or all. Bundled
        rows stand in only for clouds with no live run. ``runs_then``: the runs ``at`` was
        already found to read (``current_runs(at)``; a past moment's runs never change)."""
        with self._snapshot() as conn:
            current = runs_then if at is not None and runs_then else _current_runs(conn, at)
            if adapter is not None:
                current = {k: v for k, v in current.items() if k == adapter}
            served: list[StoredOffer] = []
            for name, run in sorted(current.items()):
                day = run.started_at.date().isoformat()
                served += [
                    StoredOffer(_offer(row, day, usd), run.id, run.finished_at)
                    for row, usd in _listed(conn, name, None if at is None else run, accelerator)
                ]
        bundled_run = current.get(BUNDLED)
        if bundled_run is None:
            return served
        # A cloud counts as live when its own adapter's run has rows: never by a row's
        # provider text, which a custom import or any other source could set to "aws".
        live = {name for name, run in current.items() if name != BUNDLED and run.row_count}
        return [s for s in served if s.run_id != bundled_run.id or s.offer.provider not in live]

    def history(
        self,
        since: datetime,
        accelerator: str | None = None,
        provider: str | None = None,
        region_prefix: str | None = None,
        pricing: str | None = None,
        limit: int = 10_000,
        offset: int = 0,
        after: HistoryCursor | None = None,
    ) -> HistoryPage:
        """The prices held since ``since``, each once with the span it held: offer by offer,
        each offer's prices oldest first; nothing is known to hold after now. A page starts
        after the span ``after`` names, skips ``offset`` spans and holds ``limit``.

        A page reads the listings in id order, a window at a time, and only those with a
        span ending after ``since`` (listed now, or changed since), so it costs what it
        returns. It stops reading after HISTORY_SCAN_LISTINGS listings even when it is not
        full: its ``resume`` then says where the next page goes on."""
        since = _utc(since)
        if since > utcnow():
            return HistoryPage([], None, offset)
        chosen: list[Any] = []
        if accelerator:
            chosen.append(listings.c.accelerator == accelerator)
        if provider:
            chosen.append(listings.c.provider == provider)
        if region_prefix:
            chosen.append(listings.c.region.startswith(region_prefix, autoescape=True))
        if pricing:
            chosen.append(listings.c.pricing == pricing)
        start_listing, start_run = after if after is not None else (0, -1)
        spans: list[_Span] = []
        skip = offset
        with self._snapshot() as conn:
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
                batch = conn.execute(
                    query.where(listings.c.id > lower, listings.c.id <= upper)
                ).all()
                for span in _spans(conn, batch, since, first_after, self._times_of):
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
                PriceSpan(_offer(row, began.date().isoformat(), usd, 1), run_id, finished, until)
                for row, run_id, usd, began, finished, until in spans
            ],
            resume,
            skip,
        )

    def run_counts(self) -> dict[tuple[str, str], int]:
        """Runs kept in the store per (adapter, status): for /metrics."""
        query = select(runs.c.adapter, runs.c.status, func.count()).group_by(
            runs.c.adapter, runs.c.status
        )
        with self.engine.connect() as conn:
            return {(a, s): n for a, s, n in conn.execute(query).all()}

    def provider_status(self) -> list[ProviderStatus]:
        current = self.current_runs()
        latest = select(func.max(runs.c.id)).group_by(runs.c.adapter).scalar_subquery()
        with self.engine.connect() as conn:
            rows = conn.execute(select(runs).where(runs.c.id.in_(latest))).all()
        return sorted(
            (ProviderStatus(row.adapter, current.get(row.adapter), _run(row)) for row in rows),
            key=lambda status: status.adapter,
        )

    def _times_of(self, conn: Connection, wanted: set[int]) -> dict[int, tuple[datetime, datetime]]:
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

    @contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """One view of the store for several statements, so a run that lands between them
        is seen whole or not at all."""
        with self.engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                conn.exec_driver_sql("BEGIN")  # WAL: the snapshot holds from the first read
            else:
                conn.execution_options(isolation_level="REPEATABLE READ")
            try:
                yield conn
            finally:
                conn.rollback()


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
    in listing order. A past run's catalog of a few listings (PAST_LOOKUPS) looks each one
    up; a larger one is the current catalog less the listings that changed after the run,
    those read as they were then: it costs what is listed and what moved since, never the
    whole history of every listing the source ever had."""
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
    few = select(listings.c.id).where(*chosen).limit(PAST_LOOKUPS + 1)
    if len(conn.execute(few).all()) <= PAST_LOOKUPS:  # one accelerator's, say: look each up
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
    raw, earlier = price_changes.alias("raw"), price_changes.alias("earlier")
    last_raw = (
        select(func.max(earlier.c.run_id))
        .where(earlier.c.listing_id == listings.c.id, earlier.c.run_id <= run_id)
        .scalar_subquery()
    )
    pack, earlier_pack = price_packs.alias("pack"), price_packs.alias("earlier_pack")
    last_pack = (
        select(func.max(earlier_pack.c.first_run))
        .where(earlier_pack.c.listing_id == listings.c.id, earlier_pack.c.first_run <= run_id)
        .scalar_subquery()
    )
    inside = pack.c.last_run > run_id  # the run falls within the pack: read its changes
    joined = listings.outerjoin(
        pack, (pack.c.listing_id == listings.c.id) & (pack.c.first_run == last_pack)
    )
    if run.packed:  # no row holds a change this old: skip looking
        raw_columns = [null().label("raw_run"), null().label("raw_price")]
    else:
        raw_columns = [raw.c.run_id.label("raw_run"), raw.c.usd_per_hour.label("raw_price")]
        joined = joined.outerjoin(
            raw, (raw.c.listing_id == listings.c.id) & (raw.c.run_id == last_raw)
        )
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


# Digests looked up per statement: well under SQLite's and PostgreSQL's parameter limits.
LOOKUP_CHUNK = 500


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


# Runs whose times a store remembers before it starts over: ten years of 6-hourly runs of
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
        conn.execute(insert(price_packs), [_pack_row(i, seq) for i, seq in by_listing.items()])
        conn.execute(delete(price_changes).where(old))
    conn.execute(
        update(runs).where(runs.c.adapter == adapter, runs.c.id <= cutoff).values(packed=True)
    )
    return sum(len(seq) for seq in by_listing.values())


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


# Without a statement timeout: how long SQLite waits for another writer's lock (as before).
SQLITE_BUSY_TIMEOUT_S = 30.0
# A database that does not answer a connection attempt is away; no request waits longer.
CONNECT_TIMEOUT_S = 5
# How long a request waits for a pooled connection when all are busy.
POOL_TIMEOUT_S = 10.0


def _make_engine(url: str, statement_timeout_seconds: float | None = None) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(
            url,
            pool_pre_ping=True,
            pool_timeout=POOL_TIMEOUT_S,
            hide_parameters=True,
            connect_args=_postgres_options(parsed.get_backend_name(), statement_timeout_seconds),
        )
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    busy = SQLITE_BUSY_TIMEOUT_S if statement_timeout_seconds is None else statement_timeout_seconds
    engine = create_engine(url, connect_args={"timeout": busy}, hide_parameters=True)

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # WAL lets web workers read while a refresh writes; foreign keys are off by default.
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    return engine


def _postgres_options(backend: str, statement_timeout_seconds: float | None) -> dict[str, Any]:
    if backend != "postgresql":
        return {}
    options: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S}
    if statement_timeout_seconds is not None:
        milliseconds = max(1, round(statement_timeout_seconds * 1000))
        options["options"] = f"-c statement_timeout={milliseconds}"
    return options


# The listing columns a read selects, in Offer's order; each read gives the price itself.
_LISTING_COLUMNS = tuple(listings.c[name] for name in LISTING_FIELDS)
_LISTED = len(LISTING_FIELDS)  # a read's first columns: the listing's, in this order
_DESCRIPTIVE_COLUMNS = tuple(listings.c[name] for name in DESCRIPTIVE_FIELDS)
# An update's parameters for them (a parameter may not share its column's name).
_NEW_DESCRIPTION = {name: f"new_{name}" for name in DESCRIPTIVE_FIELDS}
_PRICING_MODELS = {model.value: model for model in PricingModel}
# Where Offer's positional arguments put the pricing, the price and its date.
_PRICING_AT = LISTING_FIELDS.index("pricing")
_AS_OF_AT = LISTING_FIELDS.index("price_as_of")
_PRICE_AT = _OFFER_FIELDS.index("usd_per_hour")


def _offer(row: Row[Any], read_day: str, usd_per_hour: float, start: int = 0) -> Offer:
    """``row[start:]`` holds the listing's columns in _LISTING_COLUMNS' order; ``read_day``
    is the day of the run that read it, for a price_as_of stored as that day."""
    # a slice and positional arguments, not a lookup by name per field: a catalog is a
    # hundred thousand rows read at every start, a past one thousands per question
    values = list(row[start : start + _LISTED])
    values[_PRICING_AT] = _PRICING_MODELS[values[_PRICING_AT]]
    if values[_AS_OF_AT] == READ_ON_RUN_DAY:
        values[_AS_OF_AT] = read_day
    values.insert(_PRICE_AT, usd_per_hour)
    return Offer(*values)


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
        packed=row.packed,
    )


# -- one writer at a time ------------------------------------------------------------------

# Arbitrary constant naming "a price write" among this database's advisory locks
# (pricing/schema.py holds 7_260_001, service/jobs/scheduler.py 7_260_002).
WRITE_LOCK = 7_260_004

# The next run from the adapter's current offers: (offers, source_version).
NextRun = Callable[[list[Offer]], tuple[Sequence[Offer], str]]


def record_merged_run(store: Store, adapter: str, build: NextRun, started_at: datetime) -> Run:
    """Read the adapter's current offers, build the next run from them and write it in one
    transaction under the write lock, so two imports at once both land: without it each
    reads the same old run and the later commit drops the other's rows."""
    with store.engine.connect() as conn:
        _lock_writes(conn)
        current = _current_runs(conn, None).get(adapter)
        day = current.started_at.date().isoformat() if current else ""
        now = [_offer(row, day, usd) for row, usd in _listed(conn, adapter, None)]
        batch, version = build(now)
        run = _insert_run(conn, adapter, started_at, "ok", len(batch), "", version)
        _write_changes(conn, adapter, run, batch)
        conn.commit()
    return run


def _lock_writes(conn: Connection) -> None:
    """Every price write holds this from before its first read to its commit: a run is
    diffed against the prices it replaces, so no other write may land in between."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(WRITE_LOCK)))
    else:
        # SQLite: the write lock, taken now rather than at the first INSERT, so no other
        # writer can commit between this read and this write (waits up to the busy timeout).
        conn.exec_driver_sql("BEGIN IMMEDIATE")
