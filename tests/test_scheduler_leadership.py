"""The active scheduler survives its database (issue 58, the fault round's H2-5 and H2-7):
a lost leadership sends it back to standby, never out of the process; a store that does not
answer a standby's poll is waited out; a signal stops it within a bounded time. The run loop
with a leadership that loses its lock on cue (the PostgreSQL restart of the fault round)."""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pricing.errors import StoreUnavailable
from pricing.store import Store, connect
from service.http.app import create_app
from service.jobs import scheduler as scheduling
from service.jobs.locks import REFRESH_LOCK
from service.jobs.refresh import build_adapters
from service.runtime import open_runtime
from service.settings import Settings
from tests.helpers import CountingAdapter, runs_of


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


# -- a frozen leader (H2-6) and whether a scheduler runs at all ------------------------------


def test_a_frozen_leader_is_ended_and_a_standby_takes_over(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with monkeypatch.context() as other_process:  # the frozen one's sessions carry its name
        other_process.setattr(connect, "session_name", lambda: "breakeven frozen-host:1")
        frozen_store = Store(postgres_url)
        frozen = frozen_store.try_session_lock(scheduling.SCHEDULER_LOCK)  # never polls again
        refreshing = frozen_store.try_session_lock(REFRESH_LOCK, "aws")  # its refresh in flight
    store, live_store = Store(postgres_url), Store(postgres_url)
    live = scheduling.PostgresLeadership(live_store, stale_after_s=60)
    standby = scheduling.PostgresLeadership(store, stale_after_s=0.6)
    try:
        assert frozen is not None and refreshing is not None
        assert not standby.try_acquire()  # quiet for less than the bound: left alone
        time.sleep(0.8)
        with caplog.at_level(logging.WARNING, logger="breakeven.scheduler"):
            assert standby.try_acquire()
        assert "(breakeven frozen-host:1, server session" in caplog.text
        assert "has not polled for 1s: ending its sessions and taking over" in caplog.text
        # thawed, the old leader finds its sessions gone: its lock, and its refresh's lock
        assert not frozen.still_held() and not refreshing.still_held()
        aws = store.try_session_lock(REFRESH_LOCK, "aws")
        assert aws is not None  # the new leader may refresh aws
        aws.release()
        # the new leader polls: a standby with the same bound never ends it
        for _ in range(4):
            time.sleep(0.25)
            assert standby.still_held()
        assert not live.try_acquire()
    finally:
        standby.release()
        live.release()
        for opened in (live_store, store, frozen_store):
            opened.dispose()


def test_providers_and_metrics_say_whether_a_scheduler_runs(
    settings: Settings, database_url: str
) -> None:
    quick = settings.model_copy(
        update={"database_url": database_url, "scheduler_stale_after_seconds": 1}
    )
    runtime = open_runtime(quick)
    client = create_app(quick).test_client()
    try:
        nobody = client.get("/providers").get_json()["scheduler"]
        assert nobody == {
            "active": False,
            "quiet_seconds": None,
            "says": "no scheduler is active: prices refresh only when asked (POST /refresh, "
            "breakeven refresh)",
        }
        assert "breakeven_scheduler_active 0.0" in client.get("/metrics").text
        leader = scheduling.leadership_for(quick, runtime.store)
        assert leader.try_acquire()
        assert leader.still_held()
        active = client.get("/providers").get_json()["scheduler"]
        assert active["active"] and active["quiet_seconds"] < 1
        assert active["says"].startswith("a scheduler is active (last poll ")
        scraped = client.get("/metrics").text
        assert "breakeven_scheduler_active 1.0" in scraped
        assert "breakeven_scheduler_quiet_seconds " in scraped
        time.sleep(1.3)  # the leader stops polling: frozen, as far as anyone can tell
        frozen = client.get("/providers").get_json()["scheduler"]
        assert not frozen["active"] and frozen["quiet_seconds"] >= 1
        assert "has not polled for" in frozen["says"]
        leader.still_held()  # a poll is a heartbeat
        assert client.get("/providers").get_json()["scheduler"]["active"]
        leader.release()
        assert not client.get("/providers").get_json()["scheduler"]["active"]
    finally:
        runtime.store.dispose()


def test_the_stale_bound_is_a_few_polls_at_least(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 3 x scheduler_poll_seconds"):
        Settings(data_dir=tmp_path, scheduler_poll_seconds=30, scheduler_stale_after_seconds=60)


def test_a_tick_missed_while_no_scheduler_led_runs_when_one_leads(
    runtime, monkeypatch, caplog
) -> None:  # type: ignore[no-untyped-def]
    """A source whose hourly tick came (five minutes ago, within the misfire grace) while
    the store was away or this scheduler stood by, with no attempt since, is refreshed as
    soon as it leads, not at the next tick an hour on; one tried since that tick waits."""
    five_minutes_ago = (datetime.now(UTC) - timedelta(minutes=5)).minute
    runtime = dataclasses.replace(
        runtime,
        settings=runtime.settings.model_copy(
            update={"refresh_cron": f"{five_minutes_ago} * * * *"}
        ),
    )
    counting = CountingAdapter()
    monkeypatch.setattr(
        scheduling, "scheduled_adapters", lambda rt: [counting, build_adapters(rt)["bundled"]]
    )
    bundled = runs_of(runtime.store, "bundled")  # loaded as the runtime opened: after the tick
    with caplog.at_level(logging.INFO, logger="breakeven.scheduler"):
        _run_until_stopped(runtime, FlakyLeadership(held_polls=1000), monkeypatch, after_s=1.5)
    assert counting.fetches == 1, caplog.text
    assert "refresh counting: its tick passed while no scheduler led" in caplog.text
    assert runs_of(runtime.store, "bundled") == bundled  # tried after the tick: not again


def test_a_frequent_cron_catches_up_by_itself(runtime) -> None:  # type: ignore[no-untyped-def]
    """Ticking each second, a missed tick is not run again at once: the next one comes."""
    frequent = runtime.settings.model_copy(update={"refresh_cron": "* * * * * *"})
    assert (
        scheduling._missed_while_away(dataclasses.replace(runtime, settings=frequent), ["x"])
        == set()
    )


def test_an_active_scheduler_whose_age_is_hidden_is_still_called_active() -> None:
    """A web role that may not read the scheduler's session (another role, no
    pg_read_all_stats) sees the lock held but not its age: active, said so."""
    hidden = scheduling.SchedulerState(active=True, quiet_seconds=None)
    assert hidden.says.startswith("a scheduler is active")
    assert scheduling.SchedulerState(False, None).says.startswith("no scheduler is active")


def test_an_unset_stale_bound_follows_the_poll(tmp_path: Path) -> None:
    """A slow poll (30 s) with no stale bound set is a valid setup, bound 3 polls."""
    assert Settings(data_dir=tmp_path, scheduler_poll_seconds=30).stale_scheduler_seconds() == 90
    assert Settings(data_dir=tmp_path).stale_scheduler_seconds() == 60


def test_a_long_host_name_never_cuts_the_pid_from_the_session_name(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A standby ends every session of a frozen scheduler by its application_name: a name
    cut before its pid would be every process's on that host."""
    monkeypatch.setattr(connect, "this_worker", lambda: f"{'h' * 80}:4242")
    name = connect.session_name()
    assert len(name) <= 63 and name.endswith(":4242") and name.startswith("breakeven hh")
