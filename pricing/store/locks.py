"""Locks held in the database. Every price write holds the write lock, so a run is diffed
against the prices it replaces with no other write landing in between. A session lock (the
active scheduler, one provider's refresh) is held by keeping a connection of its own open:
the server drops it the moment its holder dies, so a crash never leaves one behind.

PostgreSQL's advisory locks are numbered per database: pricing/schema.py holds 7_260_001,
service/jobs/scheduler.py 7_260_002, service/jobs/locks.py 7_260_003 (one per provider) and
this module 7_260_004.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine, TextClause, func, select, text

from pricing.store.connect import store_errors

# -- one writer at a time ------------------------------------------------------------------

# Arbitrary constant naming "a price write" among this database's advisory locks
# (pricing/schema.py holds 7_260_001, service/jobs/scheduler.py 7_260_002).
WRITE_LOCK = 7_260_004


def _lock_writes(conn: Connection) -> None:
    """Every price write holds this from before its first read to its commit: a run is
    diffed against the prices it replaces, so no other write may land in between."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(WRITE_LOCK)))
    else:
        # SQLite: the write lock, taken now rather than at the first INSERT, so no other
        # writer can commit between this read and this write (waits up to the busy timeout).
        conn.exec_driver_sql("BEGIN IMMEDIATE")


# -- locks that die with their holder (PostgreSQL) ----------------------------------------


class SessionLock:
    """A PostgreSQL session advisory lock, held while its connection stays open."""

    def __init__(self, conn: Connection, key: int, name: str | None) -> None:
        self._conn = conn
        self._key = key
        self._name = name

    def still_held(self) -> bool:
        """False once the connection holding it is gone (and with it, perhaps, the lock)."""
        try:
            self._conn.execute(text("SELECT 1"))
            self._conn.commit()
            return True
        except Exception:
            return False

    def release(self) -> None:
        """Unlock and close; closing the session releases the lock even if unlocking fails."""
        try:
            with store_errors():
                self._conn.execute(*_statement("pg_advisory_unlock", self._key, self._name))
                self._conn.commit()
        finally:
            self._conn.close()


def try_session_lock(engine: Engine, key: int, name: str | None = None) -> SessionLock | None:
    """The session lock ``key`` (with ``name`` hashed into a second key: one lock per name),
    or None when another session holds it."""
    with store_errors():
        conn = engine.connect()
        if conn.execute(*_statement("pg_try_advisory_lock", key, name)).scalar():
            conn.commit()
            return SessionLock(conn, key, name)
        conn.close()
        return None


@dataclass(frozen=True)
class LockHolder:
    """The server session holding a session lock, as another session sees it."""

    pid: int  # the holder's backend process on the server
    process: str  # its client's application_name: every session of that process has it
    # since the holder's session last ran a statement; None where the server does not show
    # it (another role's session, without pg_read_all_stats)
    quiet_seconds: float | None


def session_lock_holder(engine: Engine, key: int) -> LockHolder | None:
    """Who holds the one-key session lock ``key`` in this database; None: nobody.

    A holder that polls keeps its session's ``state_change`` moving; one frozen (SIGSTOP, a
    hung thread) keeps its connection and its lock, and only this age tells it apart."""
    with store_errors(), engine.connect() as conn:
        row = conn.execute(_HOLDER, {"k": key}).first()
    if row is None:
        return None
    quiet = None if row.quiet is None else float(row.quiet)
    return LockHolder(int(row.pid), row.process or "", quiet)


def end_sessions(engine: Engine, holder: LockHolder) -> bool:
    """Terminate the holder's session and every other session of its process in this
    database (a frozen process's refresh, its write transaction: their locks go with them);
    False where the server refused the holder's or it had already gone."""
    with store_errors(), engine.connect() as conn:
        ended = bool(conn.execute(_TERMINATE, {"pid": holder.pid}).scalar())
        if holder.process:
            conn.execute(_TERMINATE_PROCESS, {"process": holder.process})
        conn.commit()
    return ended


# pg_locks numbers a one-key advisory lock by the key's high and low 32 bits (classid,
# objid), objsubid 1
_HOLDER = text(
    "SELECT l.pid AS pid, a.application_name AS process, "
    "EXTRACT(EPOCH FROM clock_timestamp() - a.state_change) AS quiet "
    "FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid "
    "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
    "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
    "AND l.classid = (CAST(:k AS bigint) >> 32)::oid "
    "AND l.objid = (CAST(:k AS bigint) & 4294967295)::oid "
    "LIMIT 1"
)
_TERMINATE = text("SELECT pg_terminate_backend(:pid)")
_TERMINATE_PROCESS = text(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
    "WHERE application_name = :process AND datname = current_database() "
    "AND pid <> pg_backend_pid()"
)

# Every advisory-lock statement, written out whole: SQL is never built from strings at run
# time (tests/test_security.py scans for it), only bound parameters vary.
_STATEMENTS = {
    ("pg_try_advisory_lock", False): text("SELECT pg_try_advisory_lock(:k)"),
    ("pg_try_advisory_lock", True): text("SELECT pg_try_advisory_lock(:k, hashtext(:name))"),
    ("pg_advisory_unlock", False): text("SELECT pg_advisory_unlock(:k)"),
    ("pg_advisory_unlock", True): text("SELECT pg_advisory_unlock(:k, hashtext(:name))"),
}


def _statement(function: str, key: int, name: str | None) -> tuple[TextClause, dict[str, object]]:
    if name is None:
        return _STATEMENTS[function, False], {"k": key}
    return _STATEMENTS[function, True], {"k": key, "name": name}
