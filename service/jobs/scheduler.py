"""`breakeven scheduler`: refresh every scheduled source on a cron, one active per database.

Exactly one scheduler acts per database. On PostgreSQL the active one holds a session
advisory lock on a connection of its own; on SQLite, an exclusive ``flock`` on a file next
to the database. Either is released by the operating system or the server the moment the
process dies, so a standby that polls for it takes over after a crash or a SIGKILL.

The active one survives its database (issue 58): it asks its leadership each poll (a
``SELECT 1`` on the lock's connection, which also keeps that session from idling out) and,
where the lock is gone (a restart, a terminated backend, an idle timeout), goes back to
standby and polls to take it again, rather than exiting; a store that does not answer a
standby's poll is waited out the same way. A signal only sets an event: the main thread,
never the handler, stops the jobs, and a stop ends within a bounded time.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import signal
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import IO, Any, Protocol

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_MISSED, JobExecutionEvent
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

from pricing.adapters import Adapter
from pricing.errors import AdapterError, StoreError
from pricing.refresh import RefreshPolicy, run_adapter
from pricing.store import SessionLock, Store, utcnow
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


STOP_GRACE_S = 30.0  # what a stop waits for a refresh in flight before the process ends
TAKEOVER_WAIT_S = 5.0  # for an ended leader's session to exit and free its lock
# A tick missed while no scheduler led is run at once only when the next is further off than
# this: a cron of minutes or seconds catches up by itself, without a refresh just before it.
CATCH_UP_BEFORE = timedelta(minutes=1)


class Leadership(Protocol):
    def try_acquire(self) -> bool: ...

    def still_held(self) -> bool: ...

    def release(self) -> None: ...


class PostgresLeadership:
    """A session advisory lock, held by keeping its connection open."""

    def __init__(self, store: Store, stale_after_s: float) -> None:
        self._store = store
        self._stale_after_s = stale_after_s
        self._lock: SessionLock | None = None
        self._asking = threading.Lock()  # one connection: the poll and a job ask in turn

    def try_acquire(self) -> bool:
        self._lock = self._store.try_session_lock(SCHEDULER_LOCK)
        if self._lock is None and self._ended_stale_holder():
            self._lock = self._store.try_session_lock(SCHEDULER_LOCK)
        return self._lock is not None

    def _ended_stale_holder(self) -> bool:
        """End the holder's session where it has not polled within the stale bound: a frozen
        leader's lock would otherwise outlive every standby's patience."""
        holder = self._store.session_lock_holder(SCHEDULER_LOCK)
        if holder is None or holder.quiet_seconds is None:
            return False
        if holder.quiet_seconds < self._stale_after_s:
            return False
        log.warning(
            "the active scheduler (%s, server session %d) has not polled for %.0fs: ending "
            "its sessions and taking over",
            holder.process or "unnamed",
            holder.pid,
            holder.quiet_seconds,
        )
        if not self._store.end_sessions(holder):
            return False
        # the server drops the lock as the ended session exits, a moment later
        deadline = time.monotonic() + TAKEOVER_WAIT_S
        while True:
            now_holding = self._store.session_lock_holder(SCHEDULER_LOCK)
            if now_holding is None:
                return True
            if now_holding.pid != holder.pid or time.monotonic() > deadline:
                return False  # another standby took it first, or the session lingers
            time.sleep(0.05)

    def still_held(self) -> bool:
        with self._asking:
            return self._lock is not None and self._lock.still_held()

    def release(self) -> None:
        """Let the lock go (its connection closed): after a loss, before polling anew."""
        with self._asking:
            lock, self._lock = self._lock, None
        if lock is not None:
            with contextlib.suppress(StoreError):  # the session is gone, and its lock with it
                lock.release()


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
        """Held while the file is open; each ask touches it, the heartbeat /providers reads."""
        if self._handle is None or self._handle.closed:
            return False
        with contextlib.suppress(OSError):
            os.utime(self._handle.fileno())
        return True

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def leadership_for(settings: Settings, store: Store) -> Leadership:
    if store.backend == "postgresql":
        return PostgresLeadership(store, settings.stale_scheduler_seconds())
    return FileLeadership(_lock_path(settings, store))


def _lock_path(settings: Settings, store: Store) -> Path:
    return lock_file(settings, store.database, ".scheduler.lock")


@dataclass(frozen=True)
class SchedulerState:
    """Whether a scheduler is refreshing this database, as /providers and /metrics say it."""

    active: bool  # one holds the leadership and polled within the stale bound
    quiet_seconds: float | None  # since the holder last polled; None: none holds it

    @property
    def says(self) -> str:
        if self.active:
            if self.quiet_seconds is None:  # the server does not show another role's session
                return "a scheduler is active (when it last polled is not shown to this role)"
            return f"a scheduler is active (last poll {self.quiet_seconds:,.0f} s ago)"
        if self.quiet_seconds is None:
            return (
                "no scheduler is active: prices refresh only when asked (POST /refresh, "
                "breakeven refresh)"
            )
        return (
            f"the active scheduler has not polled for {self.quiet_seconds:,.0f} s (frozen or "
            "hung): scheduled refreshes are not running"
        )


def scheduler_state(settings: Settings, store: Store) -> SchedulerState:
    """Read without taking anything a scheduler needs: the lock's holder on PostgreSQL; on
    SQLite whether the lock file's flock is held (taken and dropped at once where it is
    free) and when its holder last touched it."""
    stale_after = settings.stale_scheduler_seconds()
    if store.backend == "postgresql":
        holder = store.session_lock_holder(SCHEDULER_LOCK)
        if holder is None:
            return SchedulerState(False, None)
        quiet = holder.quiet_seconds
        return SchedulerState(quiet is None or quiet < stale_after, quiet)
    path = _lock_path(settings, store)
    try:
        # read-only: a web worker that may not write the scheduler's file can still ask
        with path.open("rb") as probe:
            try:
                fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                quiet = max(0.0, time.time() - os.fstat(probe.fileno()).st_mtime)
                return SchedulerState(quiet < stale_after, quiet)
            return SchedulerState(False, None)  # free (released as the file closes)
    except OSError:  # no lock file yet: no scheduler ever ran here
        return SchedulerState(False, None)


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
    """Poll until this scheduler holds the leadership (True) or is stopped (False); a store
    that does not answer is polled again, said once per outage."""
    announced, away = False, False
    while not stop.is_set():
        try:
            if leadership.try_acquire():
                if away:
                    log.info("the store answers again")
                return True
        except StoreError as error:
            if not away:
                log.warning("standby: the store does not answer (%s); polling", error)
            away = True
        else:
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
        # The run loop sees it too, and goes back to standby.
        log.warning("refresh %s: skipped, leadership lost", adapter.name)
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
        log.warning("exchange rates: skipped, leadership lost")
        return
    try:
        refresh_rates(runtime)
    except (AdapterError, StoreError) as exc:
        log.error("exchange rates: %s", exc)


def _missed_while_away(runtime: Runtime, names: list[str]) -> set[str]:
    """Sources whose latest tick within the misfire grace came while no scheduler led (a
    standby's wait, a database outage, a frozen leader) and that no run has tried since:
    APScheduler knows only the ticks of its own lifetime, the store knows the attempts."""
    settings = runtime.settings
    # 0 is APScheduler's "no limit": look back a day then
    grace = timedelta(minutes=settings.refresh_misfire_grace_minutes or 24 * 60)
    now = utcnow()
    trigger = cron_trigger(settings.refresh_cron, 0)
    upcoming = trigger.get_next_fire_time(None, now)
    if upcoming is not None and upcoming - now < CATCH_UP_BEFORE:
        return set()  # the next tick comes soon enough by itself (no walk over its ticks)
    tick, latest = trigger.get_next_fire_time(None, now - grace), None
    while tick is not None and tick <= now:  # the last tick at or before now, in the grace
        latest = tick
        tick = trigger.get_next_fire_time(tick, tick + timedelta(microseconds=1))
    if latest is None:
        return set()  # no tick within the grace
    try:
        attempts = {s.adapter: s.last_attempt.started_at for s in runtime.store.provider_status()}
    except StoreError:
        return set()  # the store went away again: the loop's next poll sees it
    return {name for name in names if name not in attempts or attempts[name] < latest}


def build_scheduler(runtime: Runtime, leadership: Leadership) -> BackgroundScheduler:
    settings = runtime.settings
    scheduler = BackgroundScheduler(
        timezone="UTC",
        job_defaults={
            "coalesce": True,  # after downtime, one catch-up run, not one per missed tick
            "max_instances": 1,  # never two refreshes of one source at once
            "misfire_grace_time": int(settings.refresh_misfire_grace_minutes * 60) or None,
        },
    )
    policy = refresh_policy(settings)
    adapters = scheduled_adapters(runtime)
    missed = _missed_while_away(runtime, [adapter.name for adapter in adapters])
    for adapter in adapters:
        if adapter.name in missed:
            log.info(
                "refresh %s: its tick passed while no scheduler led; running it now", adapter.name
            )
        scheduler.add_job(
            refresh_job,
            cron_trigger(settings.refresh_cron, settings.refresh_jitter_seconds),
            # a tick missed in standby or an outage runs now, not at the next tick
            **({"next_run_time": utcnow()} if adapter.name in missed else {}),
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
    """Run jobs while this scheduler leads, stand by while it does not, until SIGTERM or
    SIGINT; returns within STOP_GRACE_S of the signal."""
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        # only an event: stopping the jobs from a handler can deadlock on a lock the
        # interrupted main thread holds (a scheduler once hung so, ignoring SIGTERM)
        log.info("signal %d: stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    settings = runtime.settings
    leadership = leadership_for(settings, runtime.store)
    started = time.monotonic()
    while wait_for_leadership(leadership, settings.scheduler_poll_seconds, stop):
        scheduler = build_scheduler(runtime, leadership)
        names = ", ".join(job.name for job in scheduler.get_jobs())
        log.info("active (pid %d): %s on %r", os.getpid(), names, settings.refresh_cron)
        scheduler.start()
        # each poll asks the lock's connection, which keeps its session from idling out
        while not stop.wait(settings.scheduler_poll_seconds) and leadership.still_held():
            pass
        _stop_jobs(scheduler)
        if stop.is_set():
            break
        log.warning("leadership lost (the store restarted or closed the session): standby")
        leadership.release()
    leadership.release()
    log.info("stopped after %.0fs", time.monotonic() - started)


def _stop_jobs(scheduler: BackgroundScheduler) -> None:
    """Stop the jobs, waiting at most STOP_GRACE_S for a refresh in flight (its run is one
    transaction: cut off, it leaves nothing half-written)."""
    stopping = threading.Thread(target=scheduler.shutdown, kwargs={"wait": True}, daemon=True)
    stopping.start()
    stopping.join(STOP_GRACE_S)
    if stopping.is_alive():
        log.warning("a job still runs after %gs; stopping without it", STOP_GRACE_S)
