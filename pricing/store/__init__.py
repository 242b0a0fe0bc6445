"""The price store: refresh runs and the prices they read, in SQLite or PostgreSQL (Core).

Each offer is stored once as a listing and each price once per change (pricing/changes.py);
changes older than a month of runs are packed a month to a row (pricing/packs.py). A run and
all it changes are written in one transaction, under one write lock: a run is either
complete and current or absent, and a crash mid-write leaves the previous run serving. The
current catalog is every source's latest ``ok`` run, read from the listings alone; the
catalog of a past moment, each source's latest ``ok`` run by then, is each listing's last
change at or before that run. Readers read in one snapshot, so a run landing meanwhile is
seen whole or not at all.

A failure of the database reaches callers as the store's own error (pricing/errors.py:
StoreError, StoreUnavailable), never as SQLAlchemy's. The package, one module per job:

  tables.py    the tables
  records.py   what the store hands out (Run, ProviderStatus) and how rows become offers
  connect.py   engines, SQLite's pragmas, timeouts, snapshots, the store's errors
  locks.py     the write lock, and session locks that die with their holder
  read.py      the catalog now and at a past run
  write.py     a run and what it changes
  history.py   price spans since a moment, a page at a time
  series.py    each day's low and median per accelerator, provider and tier
  fx.py        the exchange rates a refresh fetched
  upkeep.py    packing and pruning
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime

from sqlalchemy import Connection, Engine, func, select

from pricing import schema
from pricing.errors import RunSuperseded
from pricing.fx import EuroRate
from pricing.listed import Listed, listed_offer
from pricing.offer import BUNDLED, Offer, PriceLine, StoredOffer
from pricing.store.connect import (
    _make_engine,
    connection,
    snapshot,
    store_errors,
    transaction,
)
from pricing.store.fx import _read_rates, _write_rates
from pricing.store.history import HistoryCursor, HistoryPage, RunTimes, _chosen, _page
from pricing.store.locks import (
    LockHolder,
    SessionLock,
    _lock_writes,
    end_sessions,
    session_lock_holder,
    try_session_lock,
)
from pricing.store.read import _current_runs, _listed
from pricing.store.records import (
    ProviderStatus,
    Run,
    _aware,
    _run,
    _utc,
    utcnow,
)
from pricing.store.series import _read_series, _write_series
from pricing.store.tables import (
    calibrations,
    listings,
    measurements,
    metadata,
    price_changes,
    price_packs,
    price_series,
    runs,
)
from pricing.store.upkeep import _pack, _prune
from pricing.store.write import NextRun, _insert_run, _write_changes

__all__ = [
    "HistoryCursor",
    "HistoryPage",
    "Listed",
    "LockHolder",
    "NextRun",
    "ProviderStatus",
    "Run",
    "SessionLock",
    "Store",
    "calibrations",
    "listings",
    "measurements",
    "metadata",
    "price_changes",
    "price_packs",
    "price_series",
    "runs",
    "utcnow",
]


class Store:
    """Runs and prices behind one SQLAlchemy engine; safe to share across threads."""

    def __init__(self, url: str, statement_timeout_seconds: float | None = None) -> None:
        """``statement_timeout_seconds`` bounds every statement (PostgreSQL) and every wait
        for a lock (SQLite's busy timeout), so a held lock fails a request, never hangs it."""
        self.url = url
        with store_errors():  # a URL SQLAlchemy cannot read, or a driver it cannot load
            self.engine: Engine = _make_engine(url, statement_timeout_seconds)
        self._run_times = RunTimes()

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``: which database the URL names."""
        return self.engine.url.get_backend_name()

    @property
    def database(self) -> str | None:
        """The URL's database: a SQLite file's path (``:memory:`` or None in memory), a
        PostgreSQL database's name."""
        return self.engine.url.database

    def create_schema(self) -> None:
        """Migrate to the current schema (Alembic): see pricing/schema.py."""
        with store_errors():
            schema.upgrade(self.engine)

    def schema_revision(self) -> str | None:
        """The Alembic revision the database is at; None before the first migration."""
        with store_errors():
            return schema.current_revision(self.engine)

    def dispose(self) -> None:
        self.engine.dispose()

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        """A connection for the store's own modules (pricing/measurement_store.py): its
        failures raise the store's errors, as every method here does."""
        with connection(self.engine) as conn:
            yield conn

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A connection in a transaction, committed when the block ends without an error."""
        with transaction(self.engine) as conn:
            yield conn

    # -- writing -------------------------------------------------------------------------

    def record_run(
        self,
        adapter: str,
        batch: Sequence[Offer],
        started_at: datetime,
        source_version: str = "",
    ) -> Run:
        """Write a complete run in one transaction; it is current from the commit on. Only
        the prices it changes are written (pricing/changes.py). A run started before the
        current one is refused (RunSuperseded): its prices would replace newer ones, unless
        both read the same source version."""
        with self.connect() as conn:
            _lock_writes(conn)
            current = _current_runs(conn, None).get(adapter)
            # the same source version is the same prices (processes loading one snapshot
            # at once): harmless whichever lands last
            newer = current is not None and current.started_at > _utc(started_at)
            if newer and (not source_version or current.source_version != source_version):
                later = f"{current.started_at:%Y-%m-%d %H:%M:%S.%f}"
                this = f"{_utc(started_at):%Y-%m-%d %H:%M:%S.%f}"
                raise RunSuperseded(
                    f"run {current.id} of {adapter}, started {later} UTC, after this one "
                    f"({this}), is current: this run's older prices are not made current"
                )
            run = _insert_run(conn, adapter, started_at, "ok", len(batch), "", source_version)
            _write_changes(conn, adapter, run, batch)
            _write_series(conn, adapter, run, batch)
            conn.commit()
        return run

    def record_merged_run(self, adapter: str, build: NextRun, started_at: datetime) -> Run:
        """Read the adapter's current offers, build the next run from them and write it in one
        transaction under the write lock, so two imports at once both land: without it each
        reads the same old run and the later commit drops the other's rows."""
        with self.connect() as conn:
            _lock_writes(conn)
            current = _current_runs(conn, None).get(adapter)
            day = current.started_at.date().isoformat() if current else ""
            now = [listed_offer(row, day, usd) for row, usd in _listed(conn, adapter, None)]
            batch, version = build(now)
            run = _insert_run(conn, adapter, started_at, "ok", len(batch), "", version)
            _write_changes(conn, adapter, run, batch)
            _write_series(conn, adapter, run, batch)
            conn.commit()
        return run

    def record_failure(self, adapter: str, started_at: datetime, error: str) -> Run:
        with self.begin() as conn:
            return _insert_run(conn, adapter, started_at, "failed", 0, error[:4000], "")

    def prune(self, adapter: str, keep_after: datetime) -> int:
        """Forget the adapter's prices before ``keep_after``: the changes superseded by then,
        the listings nothing is left of, and the runs no change refers to (never the
        current one). Every listing keeps the price it had at ``keep_after``, so any later
        moment is still answered whole. Returns how many runs went."""
        with self.connect() as conn:
            _lock_writes(conn)
            pruned = _prune(conn, adapter, _utc(keep_after))
            conn.commit()
        return pruned

    def pack(self, adapter: str) -> int:
        """Pack the adapter's older changes when enough have gathered (pricing/packs.py);
        cheap to call after every run. Returns how many changes it packed."""
        with self.connect() as conn:
            _lock_writes(conn)
            packed = _pack(conn, adapter)
            conn.commit()
        if packed and self.engine.dialect.name == "postgresql":
            # The packed rows' space, free for the next month's rows now rather than when
            # autovacuum gets to it; SQLite reuses freed pages by itself.
            with (
                store_errors(),
                self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn,
            ):
                conn.exec_driver_sql("VACUUM (ANALYZE) price_changes")
        return packed

    def try_session_lock(self, key: int, name: str | None = None) -> SessionLock | None:
        """PostgreSQL's session advisory lock ``key`` (one per ``name`` when given), held on
        a connection of its own until released or its holder dies; None when another holds
        it (pricing/store/locks.py)."""
        return try_session_lock(self.engine, key, name)

    def session_lock_holder(self, key: int) -> LockHolder | None:
        """Who holds PostgreSQL's one-key session lock ``key``, and how long its session has
        been quiet; None: nobody."""
        return session_lock_holder(self.engine, key)

    def end_sessions(self, holder: LockHolder) -> bool:
        """Terminate a lock holder's sessions (a frozen process's), freeing their locks."""
        return end_sessions(self.engine, holder)

    # -- reading -------------------------------------------------------------------------

    def catalog_version(self) -> int:
        """Changes whenever a run becomes current: cheap enough to ask every few seconds."""
        with self.connect() as conn:
            value = conn.execute(select(func.max(runs.c.id)).where(runs.c.status == "ok"))
            return value.scalar() or 0

    def check_readable(self) -> None:
        """Raise as an answer would if a table the answers read (every table here) is gone
        or locked: one key of one row of each. For readiness, which asked only the catalog
        version, so it saw the runs alone."""
        with self.connect() as conn:
            for table in metadata.sorted_tables:
                conn.execute(select(*table.primary_key.columns).limit(1)).first()

    def current_runs(self, at: datetime | None = None) -> dict[str, Run]:
        """Each source's current run: its latest ok run, or the latest finished by ``at``."""
        with self.connect() as conn:
            return _current_runs(conn, at)

    def first_run_finished(self) -> datetime | None:
        """When the oldest ok run still stored finished: how far back ``at`` can see."""
        with self.connect() as conn:
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
        """The served catalog, now or as it was at ``at``, of one accelerator or all (every
        offer built: :meth:`current_listed` builds them as asked for)."""
        return list(self.current_listed(adapter, at, accelerator, runs_then))

    def current_listed(
        self,
        adapter: str | None = None,
        at: datetime | None = None,
        accelerator: str | None = None,
        runs_then: dict[str, Run] | None = None,
    ) -> Listed:
        """The served catalog, now or as it was at ``at``, of one accelerator or all, as
        listings made offers only when one is asked for. Bundled rows stand in only for
        clouds with no live run. ``runs_then``: the runs ``at`` was already found to read
        (``current_runs(at)``; a past moment's runs never change)."""
        served = Listed()
        with self._snapshot() as conn:
            current = runs_then if at is not None and runs_then else _current_runs(conn, at)
            if adapter is not None:
                current = {k: v for k, v in current.items() if k == adapter}
            for name, run in sorted(current.items()):
                listed = _listed(conn, name, None if at is None else run, accelerator)
                served.add(listed, run.id, run.finished_at, run.started_at.date().isoformat())
        bundled_run = current.get(BUNDLED)
        if bundled_run is None:
            return served
        # A cloud counts as live when its own adapter's run has rows: never by a row's
        # provider text, which a custom import or any other source could set to "aws".
        live = {name for name, run in current.items() if name != BUNDLED and run.row_count}
        if not live:
            return served
        keep = [
            run_id != bundled_run.id or provider not in live
            for run_id, provider in zip(
                served.column("run_id"), served.column("provider"), strict=True
            )
        ]
        return served.keep(keep)

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
        full: its ``resume`` then says where the next page goes on (see history.py)."""
        since = _utc(since)
        if since > utcnow():
            return HistoryPage([], None, offset)
        chosen = _chosen(accelerator, provider, region_prefix, pricing)
        with self._snapshot() as conn:
            return _page(conn, since, chosen, limit, offset, after, self._run_times)

    def series(self, accelerator: str, since: date) -> list[PriceLine]:
        """One accelerator's days since ``since``, a line per provider and tier
        (pricing/store/series.py), oldest first."""
        with self._snapshot() as conn:
            return _read_series(conn, accelerator, since)

    def write_rates(self, rates: Sequence[EuroRate], fetched_at: datetime) -> int:
        """Store a fetch of exchange rates (pricing/store/fx.py): its days replaced whole."""
        with self.begin() as conn:
            return _write_rates(conn, rates, fetched_at)

    def rates(self) -> list[EuroRate]:
        """Every exchange rate a refresh stored."""
        with self._snapshot() as conn:
            return _read_rates(conn)

    def run_counts(self) -> dict[tuple[str, str], int]:
        """Runs kept in the store per (adapter, status): for /metrics."""
        query = select(runs.c.adapter, runs.c.status, func.count()).group_by(
            runs.c.adapter, runs.c.status
        )
        with self.connect() as conn:
            return {(a, s): n for a, s, n in conn.execute(query).all()}

    def provider_status(self) -> list[ProviderStatus]:
        current = self.current_runs()
        latest = select(func.max(runs.c.id)).group_by(runs.c.adapter).scalar_subquery()
        with self.connect() as conn:
            rows = conn.execute(select(runs).where(runs.c.id.in_(latest))).all()
        return sorted(
            (ProviderStatus(row.adapter, current.get(row.adapter), _run(row)) for row in rows),
            key=lambda status: status.adapter,
        )

    @contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """One view of the store for several statements (pricing/store/connect.py)."""
        with snapshot(self.engine) as conn:
            yield conn
