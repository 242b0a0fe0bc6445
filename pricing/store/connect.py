"""How the store reaches its database: one engine per store (SQLite's pragmas and busy
timeout, PostgreSQL's connect and statement timeouts), one snapshot for a read of several
statements, and the store's own errors (pricing/errors.py) in place of SQLAlchemy's at every
way in: a connection, a transaction, a snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from pricing.errors import StoreError, StoreUnavailable
from pricing.store.records import this_worker

# Without a statement timeout: how long SQLite waits for another writer's lock (as before).
SQLITE_BUSY_TIMEOUT_S = 30.0
# A database that does not answer a connection attempt is away; no request waits longer.
CONNECT_TIMEOUT_S = 5
# How long a request waits for a pooled connection when all are busy.
POOL_TIMEOUT_S = 10.0


def _make_engine(url: str, statement_timeout_seconds: float | None = None) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(
            url,
            pool_pre_ping=True,
            pool_timeout=POOL_TIMEOUT_S,
            hide_parameters=True,
            connect_args=_postgres_options(parsed.get_backend_name(), statement_timeout_seconds),
        )
        if parsed.get_backend_name() == "postgresql":

            @event.listens_for(engine, "do_connect")
            def _named(_dialect, _record, _args, params) -> None:  # type: ignore[no-untyped-def]
                # every session names its process (at connect: a forked worker is its own),
                # so a standby that ends a frozen scheduler ends all of its sessions
                params["application_name"] = session_name()

        return engine
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


def session_name() -> str:
    """The application_name of this process's PostgreSQL sessions (63 bytes at most)."""
    host, _, pid = this_worker().rpartition(":")
    return f"breakeven {host[: 63 - len('breakeven ') - len(pid) - 1]}:{pid}"


def _postgres_options(backend: str, statement_timeout_seconds: float | None) -> dict[str, Any]:
    if backend != "postgresql":
        return {}
    options: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S}
    if statement_timeout_seconds is not None:
        milliseconds = max(1, round(statement_timeout_seconds * 1000))
        options["options"] = f"-c statement_timeout={milliseconds}"
    return options


# Digests looked up per statement: well under SQLite's and PostgreSQL's parameter limits.
LOOKUP_CHUNK = 500


@contextmanager
def store_errors() -> Iterator[None]:
    """SQLAlchemy's errors raised within as the store's own, the original as the cause: an
    OperationalError (the database did not answer, or not in time) is StoreUnavailable,
    any other (a constraint, a statement the schema refuses) StoreError."""
    try:
        yield
    except OperationalError as error:
        raise StoreUnavailable(error) from error
    except SQLAlchemyError as error:
        raise StoreError(error) from error


@contextmanager
def connection(engine: Engine) -> Iterator[Connection]:
    """A connection of the engine's pool, its failures the store's errors."""
    with store_errors(), engine.connect() as conn:
        yield conn


@contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction, committed when the block ends without an error."""
    with store_errors(), engine.begin() as conn:
        yield conn


@contextmanager
def snapshot(engine: Engine) -> Iterator[Connection]:
    """One view of the store for several statements, so a run that lands between them
    is seen whole or not at all."""
    with connection(engine) as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN")  # WAL: the snapshot holds from the first read
        else:
            conn.execution_options(isolation_level="REPEATABLE READ")
        try:
            yield conn
        finally:
            conn.rollback()
