"""`breakeven serve`: the app under gunicorn, with the store prepared before workers fork.

Workers are gevent workers: each connection is a greenlet, so idle, slow and half-sent
connections cost memory, not a worker; one that has not sent a whole request within the
keep-alive timeout is closed. Errors gunicorn answers itself (a request line or headers
too large, a malformed request) leave as RFC 9457 problem documents, like the app's own.
Request metrics are summed over workers (prometheus_client's multiprocess mode).
"""

from __future__ import annotations

import gc
import io
import json
import logging
import os
import resource
import shutil
import sys
from collections import Counter
from collections.abc import Iterator
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Any

import gevent
import gunicorn.util
from gunicorn import glogging
from gunicorn.app.base import BaseApplication
from gunicorn.workers.ggevent import GeventWorker

from pricing.errors import StoreError
from pricing.redact import redact_secret_parameters
from service.catalog import describe
from service.http import EXTENSION
from service.http.app import create_app
from service.http.security import MAX_BODY_BYTES
from service.http.throttle import LineThrottle, held_back
from service.runtime import open_runtime
from service.settings import Settings

log = logging.getLogger(__name__)
WORKER_READY = "worker ready, catalog loaded:"  # one line per worker; tests wait for them

WORKER_CLASS = "service.http.server.ProblemGeventWorker"
# gunicorn's longest request line (its maximum; 0 would mean unlimited). Above the app's own
# 4 KiB query limit, so the app answers a long query with its documented 414 first.
REQUEST_LINE_LIMIT = 8190
# A timed-out body is logged once per address per interval, the rest counted (in /metrics too),
# for at most this many addresses at once.
GC_THRESHOLDS = (50_000, 20, 100)  # a worker's (gc.set_threshold): see _Gunicorn.load
SWITCH_INTERVAL_S = 0.001  # a worker's (sys.setswitchinterval): see _Gunicorn.load
PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:gpu-breakeven:problem:"
METRICS_DIR = "prometheus"  # under the data dir: one folder of metric files per server port
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def write_problem(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error``, writing a problem document instead of HTML. The
    status's own phrase is its title and reason: gunicorn hands a 501 the reason "Bad
    Request"."""
    phrase = _phrase(status_int)
    body = json.dumps(
        {
            "type": f"{TYPE_PREFIX}server-{status_int}",
            "title": phrase,
            "status": status_int,
            "detail": mesg or reason or phrase,
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {phrase}\r\nConnection: close\r\n"
        f"Content-Type: {PROBLEM_JSON}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    gunicorn.util.write_nonblock(sock, head.encode("latin-1") + body)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


class _BodyTimeout(Exception):
    """The request's body did not arrive within the keep-alive timeout."""


class _Preread:
    """A request body read ahead by the worker, served to the app as its wsgi.input."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)
        self.read = self._data.read
        self.readline = self._data.readline
        self.readlines = self._data.readlines

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._data)


class ProblemGeventWorker(GeventWorker):  # type: ignore[misc]
    """The gevent worker, with problem documents for the errors gunicorn answers itself, a
    deadline on reading a request's body, and a cap on one address's connections.

    gunicorn times out an idle connection and a half-sent head, but the body is read by the
    app, with no deadline: a half-sent chunked body held its greenlet for good, and 2,100 of
    them from one client filled both workers' pools. The worker now reads the body itself,
    up to the app's limit and within the keep-alive timeout (408 after it), so a malformed
    chunk is gunicorn's own 400 with one WARNING line rather than an app 500 and a traceback.
    Connections past ``web_connections_per_client`` from one address are answered 503 and
    closed at once, so one client cannot take every slot.
    """

    def init_process(self) -> None:
        self._open_by_address: Counter[str] = Counter()
        self._per_client = self.app.settings.web_connections_per_client
        self._timeouts_said = LineThrottle()
        super().init_process()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        address = addr[0] if isinstance(addr, tuple) and addr else ""
        if self._per_client and self._open_by_address[address] >= self._per_client:
            self._refuse(client, address)
            return
        self._open_by_address[address] += 1
        try:
            super().handle(listener, client, addr)
        finally:
            self._open_by_address[address] -= 1
            if not self._open_by_address[address]:
                del self._open_by_address[address]

    def _refuse(self, client: Any, address: str) -> None:
        """503 and close: refused connections are counted, not logged one by one (a flood
        of them would flood the log)."""
        refused_connections().inc()
        try:
            write_problem(
                client,
                503,
                "",
                f"more than {self._per_client} connections from {address} at once; "
                "close some and retry",
            )
        except OSError:
            pass
        finally:
            gunicorn.util.close(client)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        """Read the body first, within the keep-alive timeout and up to one byte past the
        app's limit (the app answers 413 to that byte); then the app, with the bytes read."""
        whole = True
        if req.body is not None:
            try:
                with gevent.Timeout(self.cfg.keepalive, _BodyTimeout):
                    data = req.body.read(MAX_BODY_BYTES + 1)
            except _BodyTimeout:
                body_timeouts().inc()
                self._say_timeout(addr[0])
                write_problem(
                    sock,
                    408,
                    "",
                    f"the request body did not arrive within {self.cfg.keepalive} s",
                )
                raise StopIteration from None  # the keep-alive loop closes the connection
            whole = len(data) <= MAX_BODY_BYTES
            req.body = _Preread(data)
        served = super().handle_request(listener_name, req, sock, addr)
        if not whole:  # the rest of the body is still on the socket: never parse it as a request
            raise StopIteration
        return served

    def _say_timeout(self, address: str) -> None:
        """One WARNING line per address a minute, with how many bodies timed out since the
        last: a client reconnecting half-sent bodies wrote 12,000 lines (1.27 MB) in 30 s.
        /metrics counts every one (breakeven_http_body_timeouts_total)."""
        held = self._timeouts_said.due(address)
        if held is None:
            return
        self.log.warning(
            "request body from %s not received within %ss: closed%s",
            address,
            self.cfg.keepalive,
            held_back(held, "bodies"),
        )

    def patch(self) -> None:
        super().patch()
        # psycopg picks its wait function when imported; the arbiter imported it (to prepare
        # the schema) before gevent patched select, so point it at the patched one.
        waiting = sys.modules.get("psycopg.waiting")
        if waiting is not None:
            waiting.wait = waiting.wait_select
        gunicorn.util.write_error = write_problem  # base.Worker.handle_error writes with it
        _repatch_urllib3()


def _repatch_urllib3() -> None:
    """urllib3 (imported by the CLI before the patch) holds the unpatched SSLContext by name;
    hand it gevent's, so HTTPS refreshes in a worker yield instead of blocking it."""
    import ssl

    for name in ("urllib3.util.ssl_", "urllib3.util"):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "SSLContext"):
            module.SSLContext = ssl.SSLContext


class _AccessLog(glogging.Logger):  # type: ignore[misc]
    """gunicorn's logger, with the values of secret-named query parameters masked in the
    access log's request line and query (pricing/redact.py): ?token=... is never written."""

    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> Any:
        atoms = super().atoms(resp, req, environ, request_time)
        for key in ("r", "q"):
            if atoms.get(key):
                atoms[key] = redact_secret_parameters(atoms[key])
        return atoms


class _Gunicorn(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings, options: dict[str, Any]) -> None:
        self.settings = settings  # the workers read theirs here (per-client cap)
        self._options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        # The master prepared the store before forking (serve): a worker never needs the
        # database to boot, so one restarted during an outage still comes up.
        app = create_app(self.settings, prepare_store=False)
        # A worker's event loop shares the GIL with the thread of a heavy read (budget.py):
        # the collector's full collections during a catalog build held it for up to 0.7 s
        # at CPython's thresholds (700, 10, 10), and at the default 5 ms switch interval the
        # loop waited behind the build's bytecode. Fewer, larger young collections, a full
        # one after 100 of the older, and the GIL handed over every millisecond.
        gc.set_threshold(*GC_THRESHOLDS)
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        try:  # load the catalog now, not on the first question: an outage then finds it
            table = app.extensions[EXTENSION].catalog.table()
        except StoreError as error:
            log.warning("worker started without the catalog (store away): %s", describe(error))
        else:
            log.info("%s %d offers", WORKER_READY, len(table))
        return app


@cache  # one per worker process, created after the fork (prometheus multiprocess mode)
def body_timeouts() -> Any:
    from prometheus_client import Counter as Metric

    return Metric(
        "breakeven_http_body_timeouts_total",
        "Requests closed with a 408: their body did not arrive within the keep-alive timeout.",
    )


@cache  # one per worker process, created after the fork (prometheus multiprocess mode)
def refused_connections() -> Any:
    from prometheus_client import Counter as Metric

    return Metric(
        "breakeven_http_refused_connections_total",
        "Connections refused because their address already held web_connections_per_client.",
    )


def _child_exit(_server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def prepare_metrics_dir(settings: Settings) -> Path:
    """A clean folder for this server's metric files, named in the environment before
    prometheus_client creates a metric (workers inherit it when they fork)."""
    directory = settings.data_dir / METRICS_DIR / str(settings.port)
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    os.environ[MULTIPROC_ENV] = str(directory)
    import prometheus_client.values

    # The value class is chosen when prometheus_client is imported (the CLI may have been).
    prometheus_client.values.ValueClass = prometheus_client.values.get_value_class()
    return directory


def gunicorn_options(settings: Settings) -> dict[str, Any]:
    return {
        "bind": f"{settings.host}:{settings.port}",
        "workers": settings.web_workers,
        "worker_class": WORKER_CLASS,
        "worker_connections": settings.web_worker_connections,
        "keepalive": settings.web_keepalive_seconds,
        "timeout": settings.web_worker_timeout_seconds,
        "graceful_timeout": settings.web_graceful_timeout_seconds,
        "limit_request_line": REQUEST_LINE_LIMIT,
        "child_exit": _child_exit,
        "accesslog": "-",
        "logger_class": _AccessLog,
        "errorlog": "-",
        # gunicorn's control socket would sit in ~/.gunicorn, one path for every instance on
        # the host; nothing here drives it (a signal or the orchestrator restarts workers).
        "control_socket_disable": True,
    }


def main() -> None:
    """The server on the settings of the environment (`python -m service.http`)."""
    serve(Settings())


def serve(settings: Settings) -> None:
    # The service's own log lines beside gunicorn's, on stderr, in the same shape.
    logging.basicConfig(
        level=logging.INFO, format="[%(asctime)s] [%(process)d] [%(levelname)s] %(message)s"
    )
    # Schema and first-start snapshot once, here, so workers never race to create them.
    open_runtime(settings).store.dispose()
    prepare_metrics_dir(settings)
    allow_connections(settings.web_worker_connections)
    _Gunicorn(settings, gunicorn_options(settings)).run()


FILES_BESIDE_CONNECTIONS = 256  # a worker's own files: the store, logs, metrics, libraries


def allow_connections(connections: int) -> None:
    """Raise the open-file limit so a worker can hold ``connections`` sockets (the workers
    inherit it); where the hard limit is lower, say how many it holds instead. A common
    default soft limit of 1,024 would cap the worker below its setting without a word."""
    needed = connections + FILES_BESIDE_CONNECTIONS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return
    allowed = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (allowed, hard))
    if allowed < needed:
        log.warning(
            "the open-file limit (%d) holds %d connections a worker, not "
            "web_worker_connections=%d: raise the hard limit (ulimit -Hn, LimitNOFILE)",
            hard,
            allowed - FILES_BESIDE_CONNECTIONS,
            connections,
        )
