"""`breakeven scheduler`: refresh every scheduled source on a cron, one active per database.

Exactly one scheduler acts per database. On PostgreSQL the active one holds a session
advisory lock on a connection of its own; on SQLite, an exclusive ``flock`` on a file next
to the database. Either is released by the operating system or the server the moment the
process dies, so a standby that polls for it takes over after a crash or a SIGKILL.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import IO, Any, Protocol

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_MISSED, JobExecutionEvent
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger

from pricing.adapters import Adapter
from pricing.errors import AdapterError, StoreError
from pricing.refresh import RefreshPolicy, run_adapter
from pricing.store import SessionLock, Store
from service.documents.providers import describe_result
from service.jobs.fx import refresh_rates
from service.jobs.locks import ProviderLock, lock_file, try_flock
from service.jobs.refresh import refresh_policy, scheduled_adapters
from service.runtime import Runtime
from service.settings import Settings

log = logging.getLogger("breakeven.scheduler")

# Arbitrary constant naming "the active scheduler" among this database's advisory locks.
SCHEDULER_LOCK = 7_260_002
_CRON_FIELDS = ("minute", "hour", "day", "month", "day_of_week")


class Leadership(Protocol):
    def try_acquire(self) -> bool: ...

    def still_held(self) -> bool: ...


class PostgresLeadership:
    """A session advisory lock, held by keeping its connection open."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock: SessionLock | None = None

    def try_acquire(self) -> bool:
        self._lock = self._store.try_session_lock(SCHEDULER_LOCK)
        return self._lock is not None

    def still_held(self) -> bool:
        return self._lock is not None and self._lock.still_held()


class FileLeadership:
    """An exclusive flock; the kernel drops it when the holder exits, however it exits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def try_acquire(self) -> bool:
        handle = try_flock(self.path)
        if handle is None:
            return False
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle
        return True

    def still_held(self) -> bool:
        return self._handle is not None and not self._handle.closed


def leadership_for(settings: Settings, store: Store) -> Leadership:
    if store.backend == "postgresql":
        return PostgresLeadership(store)
    return FileLeadership(lock_file(settings, store.database, ".scheduler.lock"))


@functools.lru_cache(maxsize=8)  # a web worker asks it of every cached answer's max-age
def cron_trigger(expression: str, jitter_seconds: int) -> CronTrigger:
    """5 crontab fields (minute hour day month day_of_week), or 6 with seconds first."""
    fields = expression.split()
    names = {5: _CRON_FIELDS, 6: ("second", *_CRON_FIELDS)}.get(len(fields))
    if names is None:
        raise ValueError(f"BREAKEVEN_REFRESH_CRON needs 5 or 6 fields, got {expression!r}")
    return CronTrigger(
        **dict(zip(names, fields, strict=True)), timezone="UTC", jitter=jitter_seconds or None
    )


def wait_for_leadership(leadership: Leadership, poll_seconds: float, stop: threading.Event) -> bool:
    announced = False
    while not stop.is_set():
        if leadership.try_acquire():
            return True
        if not announced:
            log.info("standby: another scheduler is active; polling every %gs", poll_seconds)
            announced = True
        stop.wait(poll_seconds)
    return False


def refresh_job(
    store: Store,
    adapter: Adapter,
    policy: RefreshPolicy,
    leadership: Leadership,
    lock: ProviderLock | None = None,
) -> None:
    if not leadership.still_held():
        # Lost the database connection that held the lock: another scheduler may be active.
        log.error("leadership lost; exiting so a supervisor restarts this scheduler")
        os.kill(os.getpid(), signal.SIGTERM)
        return
    if lock is not None and not lock.try_acquire():
        # One refresh per provider per database: one started over HTTP is running now.
        log.info("refresh %s: skipped, already refreshing elsewhere", adapter.name)
        return
    try:
        log.info("refresh %s", describe_result(run_adapter(store, adapter, policy)))
    finally:
        if lock is not None:
            lock.release()


def rates_job(runtime: Runtime, leadership: Leadership) -> None:
    """The day's exchange rates; a failure is logged and the stored rates keep serving."""
    if not leadership.still_held():
        log.error("leadership lost; exiting so a supervisor restarts this scheduler")
        os.kill(os.getpid(), signal.SIGTERM)
        return
    try:
        refresh_rates(runtime)
    except (AdapterError, StoreError) as exc:
        log.error("exchange rates: %s", exc)


def build_scheduler(runtime: Runtime, leadership: Leadership) -> BlockingScheduler:
    settings = runtime.settings
    scheduler = BlockingScheduler(
        timezone="UTC",
        job_defaults={
            "coalesce": True,  # after downtime, one catch-up run, not one per missed tick
            "max_instances": 1,  # never two refreshes of one source at once
            "misfire_grace_time": int(settings.refresh_misfire_grace_minutes * 60) or None,
        },
    )
    policy = refresh_policy(settings)
    for adapter in scheduled_adapters(runtime):
        scheduler.add_job(
            refresh_job,
            cron_trigger(settings.refresh_cron, settings.refresh_jitter_seconds),
            args=(
                runtime.store,
                adapter,
                policy,
                leadership,
                ProviderLock(settings, runtime.store, adapter.name),
            ),
            id=f"refresh-{adapter.name}",
            name=f"refresh {adapter.name}",
        )

    scheduler.add_job(
        rates_job,
        cron_trigger(settings.fx_refresh_cron, settings.refresh_jitter_seconds),
        args=(runtime, leadership),
        id="refresh-fx",
        name="refresh exchange rates",
    )

    def on_event(event: JobExecutionEvent) -> None:
        if event.code == EVENT_JOB_MISSED:
            log.warning("job %s missed its run time %s", event.job_id, event.scheduled_run_time)
        else:
            log.error("job %s raised: %r", event.job_id, event.exception)

    scheduler.add_listener(on_event, EVENT_JOB_ERROR | EVENT_JOB_MISSED)
    return scheduler


def run(runtime: Runtime) -> None:
    """Wait to become the active scheduler, then run jobs until SIGTERM or SIGINT."""
    stop = threading.Event()
    scheduler: BlockingScheduler | None = None

    def shutdown(signum: int, _frame: Any) -> None:
        log.info("signal %d: stopping", signum)
        stop.set()
        if scheduler is not None and scheduler.running:
            scheduler.shutdown(wait=False)

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    leadership = leadership_for(runtime.settings, runtime.store)
    if not wait_for_leadership(leadership, runtime.settings.scheduler_poll_seconds, stop):
        return
    scheduler = build_scheduler(runtime, leadership)
    names = ", ".join(job.name for job in scheduler.get_jobs())
    log.info("active (pid %d): %s on %r", os.getpid(), names, runtime.settings.refresh_cron)
    started = time.monotonic()
    scheduler.start()
    log.info("stopped after %.0fs", time.monotonic() - started)
