"""The active scheduler survives its database (issue 58, the fault round's H2-5 and H2-7):
a lost leadership sends it back to standby, never out of the process; a store that does not
answer a standby's poll is waited out; a signal stops it within a bounded time. The run loop
with a leadership that loses its lock on cue (the PostgreSQL restart of the fault round)."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

import pytest

from pricing.errors import StoreUnavailable
from service.jobs import scheduler as scheduling
from service.runtime import open_runtime
from service.settings import Settings


class FlakyLeadership:
    """Held for ``held_polls`` asks after each acquisition, then lost (the session gone);
    its first ``away`` tries find the store not answering."""

    def __init__(self, held_polls: int, away: int = 0) -> None:
        self.held_polls, self.away = held_polls, away
        self.acquired = self.released = self.asked = 0
        self._left = 0

    def try_acquire(self) -> bool:
        if self.away:
            self.away -= 1
            raise StoreUnavailable(OSError("connection refused"))
        self.acquired += 1
        self._left = self.held_polls
        return True

    def still_held(self) -> bool:
        self.asked += 1
        self._left -= 1
        return self._left >= 0

    def release(self) -> None:
        self.released += 1


@pytest.fixture
def runtime(settings: Settings, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    quick = settings.model_copy(
        update={
            "scheduler_poll_seconds": 0.05,
            "refresh_cron": "0 0 1 1 *",
            "fx_refresh_cron": "0 0 1 1 *",
        }
    )
    opened = open_runtime(quick)
    yield opened
    opened.store.dispose()


def _run_until_stopped(runtime, leadership, monkeypatch, after_s: float) -> float:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(scheduling, "leadership_for", lambda settings, store: leadership)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    timer = threading.Timer(after_s, lambda: os.kill(os.getpid(), signal.SIGTERM))
    timer.start()
    started = time.monotonic()
    try:
        scheduling.run(runtime)
    finally:
        timer.cancel()
        for number, handler in handlers.items():
            signal.signal(number, handler)
    return time.monotonic() - started


def test_a_lost_leadership_goes_back_to_standby_and_takes_it_again(
    runtime, monkeypatch, caplog
) -> None:  # type: ignore[no-untyped-def]
    flaky = FlakyLeadership(held_polls=3)
    with caplog.at_level(logging.INFO, logger="breakeven.scheduler"):
        took = _run_until_stopped(runtime, flaky, monkeypatch, after_s=1.5)
    said = caplog.text
    assert flaky.acquired >= 3, said  # lost, and taken again, more than once
    assert said.count("leadership lost") >= 2 and "exiting" not in said
    assert said.count("active (pid") == flaky.acquired
    assert "stopped after" in said and took < 1.5 + scheduling.STOP_GRACE_S


def test_a_store_that_does_not_answer_is_waited_out(runtime, monkeypatch, caplog) -> None:  # type: ignore[no-untyped-def]
    flaky = FlakyLeadership(held_polls=100, away=5)
    with caplog.at_level(logging.INFO, logger="breakeven.scheduler"):
        _run_until_stopped(runtime, flaky, monkeypatch, after_s=1.0)
    said = caplog.text
    assert said.count("the store does not answer") == 1  # once an outage, not once a poll
    assert "the store answers again" in said and flaky.acquired == 1
    assert "stopped after" in said
