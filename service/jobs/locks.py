"""Locks that die with their holder: a PostgreSQL session advisory lock (the store holds it,
pricing/store/locks.py), or an exclusive flock on a file beside the SQLite database. The
server or the kernel drops either the moment the process dies, so a crash never leaves one
behind."""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO, Any

from pricing.store import SessionLock
from service.settings import Settings


def lock_file(settings: Settings, database: str | None, suffix: str) -> Path:
    """A lock file beside the SQLite database (in the data dir for an in-memory one);
    ``database``: the store's (Store.database)."""
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
        self._postgres = store.backend == "postgresql"
        self._path = lock_file(settings, store.database, f".refresh-{name}.lock")
        self._lock: SessionLock | None = None
        self._file: IO[str] | None = None

    def try_acquire(self) -> bool:
        if self._postgres:
            self._lock = self._store.try_session_lock(REFRESH_LOCK, self._name)
            return self._lock is not None
        self._file = try_flock(self._path)
        return self._file is not None

    def release(self) -> None:
        if self._lock is not None:
            held, self._lock = self._lock, None
            held.release()  # closing the session releases the lock even if unlocking fails
        if self._file is not None:
            self._file.close()  # drops the flock
            self._file = None
