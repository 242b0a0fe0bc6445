"""Two real `breakeven scheduler` processes on one database: one acts, the other stands by
and takes over when the active one is killed. On SQLite and on PostgreSQL."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pricing.offer import BUNDLED
from pricing.store import Run, Store
from service.jobs.scheduler import cron_trigger
from service.runtime import open_runtime
from service.settings import Settings
from tests.helpers import CountingAdapter, runs_of, scheduler_launcher

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

TICK_SECONDS = 2
DEADLINE_SECONDS = 30  # generous for a loaded CI machine


def _wait_for(condition: Callable[[], object], what: str) -> object:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.fixture
def env(database_url: str, tmp_path: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "BREAKEVEN_DATA_DIR": str(tmp_path),
        "BREAKEVEN_DATABASE_URL": database_url,
        "BREAKEVEN_REFRESH_CRON": f"*/{TICK_SECONDS} * * * * *",
        "BREAKEVEN_REFRESH_JITTER_SECONDS": "0",
        "BREAKEVEN_REFRESH_PROVIDERS": BUNDLED,
        "BREAKEVEN_SCHEDULER_POLL_SECONDS": "0.3",
    }
    open_runtime(Settings(data_dir=tmp_path, database_url=database_url)).store.dispose()
    return env


@pytest.fixture
def start(env: dict[str, str], tmp_path: Path) -> Iterator[Callable[[str], subprocess.Popen]]:
    yield from scheduler_launcher(env, tmp_path)


def _runs_by(store: Store, process: subprocess.Popen) -> list[Run]:
    return [r for r in runs_of(store, BUNDLED) if r.worker.endswith(f":{process.pid}")]


def test_one_scheduler_acts_and_the_standby_takes_over(env, start, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store = Store(env["BREAKEVEN_DATABASE_URL"])
    active = start("a")
    _wait_for(lambda: _runs_by(store, active), "the first scheduler's first run")
    standby = start("b")
    _wait_for(lambda: "standby" in (tmp_path / "b.log").read_text(), "the standby to wait")
    watched_from = time.monotonic()
    while time.monotonic() - watched_from < 3 * TICK_SECONDS + 1:
        time.sleep(0.2)
    assert _runs_by(store, standby) == []
    ticks = sorted(
        r.started_at for r in runs_of(store, BUNDLED) if r.worker.endswith(f":{active.pid}")
    )
    assert len(ticks) >= 3
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(ticks)]
    assert min(gaps) > TICK_SECONDS / 2, f"more than one refresh per tick: {gaps}"

    active.send_signal(signal.SIGKILL)
    active.wait(timeout=10)
    _wait_for(lambda: _runs_by(store, standby), "the standby to take over")
    assert "active" in (tmp_path / "b.log").read_text()

    standby.send_signal(signal.SIGTERM)
    assert standby.wait(timeout=20) == 0
    store.dispose()


def test_cron_accepts_five_or_six_fields() -> None:
    assert str(cron_trigger("0 */6 * * *", 300)).startswith("cron[")
    assert "second='*/2'" in str(cron_trigger("*/2 * * * * *", 0))
    with pytest.raises(ValueError, match="5 or 6 fields"):
        cron_trigger("every six hours", 0)


class _Leader:
    def try_acquire(self) -> bool:
        return True

    def still_held(self) -> bool:
        return True


def test_a_scheduled_refresh_waits_its_turn_behind_one_started_elsewhere(
    database_url: str, tmp_path: Path
) -> None:
    """One refresh per provider per database: the scheduler skips a provider that a
    refresh over HTTP (another process, the same lock) is refreshing now."""
    from pricing.refresh import RefreshPolicy
    from service.jobs.locks import ProviderLock
    from service.jobs.scheduler import refresh_job

    settings = Settings(data_dir=tmp_path, database_url=database_url)
    store = Store(database_url)
    store.create_schema()
    adapter = CountingAdapter()
    elsewhere = ProviderLock(settings, store, adapter.name)
    assert elsewhere.try_acquire()
    try:
        refresh_job(
            store, adapter, RefreshPolicy(), _Leader(), ProviderLock(settings, store, "counting")
        )
        assert adapter.fetches == 0 and runs_of(store, adapter.name) == []
    finally:
        elsewhere.release()
    refresh_job(
        store, adapter, RefreshPolicy(), _Leader(), ProviderLock(settings, store, "counting")
    )
    assert adapter.fetches == 1 and len(runs_of(store, adapter.name)) == 1
    store.dispose()
