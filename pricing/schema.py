"""Bring a database to the current schema with Alembic (``breakeven db upgrade``).

Every entry point calls :func:`upgrade` before use, so a fresh SQLite file needs no step of
its own. Concurrent upgraders (web workers and a scheduler starting at once) are serialised,
by a transaction-scoped advisory lock on PostgreSQL and a file lock on SQLite: the first
migrates, the others find it done.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, text

# Arbitrary constant naming "schema migration" among this database's advisory locks.
MIGRATION_LOCK = 7_260_001


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(resources.files("pricing") / "migrations"))
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    with _sqlite_file_lock(engine), engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config = _config()
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


@contextmanager
def _sqlite_file_lock(engine: Engine) -> Iterator[None]:
    """SQLite has no advisory locks: serialise upgraders with a flock beside the file."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        yield
        return
    with Path(database).with_suffix(".migrate.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()
