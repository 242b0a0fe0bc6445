"""The runtime: what every entry point needs, built once from the settings.

Hardware data, the store, the in-memory catalog, the user's measurements and the default
cost assumptions. The web app, the CLI and the scheduler each open one and hand it down.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from hardware import Hardware, load_hardware
from pricing.adapters.colab import SessionTerms, load_plans, session_terms
from pricing.errors import StoreError
from pricing.fx import ExchangeRates, Rate, bundled_rates
from pricing.measurement_store import Measurement, latest_measurements
from pricing.past import load_past_prices
from pricing.snapshot import ensure_snapshot
from pricing.store import Store
from service.catalog import Catalog, Degraded, Health
from service.engine.assumptions import DEFAULT_ASSUMPTIONS, Assumptions, with_overrides
from service.engine.lru import Lru
from service.settings import Settings

ANSWERS_REMEMBERED = 256  # distinct questions per worker; a document is a few kB


class Measured:
    """The newest calibrated measurement per (card, workload), re-read every few seconds,
    so answers that use one cost no database round trip. A failed read keeps the last."""

    def __init__(self, store: Store, ttl_seconds: float) -> None:
        self._store = store
        self._ttl = ttl_seconds
        self._read_at = float("-inf")
        self._by_key: dict[tuple[str, str], Measurement] = {}
        self.health = Health()

    def all(self) -> dict[tuple[str, str], Measurement]:
        if time.monotonic() - self._read_at >= self._ttl:
            self._read_at = time.monotonic()  # one reader at a time tries; the rest use these
            try:
                latest = latest_measurements(self._store)
            except StoreError as error:
                self.health.failed(error, "measurements")
                return self._by_key
            self._by_key = {(m.accelerator, m.workload): m for m in latest}
            self._read_at = time.monotonic()
            self.health.recovered("measurements")
        return self._by_key

    def get(self, accelerator: str, workload: str) -> Measurement | None:
        found = self.all().get((accelerator, workload))
        return found if found is not None and found.relative is not None else None


class Rates:
    """The exchange rates answers convert with: the bundled year, with the days a refresh
    stored laid over it, re-read every few seconds. A failed read keeps the last."""

    def __init__(self, store: Store, bundled: ExchangeRates, ttl_seconds: float) -> None:
        self._store = store
        self._bundled = bundled
        self._ttl = ttl_seconds
        self._read_at = float("-inf")
        self._rates = bundled
        self.health = Health()

    def current(self) -> ExchangeRates:
        if time.monotonic() - self._read_at >= self._ttl:
            self._read_at = time.monotonic()  # one reader at a time tries; the rest use these
            try:
                stored = self._store.rates()
            except StoreError as error:
                self.health.failed(error, "exchange rates")
                return self._rates
            self._rates = self._bundled.merged(stored) if stored else self._bundled
            self._read_at = time.monotonic()
            self.health.recovered("exchange rates")
        return self._rates

    def rate(self, currency: str, on: date | None = None) -> Rate:
        return self.current().rate(currency, on)


@dataclass
class Runtime:
    settings: Settings
    hardware: Hardware
    store: Store
    catalog: Catalog
    measured: Measured
    assumptions: Assumptions  # the deployment's defaults (BREAKEVEN_*), queries set on top
    colab: SessionTerms | None  # Colab's session length and plans (pricing/data)
    fx: Rates  # the ECB's reference rates: answers in another currency
    # Answers to questions asked again on the same catalog (dashboards poll): documents less
    # their price ages, which are recomputed on every answer.
    answers: Lru[Hashable, Any] = field(default_factory=lambda: Lru(ANSWERS_REMEMBERED))

    def resolve_accelerator(self, name: str) -> str | None:
        return self.hardware.registry.canonical(name)

    def degraded(self) -> Degraded | None:
        """The oldest store failure the in-memory data is covering for, if any."""
        healths = (self.catalog.health, self.measured.health, self.fx.health)
        found = [h.degraded for h in healths if h.degraded]
        return min(found, key=lambda d: d.since) if found else None


def open_runtime(settings: Settings, prepare_store: bool = True) -> Runtime:
    """Load the data, create the schema if needed and the bundled prices on first start.

    ``prepare_store=False`` touches no database: for web workers, whose master prepared the
    store before forking, so a worker (re)started while the database is away still boots
    and serves what it can (a worker that failed to boot would stop the whole server).
    """
    hardware = load_hardware()
    store = Store(settings.resolved_database_url(), settings.database_timeout_seconds)
    if prepare_store:
        store.create_schema()
    runtime = Runtime(
        settings,
        hardware,
        store,
        Catalog(
            store,
            hardware,
            settings.catalog_check_seconds,
            past=load_past_prices(hardware.registry.canonical),
        ),
        Measured(store, settings.catalog_check_seconds),
        with_overrides(DEFAULT_ASSUMPTIONS, settings),
        session_terms(load_plans()),
        Rates(store, bundled_rates(), settings.catalog_check_seconds),
    )
    if prepare_store:
        ensure_snapshot(store, runtime.resolve_accelerator)
    return runtime
