"""The current catalog held in memory by each web worker, reloaded when a new run lands.

Workers ask the store for its catalog version at most every ``catalog_check_seconds``; a
quote between checks costs no database round trip at all.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable

from hardware import Hardware
from pricing.store import Store
from service.engine.offer_table import OfferTable


class Catalog:
    def __init__(
        self,
        store: Store,
        hardware: Hardware,
        check_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._hardware = hardware
        self._check_seconds = check_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._checked_at = float("-inf")
        self.version = -1
        self._table: OfferTable | None = None

    def table(self) -> OfferTable:
        if self._table is None or self._clock() - self._checked_at >= self._check_seconds:
            with self._lock:
                self._reload_if_moved()
        assert self._table is not None
        return self._table

    def _reload_if_moved(self) -> None:
        version = self._store.catalog_version()
        self._checked_at = self._clock()
        if version != self.version or self._table is None:
            self._table = OfferTable(self._store.current_offers(), self._hardware)
            self.version = version
            # The catalog is hundreds of thousands of long-lived objects; left in the
            # collector's generations, every full collection a request triggers walks them
            # all. Freezing moves them out of its way (the old catalog is freed as usual).
            gc.collect()
            gc.freeze()
