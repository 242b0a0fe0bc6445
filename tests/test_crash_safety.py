"""A refresh killed with SIGKILL mid-write leaves the previous run serving, nothing partial.
On SQLite and on PostgreSQL."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import pytest
from sqlalchemy import func, select, text

from pricing.store import Store, offers, runs, utcnow
from tests.helpers import offer

TRIALS = 3
ROWS = 150_000  # enough that the insert takes a second or more on either backend


def _counts(store: Store) -> tuple[int, int]:
    with store.engine.connect() as conn:
        return (
            conn.execute(select(func.count()).select_from(runs)).scalar_one(),
            conn.execute(select(func.count()).select_from(offers)).scalar_one(),
        )


@pytest.mark.parametrize("trial", range(TRIALS))
def test_sigkill_mid_write_loses_nothing(database_url: str, trial: int) -> None:
    store = Store(database_url)
    store.create_schema()
    previous = [offer(provider="aws", product=f"p{i}", usd_per_hour=2.0) for i in range(5)]
    current = store.record_run("aws", previous, utcnow(), "before the crash")
    before = _counts(store)

    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.crash_writer", database_url, str(ROWS)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
    time.sleep(random.Random(trial).uniform(0.05, 0.5))
    writer.send_signal(signal.SIGKILL)
    assert writer.wait(timeout=30) == -signal.SIGKILL  # killed, not finished

    survivor = Store(database_url)  # a fresh process's view, with fresh connections
    if survivor.engine.dialect.name == "sqlite":
        with survivor.engine.connect() as conn:
            assert conn.execute(text("PRAGMA integrity_check")).scalar_one() == "ok"
    assert _counts(survivor) == before
    served = survivor.current_offers("aws")
    assert {s.run_id for s in served} == {current.id}
    assert sorted(s.offer.product for s in served) == sorted(o.product for o in previous)
    # and the store still takes writes
    survivor.record_run("aws", previous, utcnow(), "after the crash")
    survivor.dispose()
    store.dispose()
