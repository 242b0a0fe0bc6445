"""Bring a database to the current schema with Alembic (``breakeven db upgrade``).

Every entry point calls :func:`upgrade` before use, so a fresh SQLite file needs no step of
its own. On PostgreSQL a transaction-scoped advisory lock serialises concurrent upgraders
(several web workers starting at once): the first migrates, the others find it done.
"""

from __future__ import annotations

from importlib import resources

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, inspect, text

# Arbitrary constant naming "schema migration" among this database's advisory locks.
MIGRATION_LOCK = 7_260_001


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(resources.files("pricing") / "migrations"))
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    config = _config()
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def is_empty(engine: Engine) -> bool:
    return not inspect(engine).get_table_names()
