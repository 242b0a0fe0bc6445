"""The current catalog held in memory by each web worker, reloaded when a new run lands.

Workers ask the store for its catalog version at most every ``catalog_check_seconds``; a
quote between checks costs no database round trip at all. When the store fails, the last
good catalog keeps serving and the failure is remembered (:class:`Degraded`), so answers
can say so; the next successful check clears it.

A moment before the store's first run is answered from the bundled price history
(pricing/past.py): the prices recorded as holding then.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from hardware import Hardware
from pricing.errors import StoreError
from pricing.past import PastPrices
from pricing.store import Store, utcnow
from service.engine.lru import Lru
from service.engine.offer_table import OfferTable

log = logging.getLogger(__name__)

REASON_CHARS = 200  # a driver's message can be long; the marker keeps its first line's head
# Past catalogs (`at=`) kept per worker: a table of 100,000 offers is tens of MB.
PAST_TABLES = 4


@dataclass(frozen=True, slots=True)
class Degraded:
    """Serving from memory since ``since``, because the store failed with ``reason``."""

    since: datetime
    reason: str

    def document(self) -> dict[str, str]:
        return {"since": self.since.isoformat(timespec="seconds"), "reason": self.reason}


def describe(error: BaseException) -> str:
    """The error's class and first line: no SQL, no parameters, no credentials."""
    original = getattr(error, "orig", None) or error
    first = (str(original).strip().splitlines() or [""])[0]
    return f"{type(original).__name__}: {first}"[:REASON_CHARS]


class Health:
    """Whether the last attempt to read the store failed, and since when."""

    def __init__(self) -> None:
        self.degraded: Degraded | None = None

    def failed(self, error: BaseException, what: str) -> None:
        if self.degraded is None:
            self.degraded = Degraded(utcnow(), describe(error))
            log.warning("store unavailable, %s served from memory: %s", what, describe(error))

    def recovered(self, what: str) -> None:
        if self.degraded is not None:
            log.warning("store back; %s read again", what)
            self.degraded = None


def _in_place(build: Callable[[], OfferTable]) -> OfferTable:
    return build()


class Catalog:
    def __init__(
        self,
        store: Store,
        hardware: Hardware,
        check_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        past: PastPrices | None = None,
    ) -> None:
        self._store = store
        self.past = past if past is not None else PastPrices(())
        self._hardware = hardware
        self._check_seconds = check_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._checked_at = float("-inf")
        self.version = -1
        self._table: OfferTable | None = None
        self._past: Lru[tuple[str | int | None, ...], OfferTable] = Lru(PAST_TABLES)
        self._build_past: Callable[[Callable[[], OfferTable]], OfferTable] = _in_place
        self.health = Health()

    def build_past_with(self, runner: Callable[[Callable[[], OfferTable]], OfferTable]) -> None:
        """How a past table missing from memory is built: the web app runs it in one of the
        worker's heavy-read slots, off its event loop (service/http/budget.py), so only a
        new run window costs a slot; a moment in a remembered one is read in place, in
        milliseconds, whoever else is building. Elsewhere (the CLI) it is built in place."""
        self._build_past = runner

    def table(self) -> OfferTable:
        """The current table. Raises only when the store fails before any table is loaded."""
        due = self._table is None or self._clock() - self._checked_at >= self._check_seconds
        # With a table in hand, a request never queues behind another's check: a store that
        # hangs (a held lock) would otherwise stall every request at once.
        if due and self._lock.acquire(blocking=self._table is None):
            try:
                self._reload_if_moved()
            finally:
                self._lock.release()
        assert self._table is not None
        return self._table

    def table_at(self, moment: datetime, accelerator: str | None = None) -> OfferTable | None:
        """The catalog as it was at ``moment``, of one accelerator or all: each source's
        last ok run by then, or before any run the prices recorded as holding then. None
        when neither has one. Tables are remembered by the runs (or recorded prices) they
        hold, so every moment between two refreshes shares one."""
        current = self._store.current_runs(at=moment)
        if not current:
            return self._recorded_at(moment, accelerator)
        latest = max(run.id for run in current.values())
        if latest == self.version:  # every source's latest run had finished by then
            table = self.table()
            if latest == self.version:  # (and no newer one was loaded meanwhile)
                return table
        key = (accelerator, *sorted(run.id for run in current.values()))
        with self._lock:
            table = self._past.get(key)
        if table is None:

            def build() -> OfferTable:
                offers = self._store.current_listed(
                    at=moment, accelerator=accelerator, runs_then=current
                )
                built = OfferTable(offers, self._hardware)
                # Out of the collector's way, as the current catalog is (_load): a past
                # table is hundreds of thousands of objects, and every full collection
                # walked each one kept, holding the GIL (and so /health) for most of a second.
                gc.freeze()
                return built

            table = self._build_past(build)
            with self._lock:
                self._past.put(key, table)
        return table

    def _recorded_at(self, moment: datetime, accelerator: str | None) -> OfferTable | None:
        held = self.past.held_at(moment, accelerator)
        if not held:
            return None
        key = ("recorded", accelerator, *(id(stored.offer) for stored in held))
        with self._lock:
            table = self._past.get(key)
        if table is None:
            table = OfferTable(held, self._hardware)
            with self._lock:
                self._past.put(key, table)
        return table

    def loaded(self) -> OfferTable | None:
        """The table in memory, without asking the store (liveness)."""
        return self._table

    def _reload_if_moved(self) -> None:
        try:
            version = self._store.catalog_version()
            if version != self.version or self._table is None:
                self._load(version)
        except StoreError as error:
            self._checked_at = self._clock()  # try again after check_seconds, not at once
            if self._table is None:
                raise
            self.health.failed(error, "the catalog")
            return
        self._checked_at = self._clock()
        self.health.recovered("the catalog")

    def _load(self, version: int) -> None:
        self._table = OfferTable(self._store.current_offers(), self._hardware)
        self.version = version
        # The catalog is hundreds of thousands of long-lived objects; left in the
        # collector's generations, every full collection a request triggers walks them
        # all. Freezing moves them out of its way (the old catalog is freed as usual).
        gc.collect()
        gc.freeze()
