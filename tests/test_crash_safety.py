"""A refresh killed with SIGKILL at a random moment loses nothing: the database passes its
integrity check and the served catalog is one complete run, the previous or the new one.
20 trials on SQLite and 20 on PostgreSQL."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import pytest
from sqlalchemy import func, select, text

from pricing.store import Store, price_changes, runs, utcnow
from tests.helpers import offer

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

TRIALS = 20
ROWS = 40_000  # the write takes about a second, so random kills land before, in and after it
KILL_WINDOW_S = 1.5


def _integrity_ok(store: Store) -> bool:
    with store.engine.connect() as conn:
        if store.engine.dialect.name == "sqlite":
            return conn.execute(text("PRAGMA integrity_check")).scalar_one() == "ok"
        # PostgreSQL: every price change belongs to an existing run (no orphans of a dead write)
        orphans = conn.execute(
            select(func.count())
            .select_from(price_changes.outerjoin(runs, runs.c.id == price_changes.c.run_id))
            .where(runs.c.id.is_(None))
        ).scalar_one()
        return orphans == 0


@pytest.mark.parametrize("trial", range(TRIALS))
def test_sigkill_at_a_random_moment_loses_nothing(database_url: str, trial: int) -> None:
    store = Store(database_url)
    store.create_schema()
    previous = [offer(provider="aws", product=f"p{i}", usd_per_hour=2.0) for i in range(5)]
    before = store.record_run("aws", previous, utcnow(), "before the crash")

    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.crash_writer", database_url, str(ROWS)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None and writer.stdout.readline().strip() == "started"
    time.sleep(random.Random(trial).uniform(0, KILL_WINDOW_S))
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    writer.stdout.close()

    survivor = Store(database_url)  # a fresh process's view, with fresh connections
    assert _integrity_ok(survivor)
    served = survivor.current_offers("aws")
    run = survivor.current_runs()["aws"]
    assert {s.run_id for s in served} == {run.id}
    assert len(served) == run.row_count  # complete: every row of the run, nothing partial
    assert run.id == before.id or (run.row_count == ROWS and run.source_version == "crash test")
    with survivor.engine.connect() as conn:
        stored = conn.execute(select(func.count()).select_from(price_changes)).scalar_one()
    # no half-written run anywhere: the first run's prices, or those and the crash run's
    # (its ROWS new prices, and the first run's offers gone)
    assert stored in (len(previous), len(previous) + ROWS + len(previous))
    survivor.record_run("aws", previous, utcnow(), "after the crash")  # still takes writes
    survivor.dispose()
    store.dispose()
