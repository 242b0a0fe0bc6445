"""GET /metrics for Prometheus: refresh health from the store, requests from every worker.

Refresh figures are read from the database at scrape time, so they are the same whichever
web worker answers and include runs made by the scheduler process. Under `breakeven serve`
request counts and latencies are summed over all workers (prometheus_client's multiprocess
mode, PROMETHEUS_MULTIPROC_DIR set by service/http/server.py before the workers fork), so a
counter never goes backwards between scrapes; in a single process they are its own.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from pricing.errors import StoreError
from pricing.store import Store
from service.jobs.scheduler import SchedulerState, scheduler_state
from service.settings import Settings

METRICS = "breakeven.metrics"
MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"  # prometheus_client's own variable
# The methods a request is counted under by name. gunicorn accepts any upper-case token as a
# method; each would be a series of its own (in every worker's files too), so a client
# sending random ones grew /metrics without bound. The rest are counted as OTHER_METHOD.
METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"}
)
OTHER_METHOD = "other"
log = logging.getLogger(__name__)


class StoreCollector(Collector):
    def __init__(self, store: Store, scheduler: Callable[[], SchedulerState]) -> None:
        self._store = store
        self._scheduler = scheduler

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("breakeven_database_up", "1 when the price store answered.")
        try:
            families = list(self._families())
        except StoreError as error:
            # Request metrics stay scrapeable while the store is away.
            log.warning("store metrics unavailable: %s", type(error).__name__)
            families = []
        up.add_metric([], 1.0 if families else 0.0)
        yield up
        yield from families

    def _families(self) -> Iterator[Metric]:
        runs = GaugeMetricFamily(
            "breakeven_refresh_runs",
            "Refresh runs kept in the store, by provider and status.",
            labels=["provider", "status"],
        )
        for (adapter, status), count in sorted(self._store.run_counts().items()):
            runs.add_metric([adapter, status], count)
        last_success = GaugeMetricFamily(
            "breakeven_last_success_timestamp_seconds",
            "When each provider's current run finished (Unix time).",
            labels=["provider"],
        )
        offers = GaugeMetricFamily(
            "breakeven_offers", "Offers in each provider's current run.", labels=["provider"]
        )
        for adapter, run in sorted(self._store.current_runs().items()):
            last_success.add_metric([adapter], run.finished_at.timestamp())
            offers.add_metric([adapter], run.row_count)
        state = self._scheduler()
        active = GaugeMetricFamily(
            "breakeven_scheduler_active",
            "1 while a scheduler leads and polls; 0: scheduled refreshes are not running.",
        )
        active.add_metric([], 1.0 if state.active else 0.0)
        yield from (runs, last_success, offers, active)
        if state.quiet_seconds is not None:
            quiet = GaugeMetricFamily(
                "breakeven_scheduler_quiet_seconds",
                "Since the leading scheduler last polled its database.",
            )
            quiet.add_metric([], state.quiet_seconds)
            yield quiet


def _exposed(registry: CollectorRegistry, collector: StoreCollector) -> CollectorRegistry:
    """What a scrape reads: every worker's files in multiprocess mode, else this process."""
    directory = os.environ.get(MULTIPROC_DIR)
    if not directory:
        registry.register(collector)
        return registry
    exposed = CollectorRegistry()
    MultiProcessCollector(exposed, path=directory)
    exposed.register(collector)
    return exposed


def init_app(app: Flask, settings: Settings, store: Store) -> None:
    registry = CollectorRegistry()
    scheduler = functools.partial(scheduler_state, settings, store)
    exposed = _exposed(registry, StoreCollector(store, scheduler))
    requests_total = Counter(
        "breakeven_http_requests",
        "HTTP requests by endpoint, method and status.",
        ["endpoint", "method", "status"],
        registry=registry,
    )
    latency = Histogram(
        "breakeven_http_request_seconds",
        "HTTP request latency by endpoint.",
        ["endpoint"],
        registry=registry,
        buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
    )
    app.extensions[METRICS] = exposed

    @app.before_request
    def _start_timer() -> None:
        g.started = time.perf_counter()

    @functools.cache  # label children are looked up once per (endpoint, method, status)
    def children(endpoint: str, method: str, status: int) -> tuple[Any, Any]:
        return latency.labels(endpoint), requests_total.labels(endpoint, method, str(status))

    @app.after_request
    def _record(response: Response) -> Response:
        endpoint = request.url_rule.rule if request.url_rule else "unmatched"
        elapsed = time.perf_counter() - g.get("started", time.perf_counter())
        method = request.method if request.method in METHODS else OTHER_METHOD
        histogram, counter = children(endpoint, method, response.status_code)
        histogram.observe(elapsed)
        counter.inc()
        return response

    @app.get("/metrics")
    @app.doc(  # type: ignore[attr-defined]  # an APIFlask app
        summary="Prometheus text format",
        tags=["Operations"],
        responses={
            200: {
                "description": "Prometheus text exposition format",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            }
        },
    )
    def get_metrics() -> Response:
        # content_type, not mimetype: CONTENT_TYPE_LATEST carries its charset already, and
        # Flask would add a second one.
        return Response(generate_latest(exposed), content_type=CONTENT_TYPE_LATEST)
