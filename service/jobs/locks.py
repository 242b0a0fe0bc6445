"""Locks that die with their holder: a PostgreSQL session advisory lock, or an exclusive
flock on a file beside the SQLite database. The server or the kernel drops either the moment
the process dies, so a crash never leaves one behind."""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Connection, text
from sqlalchemy.engine import make_url

from service.settings import Settings


def lock_file(settings: Settings, store_url: str, suffix: str) -> Path:
    """A lock file beside the SQLite database (in the data dir for an in-memory one)."""
    database = make_url(store_url).database
    return Path(database).with_suffix(suffix) if database else settings.data_dir / suffix


def try_flock(path: Path) -> IO[str] | None:
    """The open file holding an exclusive flock on ``path``, or None if another holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


# Arbitrary constant naming "a provider's refresh" among this database's advisory
# locks (the scheduler's is 7_260_002, imports' 7_260_004); the provider's name is hashed
# into the second key. Taken by refreshes over HTTP and by the scheduler alike.
REFRESH_LOCK = 7_260_003


class ProviderLock:
    """Held while one provider refreshes; released by the OS or the server if we die."""

    def __init__(self, settings: Settings, store: Any, name: str) -> None:
        self._store = store
        self._name = name
        self._postgres = make_url(store.url).get_backend_name() == "postgresql"
        self._path = lock_file(settings, store.url, f".refresh-{name}.lock")
        self._conn: Connection | None = None
        self._file: IO[str] | None = None

    def try_acquire(self) -> bool:
        if self._postgres:
            conn = self._store.engine.connect()
            query = text("SELECT pg_try_advisory_lock(:k, hashtext(:name))")
            if conn.execute(query, {"k": REFRESH_LOCK, "name": self._name}).scalar():
                conn.commit()
                self._conn = conn
                return True
            conn.close()
            return False
        self._file = try_flock(self._path)
        return self._file is not None

    def release(self) -> None:
        if self._conn is not None:
            try:  # closing the session releases the lock even if this fails
                self._conn.execute(
                    text("SELECT pg_advisory_unlock(:k, hashtext(:name))"),
                    {"k": REFRESH_LOCK, "name": self._name},
                )
                self._conn.commit()
            finally:
                self._conn.close()
                self._conn = None
        if self._file is not None:
            self._file.close()  # drops the flock
            self._file = None
