"""The runtime: what every entry point needs, built once from the settings.

Hardware data, the store, the in-memory catalog, the user's measurements and the default
cost assumptions. The web app, the CLI and the scheduler each open one and hand it down.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Generic, TypeVar

from hardware import Hardware, load_hardware
from pricing.adapters.colab import SessionTerms, load_plans, session_terms
from pricing.errors import StoreError
from pricing.fx import EuroRate, ExchangeRates, Rate, bundled_rates
from pricing.measurement_store import Measurement, latest_measurements
from pricing.past import load_past_prices
from pricing.snapshot import ensure_snapshot
from pricing.store import Store
from service.catalog import Catalog, Degraded, Health
from service.engine.assumptions import DEFAULT_ASSUMPTIONS, Assumptions, with_overrides
from service.engine.lru import Lru
from service.settings import Settings

T = TypeVar("T")
ANSWERS_REMEMBERED = 256  # distinct questions per worker; a document is a few kB


class Reread(Generic[T]):
    """A value read from the store every few seconds, so answers that use it cost no
    database round trip. A failed read keeps the last, and the health says so."""

    def __init__(self, read: Callable[[], T], initial: T, ttl_seconds: float, what: str) -> None:
        self._read = read
        self._value = initial
        self._ttl = ttl_seconds
        self._what = what
        self._read_at = float("-inf")
        self.health = Health()

    def value(self) -> T:
        if time.monotonic() - self._read_at >= self._ttl:
            self._read_at = time.monotonic()  # one reader at a time tries; the rest use these
            try:
                self._value = self._read()
            except StoreError as error:
                self.health.failed(error, self._what)
                return self._value
            self._read_at = time.monotonic()
            self.health.recovered(self._what)
        return self._value

    def reread(self) -> None:
        """Read the store again at the next use: this process has just written to it."""
        self._read_at = float("-inf")


class Measured(Reread[dict[tuple[str, str], Measurement]]):
    """The newest calibrated measurement per (card, workload)."""

    def __init__(self, store: Store, ttl_seconds: float) -> None:
        def read() -> dict[tuple[str, str], Measurement]:
            return {(m.accelerator, m.workload): m for m in latest_measurements(store)}

        super().__init__(read, {}, ttl_seconds, "measurements")

    def all(self) -> dict[tuple[str, str], Measurement]:
        return self.value()

    def get(self, accelerator: str, workload: str) -> Measurement | None:
        found = self.value().get((accelerator, workload))
        return found if found is not None and found.relative is not None else None


class Rates(Reread[ExchangeRates]):
    """The exchange rates answers convert with: the bundled year, with the days a refresh
    stored laid over it; rebuilt only when the stored days change."""

    def __init__(self, store: Store, bundled: ExchangeRates, ttl_seconds: float) -> None:
        seen: list[list[EuroRate]] = [[]]
        merged = [bundled]

        def read() -> ExchangeRates:
            stored = store.rates()
            if stored != seen[0]:
                seen[0], merged[0] = stored, bundled.merged(stored) if stored else bundled
            return merged[0]

        super().__init__(read, bundled, ttl_seconds, "exchange rates")

    def current(self) -> ExchangeRates:
        return self.value()

    def rate(self, currency: str, on: date | None = None) -> Rate:
        return self.value().rate(currency, on)


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
        ensure_snapshot(store, runtime.resolve_accelerator, settings.snapshot_file)
    return runtime
