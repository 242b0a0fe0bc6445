"""Two `breakeven scheduler` processes on a PostgreSQL cluster of their own, through the
faults of the fault round (issue 58, H2-5 to H2-7): a restart of the server, the leader's
session terminated, an idle-session timeout shorter than the refresh interval, and a frozen
(SIGSTOPped) leader. After each, a refresh happens within one interval, and at the end
every scheduler ends on SIGTERM within the graceful stop.

The cluster is made with `initdb` in a temporary folder and started with `pg_ctl` on a port
of its own: restarting the shared server on 5432 would cut every other test off."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from pricing.offer import BUNDLED
from pricing.store import Store, utcnow
from service.jobs.scheduler import SCHEDULER_LOCK, STOP_GRACE_S
from service.runtime import open_runtime
from service.settings import Settings
from tests.helpers import runs_of, scheduler_launcher

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

TICK_SECONDS = 3  # the refresh interval
POLL_SECONDS = 0.3
STALE_AFTER_SECONDS = 1.5  # a leader quiet this long is ended (at least 3 polls)
# what "within one interval" allows besides the interval: reconnecting, a poll, the refresh
SLACK_SECONDS = 2.0
WAIT_SECONDS = 40  # generous for a loaded CI machine: the assertions carry the bound


def _server_binary(name: str) -> str:
    found = shutil.which(name) or next(
        (str(p) for p in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))), None
    )
    assert found, f"{name} not found: PostgreSQL's server binaries are needed here"
    return found


def _as_postgres(command: list[str]) -> list[str]:
    """The server refuses to run as root: run its tools as the postgres user there."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    def __init__(self, folder: Path) -> None:
        self.data, self.port = folder / "data", _free_port()
        self.log = folder / "server.log"
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self._folder = folder

    def pg_ctl(self, *args: str) -> None:
        options = f"-p {self.port} -k {self._folder} -c listen_addresses=127.0.0.1"
        command = [_server_binary("pg_ctl"), "-D", str(self.data), "-l", str(self.log)]
        subprocess.run(
            _as_postgres([*command, "-w", "-t", "60", "-o", options, *args]),
            check=True,
            capture_output=True,
        )

    def sql(self, statement: str) -> None:
        store = Store(self.url)
        try:
            with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                c.execute(text(statement))
        finally:
            store.dispose()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    folder = Path(tempfile.mkdtemp(prefix="breakeven-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    made = Cluster(folder)
    subprocess.run(
        _as_postgres(
            [_server_binary("initdb"), "-D", str(made.data), "-U", "postgres", "--auth=trust"]
        ),
        check=True,
        capture_output=True,
    )
    made.pg_ctl("start")
    try:
        yield made
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            made.pg_ctl("stop", "-m", "immediate")
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def schedulers(cluster: Cluster, tmp_path: Path) -> Iterator[Callable[[str], subprocess.Popen]]:
    env = {
        **os.environ,
        "BREAKEVEN_DATA_DIR": str(tmp_path),
        "BREAKEVEN_DATABASE_URL": cluster.url,
        "BREAKEVEN_REFRESH_CRON": f"*/{TICK_SECONDS} * * * * *",
        "BREAKEVEN_REFRESH_JITTER_SECONDS": "0",
        "BREAKEVEN_REFRESH_PROVIDERS": BUNDLED,
        "BREAKEVEN_SCHEDULER_POLL_SECONDS": str(POLL_SECONDS),
        "BREAKEVEN_SCHEDULER_STALE_AFTER_SECONDS": str(STALE_AFTER_SECONDS),
    }
    open_runtime(Settings(data_dir=tmp_path, database_url=cluster.url)).store.dispose()
    yield from scheduler_launcher(env, tmp_path)


def _first_run_after(url: str, moment: datetime) -> tuple[float, str]:
    """Seconds from ``moment`` to the first refresh started after it, and its worker."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):  # the store may still be coming back
            store = Store(url)
            try:
                later = [r for r in runs_of(store, BUNDLED) if r.started_at > moment]
            finally:
                store.dispose()
            if later:
                return (later[0].started_at - moment).total_seconds(), later[0].worker
        time.sleep(0.2)
    raise AssertionError(f"no refresh within {WAIT_SECONDS}s of {moment}")


def _leader_pid(url: str) -> int:
    """The scheduler process whose refreshes are the latest (Run.worker is host:pid)."""
    _, worker = _first_run_after(url, utcnow())
    return int(worker.rsplit(":", 1)[1])


def test_two_schedulers_refresh_through_every_database_fault(
    cluster: Cluster, schedulers: Callable[[str], subprocess.Popen], tmp_path: Path
) -> None:
    a, b = schedulers("a"), schedulers("b")
    leader = _leader_pid(cluster.url)
    assert leader in (a.pid, b.pid)
    interval = TICK_SECONDS + SLACK_SECONDS
    took: dict[str, float] = {}

    # a restart: every session, the leader's lock with it, is gone for a moment
    cluster.pg_ctl("restart", "-m", "fast")
    took["restart"], _ = _first_run_after(cluster.url, utcnow())

    # the leader's session terminated (pg_terminate_backend, an operator or a failover)
    store = Store(cluster.url)
    try:
        holder = store.session_lock_holder(SCHEDULER_LOCK)
    finally:
        store.dispose()
    assert holder is not None
    cluster.sql(f"SELECT pg_terminate_backend({holder.pid:d})")
    took["terminated"], _ = _first_run_after(cluster.url, utcnow())

    # an idle-session timeout shorter than the interval: the leader's poll keeps its session
    # alive, the pool's idle connections are dropped by the server and replaced
    cluster.sql("ALTER SYSTEM SET idle_session_timeout = '1s'")
    cluster.sql("SELECT pg_reload_conf()")
    time.sleep(2 * TICK_SECONDS)
    took["idle timeout"], _ = _first_run_after(cluster.url, utcnow())
    cluster.sql("ALTER SYSTEM RESET idle_session_timeout")
    cluster.sql("SELECT pg_reload_conf()")

    # a frozen leader, stopped between two refreshes: it keeps its session and its lock
    frozen = _leader_pid(cluster.url)
    os.kill(frozen, signal.SIGSTOP)
    stopped_at = utcnow()
    try:
        after, worker = _first_run_after(cluster.url, stopped_at)
    finally:
        os.kill(frozen, signal.SIGCONT)
    took["frozen leader"] = after
    assert not worker.endswith(f":{frozen}")
    # thawed, the old leader finds its session ended and stands by: one refresh per tick
    thawed_at = utcnow()
    time.sleep(2 * TICK_SECONDS + 1)
    store = Store(cluster.url)
    since = [r for r in runs_of(store, BUNDLED) if r.started_at > thawed_at]
    store.dispose()
    assert since and all(not r.worker.endswith(f":{frozen}") for r in since), since

    print(f"\nfirst refresh after each fault (interval {TICK_SECONDS} s): {took}")
    for fault, seconds in took.items():
        bound = interval + (STALE_AFTER_SECONDS + POLL_SECONDS if fault == "frozen leader" else 0)
        assert seconds <= bound, f"{fault}: the first refresh came {seconds:.1f}s after"
    frozen_log = (tmp_path / ("a.log" if frozen == a.pid else "b.log")).read_text()
    assert "leadership lost" in frozen_log

    # every scheduler ends on SIGTERM within the graceful stop
    for process in (a, b):
        process.send_signal(signal.SIGTERM)
    for process in (a, b):
        started = time.monotonic()
        assert process.wait(timeout=STOP_GRACE_S + 5) == 0
        assert time.monotonic() - started < STOP_GRACE_S
