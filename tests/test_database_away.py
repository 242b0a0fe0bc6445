"""With the database away, a real `breakeven serve` keeps answering from memory (marked),
refuses what needs the database with 503 problem documents, and recovers by itself.

The outage is a TCP proxy (a thread here, on 127.0.0.1) between the server and PostgreSQL,
cut and restored; a held table lock is another connection's ACCESS EXCLUSIVE lock.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import requests
from sqlalchemy.engine import make_url

from tests.conftest import reset_postgres
from tests.servers import Server, start_server, stop_server

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

STATEMENT_TIMEOUT_S = 1.0  # BREAKEVEN_DATABASE_TIMEOUT_SECONDS for these servers
OUTAGE_S = 6.0  # how long the request loop runs with the database cut off
RECOVERY_BUDGET_S = 10.0  # catalog checks every 0.5 s; a reconnect is immediate
BREAKEVEN = "/breakeven?detail=full&gpu=rtx3090&hours=500"
NEEDS_DATABASE = ("/providers", "/offers/history?limit=5")
MARKER = "served_without_database"
STARTED_WITHOUT_CATALOG = "worker started without the catalog"  # service/http/server.py


class Proxy:
    """Forwards 127.0.0.1:<port> to PostgreSQL until cut: listener and connections closed."""

    def __init__(self, target: tuple[str, int]) -> None:
        self._target = target
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._listener: socket.socket | None = None
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            if self._listener is not None:
                with contextlib.suppress(OSError):
                    self._listener.shutdown(socket.SHUT_RDWR)
                self._listener.close()
                self._listener = None
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self._target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)  # pooled connections sit idle for long
            with self._lock:
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def proxied(postgres_url: str, tmp_path: Path) -> Iterator[tuple[Server, Proxy, str]]:
    url = make_url(postgres_url)
    proxy = Proxy((url.host or "127.0.0.1", url.port or 5432))
    proxy.start()
    through = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    server = start_server(
        tmp_path,
        BREAKEVEN_DATABASE_URL=through,
        BREAKEVEN_DATABASE_TIMEOUT_SECONDS=str(STATEMENT_TIMEOUT_S),
        BREAKEVEN_CATALOG_CHECK_SECONDS="0.5",
    )
    try:
        yield server, proxy, postgres_url
    finally:
        stop_server(server)
        proxy.cut()
        reset_postgres(postgres_url)


def _get(server: Server, path: str) -> requests.Response:
    return requests.get(server.base + path, timeout=10)


def _is_unavailable(answer: requests.Response) -> bool:
    return (
        answer.status_code == 503
        and answer.headers["Content-Type"] == "application/problem+json"
        and "Retry-After" in answer.headers
        and answer.json()["type"].endswith("database-unavailable")
    )


def test_outage_serves_from_memory_refuses_the_rest_and_recovers(
    proxied: tuple[Server, Proxy, str],
) -> None:
    server, proxy, _ = proxied
    normal = _get(server, BREAKEVEN)
    assert normal.status_code == 200 and MARKER not in normal.json()
    assert all(_get(server, path).status_code == 200 for path in NEEDS_DATABASE)

    proxy.cut()
    tally: Counter[str] = Counter()
    end = time.monotonic() + OUTAGE_S
    while time.monotonic() < end:
        answer = _get(server, BREAKEVEN)
        assert answer.status_code == 200, answer.text
        marked = MARKER in answer.json()
        tally["breakeven 200 marked" if marked else "breakeven 200 unmarked"] += 1
        for path in NEEDS_DATABASE:
            refused = _get(server, path)
            assert _is_unavailable(refused), (path, refused.status_code, refused.text)
            tally["503"] += 1
        assert _get(server, "/health").status_code == 200
        assert _is_unavailable(_get(server, "/ready"))
        tally["health 200"] += 1
    # Only the first answers of a worker that has not yet noticed may go unmarked.
    assert tally["breakeven 200 marked"] > 10 * max(1, tally["breakeven 200 unmarked"])
    marker = _get(server, BREAKEVEN).json()[MARKER]
    assert marker["since"] and marker["reason"]

    proxy.start()
    restored = time.monotonic()
    good_in_a_row = 0
    while good_in_a_row < 10:  # both workers, each answering from the database again
        assert time.monotonic() - restored < RECOVERY_BUDGET_S, tally
        answer = _get(server, BREAKEVEN)
        ok = MARKER not in answer.json() and all(
            _get(server, path).status_code == 200 for path in NEEDS_DATABASE
        )
        good_in_a_row = good_in_a_row + 1 if ok else 0
        time.sleep(0.05)
    recovery = time.monotonic() - restored
    print(f"outage: {dict(tally)}; recovered in {recovery:.2f} s")
    assert _get(server, "/ready").status_code == 200
    # issue 58, H2-4: a WARNING line per 503, never a chained traceback (4.5 KB a request)
    log = server.log_text()
    assert "Traceback" not in log, log[log.find("Traceback") - 300 : log.find("Traceback") + 3000]


def test_held_table_lock_answers_within_the_statement_timeout(
    proxied: tuple[Server, Proxy, str],
) -> None:
    server, _, postgres_url = proxied
    direct = make_url(postgres_url).set(drivername="postgresql")
    with psycopg.connect(direct.render_as_string(hide_password=False)) as holder:
        holder.execute("LOCK TABLE runs IN ACCESS EXCLUSIVE MODE")
        time.sleep(0.6)  # past a catalog check interval
        budget = STATEMENT_TIMEOUT_S + 1.5  # the timeout, a connection check, the answer
        for _ in range(5):
            started = time.monotonic()
            answer = _get(server, BREAKEVEN)
            assert answer.status_code == 200, answer.text
            assert time.monotonic() - started < budget
            started = time.monotonic()
            assert _is_unavailable(_get(server, "/providers"))
            assert time.monotonic() - started < budget
            started = time.monotonic()
            assert _get(server, "/health").status_code == 200
            assert time.monotonic() - started < 0.5
        holder.rollback()
    assert _get(server, "/providers").status_code == 200


def test_a_worker_restarted_during_an_outage_boots_and_the_server_stays_up(
    proxied: tuple[Server, Proxy, str],
) -> None:
    """A worker that needed the database to boot would fail, and gunicorn stops the whole
    server when a worker fails to boot."""
    server, proxy, _ = proxied
    workers = [int(pid) for pid in _children(server.process.pid)]
    assert len(workers) == 2
    proxy.cut()
    os.kill(workers[0], signal.SIGKILL)
    deadline = time.monotonic() + RECOVERY_BUDGET_S
    while server.log_text().count(STARTED_WITHOUT_CATALOG) < 1:  # the new worker booted
        assert server.process.poll() is None, server.log_text()
        assert time.monotonic() < deadline, "no new worker booted"
        time.sleep(0.1)
    assert len(_children(server.process.pid)) == 2
    for _ in range(20):  # both workers: the survivor from memory, the new one refuses cleanly
        assert _get(server, "/health").status_code == 200
        assert _get(server, BREAKEVEN).status_code in (200, 503)
    assert server.process.poll() is None
    proxy.start()
    deadline = time.monotonic() + RECOVERY_BUDGET_S
    while not all(_get(server, BREAKEVEN).status_code == 200 for _ in range(10)):
        assert time.monotonic() < deadline, "did not recover"
        time.sleep(0.2)


def _children(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


@pytest.mark.parametrize(
    ("table", "needs_it"),
    # (after=0:-1: past the bundled history's spans, which need no table, to the store's)
    [("runs", "/providers"), ("price_changes", "/offers/history?limit=5&after=0:-1")],
    ids=["runs-renamed", "price-changes-renamed"],
)
def test_a_broken_schema_is_a_database_fault_too(
    proxied: tuple[Server, Proxy, str], table: str, needs_it: str
) -> None:
    """The hostile run renamed a table: every endpoint, /health included, answered 500.
    Now what needs the table is a 503, the rest answers (from memory when the catalog check
    itself fails: runs), and all recover once the table is back."""
    fault = f"ALTER TABLE {table} RENAME TO {table}_gone"
    repair = f"ALTER TABLE {table}_gone RENAME TO {table}"
    server, _, postgres_url = proxied
    direct = make_url(postgres_url).set(drivername="postgresql")
    with psycopg.connect(direct.render_as_string(hide_password=False), autocommit=True) as admin:
        admin.execute(fault)
        try:
            time.sleep(1.0)  # past a catalog check
            for _ in range(10):
                assert _get(server, BREAKEVEN).status_code == 200
                assert _is_unavailable(_get(server, needs_it))
                assert _get(server, "/health").status_code == 200
            if table == "runs":  # the catalog check reads runs: answers say they are memory
                assert MARKER in _get(server, BREAKEVEN).json()
        finally:
            admin.execute(repair)
    deadline = time.monotonic() + RECOVERY_BUDGET_S
    while _get(server, needs_it).status_code != 200 or MARKER in _get(server, BREAKEVEN).json():
        assert time.monotonic() < deadline, "did not recover"
        time.sleep(0.2)
