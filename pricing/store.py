"""The price store: refresh runs and their offers, in SQLite or PostgreSQL (SQLAlchemy 2 Core).

A run and all its offers are written in one transaction, so a run is either complete and
current or absent: a crash mid-write leaves the previous run serving. The current catalog is
the offers of each adapter's latest ``ok`` run; older runs are the price history.
"""

from __future__ import annotations

import operator
import os
import socket
from collections.abc import Callable, Sequence
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
    MetaData,
    Row,
    String,
    Table,
    Text,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
)
from sqlalchemy.engine import make_url

from pricing import schema
from pricing.offer import BUNDLED, TEXT_LIMITS, Offer, PricingModel, StoredOffer

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
)

offers = Table(
    "offers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("provider", String(TEXT_LIMITS["provider"]), nullable=False),
    Column("service", String(TEXT_LIMITS["service"]), nullable=False),
    Column("product", String(TEXT_LIMITS["product"]), nullable=False),
    Column("region", String(TEXT_LIMITS["region"]), nullable=False),
    Column("zone", String(TEXT_LIMITS["zone"]), nullable=False),
    Column("accelerator", String(TEXT_LIMITS["accelerator"]), nullable=False),
    Column("count", Integer, nullable=False),
    Column("memory_gb", Float, nullable=True),
    Column("pricing", String(TEXT_LIMITS["pricing"]), nullable=False),
    Column("usd_per_hour", Float, nullable=False),
    Column("host_included", Boolean, nullable=False),
    Column("estimated", Boolean, nullable=False),
    Column("suspect", Boolean, nullable=False),
    Column("confidence", String(TEXT_LIMITS["confidence"]), nullable=False),
    Column("price_as_of", String(TEXT_LIMITS["price_as_of"]), nullable=False),
    Column("source", Text, nullable=False),
    Column("notes", Text, nullable=False),
    Column("market", String(TEXT_LIMITS["market"]), nullable=False, server_default="cloud"),
    Column("reliability", Float, nullable=True),
    Column("interruption", String(TEXT_LIMITS["interruption"]), nullable=False, server_default=""),
    Index("ix_offers_run_id", "run_id"),
    Index("ix_offers_accelerator", "accelerator"),
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


class Store:
    """Runs and offers behind one SQLAlchemy engine; safe to share across threads."""

    def __init__(self, url: str, statement_timeout_seconds: float | None = None) -> None:
        """``statement_timeout_seconds`` bounds every statement (PostgreSQL) and every wait
        for a lock (SQLite's busy timeout), so a held lock fails a request, never hangs it."""
        self.url = url
        self.engine: Engine = _make_engine(url, statement_timeout_seconds)

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
        """Write a complete run in one transaction; it is current from the commit on."""
        with self.engine.begin() as conn:
            run = _insert_run(conn, adapter, started_at, "ok", len(batch), "", source_version)
            if batch:
                conn.execute(insert(offers), [_offer_row(run.id, o) for o in batch])
        return run

    def record_failure(self, adapter: str, started_at: datetime, error: str) -> Run:
        with self.engine.begin() as conn:
            return _insert_run(conn, adapter, started_at, "failed", 0, error[:4000], "")

    def prune(self, adapter: str, keep_after: datetime) -> int:
        """Delete the adapter's runs that finished before ``keep_after``, never the current."""
        current = self.current_runs().get(adapter)
        old = select(runs.c.id).where(runs.c.adapter == adapter, runs.c.finished_at < keep_after)
        if current is not None:
            old = old.where(runs.c.id != current.id)
        with self.engine.begin() as conn:
            ids = list(conn.execute(old).scalars())
            if ids:
                conn.execute(delete(offers).where(offers.c.run_id.in_(ids)))
                conn.execute(delete(runs).where(runs.c.id.in_(ids)))
        return len(ids)

    # -- reading -------------------------------------------------------------------------

    def catalog_version(self) -> int:
        """Changes whenever a run becomes current: cheap enough to ask every few seconds."""
        with self.engine.connect() as conn:
            value = conn.execute(select(func.max(runs.c.id)).where(runs.c.status == "ok"))
            return value.scalar() or 0

    def current_runs(self, at: datetime | None = None) -> dict[str, Run]:
        """Each source's current run: its latest ok run, or the latest finished by ``at``."""
        ok = runs.c.status == "ok"
        if at is not None:
            ok = ok & (runs.c.finished_at <= at)
        latest = select(func.max(runs.c.id)).where(ok).group_by(runs.c.adapter).scalar_subquery()
        with self.engine.connect() as conn:
            rows = conn.execute(select(runs).where(runs.c.id.in_(latest))).all()
        return {row.adapter: _run(row) for row in rows}

    def first_run_finished(self) -> datetime | None:
        """When the oldest ok run still stored finished: how far back ``at`` can see."""
        with self.engine.connect() as conn:
            value = conn.execute(select(func.min(runs.c.finished_at)).where(runs.c.status == "ok"))
            first = value.scalar()
        return _aware(first) if first is not None else None

    def current_offers(
        self, adapter: str | None = None, at: datetime | None = None
    ) -> list[StoredOffer]:
        """The served catalog, now or as it was at ``at``. Bundled rows stand in only for
        clouds with no live run."""
        current = self.current_runs(at)
        if adapter is not None:
            current = {k: v for k, v in current.items() if k == adapter}
        if not current:
            return []
        by_run = {run.id: run for run in current.values()}
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(offers).where(offers.c.run_id.in_(by_run)).order_by(offers.c.id)
            ).all()
        stored = [
            StoredOffer(_offer(row), row.run_id, _aware(by_run[row.run_id].finished_at))
            for row in rows
        ]
        bundled_run = current.get(BUNDLED)
        if bundled_run is None:
            return stored
        # A cloud counts as live when its own adapter's run has rows: never by a row's
        # provider text, which a custom import or any other source could set to "aws".
        live = {by_run[s.run_id].adapter for s in stored if s.run_id != bundled_run.id}
        return [s for s in stored if s.run_id != bundled_run.id or s.offer.provider not in live]

    def history(
        self,
        since: datetime,
        accelerator: str | None = None,
        provider: str | None = None,
        region_prefix: str | None = None,
        pricing: str | None = None,
        limit: int = 10_000,
        offset: int = 0,
    ) -> list[StoredOffer]:
        """Offers of every ok run finished since ``since``, oldest first: the price series."""
        query = (
            select(offers, runs.c.finished_at)
            .join(runs, runs.c.id == offers.c.run_id)
            .where(runs.c.status == "ok", runs.c.finished_at >= since)
            .order_by(runs.c.finished_at, offers.c.id)
            .offset(offset)
            .limit(limit)
        )
        if accelerator:
            query = query.where(offers.c.accelerator == accelerator)
        if provider:
            query = query.where(offers.c.provider == provider)
        if region_prefix:
            query = query.where(offers.c.region.startswith(region_prefix, autoescape=True))
        if pricing:
            query = query.where(offers.c.pricing == pricing)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [StoredOffer(_offer(row), row.run_id, _aware(row.finished_at)) for row in rows]

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


_offer_values = operator.itemgetter(*_OFFER_FIELDS)  # a mapping row -> its fields, in order


def _offer_row(run_id: int, offer: Offer) -> dict[str, object]:
    row: dict[str, object] = {name: getattr(offer, name) for name in _OFFER_FIELDS}
    row["pricing"] = str(offer.pricing)
    row["run_id"] = run_id
    return row


def _offer(row: Row[Any]) -> Offer:
    # one C-level lookup of every field: a catalog is thousands of rows read at every start
    values = dict(zip(_OFFER_FIELDS, _offer_values(row._mapping), strict=True))
    values["pricing"] = PricingModel(values["pricing"])
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


# -- serialized read-merge-write runs (custom imports) -----------------------------------------

# Arbitrary constant naming "a read-merge-write run" among this database's advisory locks
# (pricing/schema.py holds 7_260_001, service/jobs/scheduler.py 7_260_002).
MERGE_LOCK = 7_260_004

# The next run from the adapter's current offers: (offers, source_version).
NextRun = Callable[[list[Offer]], tuple[Sequence[Offer], str]]


def record_merged_run(store: Store, adapter: str, build: NextRun, started_at: datetime) -> Run:
    """Read the adapter's current offers, build the next run from them and write it in one
    transaction under a per-database lock, so two imports at once both land: without it
    each reads the same old run and the later commit drops the other's rows."""
    with store.engine.connect() as conn:
        _lock_merges(conn)
        batch, version = build(_current_offers_of(conn, adapter))
        run = _insert_run(conn, adapter, started_at, "ok", len(batch), "", version)
        if batch:
            conn.execute(insert(offers), [_offer_row(run.id, o) for o in batch])
        conn.commit()
    return run


def _lock_merges(conn: Connection) -> None:
    """Take the lock before the read; the transaction's end releases it."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(MERGE_LOCK)))
    else:
        # SQLite: the write lock, taken now rather than at the first INSERT, so no other
        # writer can commit between this read and this write (waits up to the busy timeout).
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def _current_offers_of(conn: Connection, adapter: str) -> list[Offer]:
    latest = (
        select(func.max(runs.c.id))
        .where(runs.c.adapter == adapter, runs.c.status == "ok")
        .scalar_subquery()
    )
    query = select(offers).where(offers.c.run_id == latest).order_by(offers.c.id)
    return [_offer(row) for row in conn.execute(query).all()]
