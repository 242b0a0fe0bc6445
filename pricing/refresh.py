"""Run adapters into the store, each on its own: one failing provider never blocks another."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pricing.adapters import Adapter, Batch
from pricing.adapters.bundled import BundledAdapter, snapshot_text, snapshot_version
from pricing.errors import AdapterNotConfigured
from pricing.offer import Offer
from pricing.store import BUNDLED, Store, utcnow

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunResult:
    adapter: str
    status: str  # ok, failed or skipped
    row_count: int = 0
    dropped: int = 0  # rows the sanity checks refused
    error: str = ""
    seconds: float = 0.0


def sane(offers: list[Offer]) -> tuple[list[Offer], int]:
    """Drop prices that cannot be real (<= 0, NaN, inf); return the kept rows and the count."""
    kept = [o for o in offers if math.isfinite(o.usd_per_hour) and o.usd_per_hour > 0]
    return kept, len(offers) - len(kept)


def run_adapter(store: Store, adapter: Adapter) -> RunResult:
    """Fetch and store one adapter; any failure is recorded as a failed run, never raised."""
    started = utcnow()
    clock = time.perf_counter()
    try:
        batch: Batch = adapter.fetch()
        kept, dropped = sane(list(batch.offers))
        store.record_run(adapter.name, kept, started, batch.source_version)
    except AdapterNotConfigured as exc:
        return RunResult(adapter.name, "skipped", error=str(exc))
    except Exception as exc:  # a provider's failure is data, not a crash
        log.warning("refresh of %s failed: %s", adapter.name, exc)
        store.record_failure(adapter.name, started, f"{type(exc).__name__}: {exc}")
        return RunResult(
            adapter.name, "failed", error=str(exc), seconds=time.perf_counter() - clock
        )
    return RunResult(adapter.name, "ok", len(kept), dropped, seconds=time.perf_counter() - clock)


def refresh(
    store: Store,
    adapters: Iterable[Adapter],
    on_result: Callable[[RunResult], None] | None = None,
) -> list[RunResult]:
    results = []
    for adapter in adapters:
        result = run_adapter(store, adapter)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def ensure_snapshot(store: Store, resolve_accelerator: Callable[[str], str | None]) -> bool:
    """Load the bundled snapshot on first start or when the package ships a new one."""
    current = store.current_runs().get(BUNDLED)
    if current is not None and current.source_version == snapshot_version(snapshot_text()):
        return False
    result = run_adapter(store, BundledAdapter(resolve_accelerator))
    if result.status != "ok":
        raise RuntimeError(f"the bundled price snapshot failed to load: {result.error}")
    return True
