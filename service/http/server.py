"""`breakeven serve`: the app under gunicorn, with the store prepared before workers fork.

Workers are gevent workers: each connection is a greenlet, so idle, slow and half-sent
connections cost memory, not a worker; one that has not sent a whole request within the
keep-alive timeout is closed. Errors gunicorn answers itself (a request line or headers
too large, a malformed request) leave as RFC 9457 problem documents, like the app's own.
Request metrics are summed over workers (prometheus_client's multiprocess mode).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from http import HTTPStatus
from pathlib import Path
from typing import Any

import gunicorn.util
from gunicorn.app.base import BaseApplication
from gunicorn.workers.ggevent import GeventWorker
from sqlalchemy.exc import SQLAlchemyError

from service.catalog import describe
from service.http import EXTENSION
from service.http.app import create_app
from service.runtime import open_runtime
from service.settings import Settings

log = logging.getLogger(__name__)
WORKER_READY = "worker ready, catalog loaded:"  # one line per worker; tests wait for them

WORKER_CLASS = "service.http.server.ProblemGeventWorker"
# gunicorn's longest request line (its maximum; 0 would mean unlimited). Above the app's own
# 4 KiB query limit, so the app answers a long query with its documented 414 first.
REQUEST_LINE_LIMIT = 8190
PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:gpu-breakeven:problem:"
METRICS_DIR = "prometheus"  # under the data dir: one folder of metric files per server port
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def write_problem(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error``, writing a problem document instead of HTML."""
    body = json.dumps(
        {
            "type": f"{TYPE_PREFIX}server-{status_int}",
            "title": reason or _phrase(status_int),
            "status": status_int,
            "detail": mesg or reason,
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: {PROBLEM_JSON}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    gunicorn.util.write_nonblock(sock, head.encode("latin-1") + body)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


class ProblemGeventWorker(GeventWorker):  # type: ignore[misc]
    """The gevent worker, with problem documents for the errors gunicorn answers itself."""

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


class _Gunicorn(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings, options: dict[str, Any]) -> None:
        self._settings = settings
        self._options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        # The master prepared the store before forking (serve): a worker never needs the
        # database to boot, so one restarted during an outage still comes up.
        app = create_app(self._settings, prepare_store=False)
        try:  # load the catalog now, not on the first question: an outage then finds it
            table = app.extensions[EXTENSION].catalog.table()
        except SQLAlchemyError as error:
            log.warning("worker started without the catalog (store away): %s", describe(error))
        else:
            log.info("%s %d offers", WORKER_READY, len(table))
        return app


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
        "errorlog": "-",
    }


def serve(settings: Settings) -> None:
    # The service's own log lines beside gunicorn's, on stderr, in the same shape.
    logging.basicConfig(
        level=logging.INFO, format="[%(asctime)s] [%(process)d] [%(levelname)s] %(message)s"
    )
    # Schema and first-start snapshot once, here, so workers never race to create them.
    open_runtime(settings).store.dispose()
    prepare_metrics_dir(settings)
    _Gunicorn(settings, gunicorn_options(settings)).run()
