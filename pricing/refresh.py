"""Run adapters into the store, each on its own: one failing provider never blocks another.

A run fetches with a deadline, passes the sanity checks against the provider's current
offers, and is written in one transaction; anything that goes wrong is recorded as a failed
run and the previous current run keeps serving. Prices past the retention, where one is set,
are pruned.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta

from pricing.adapters import Adapter, Batch
from pricing.errors import AdapterError, AdapterNotConfigured, StoreError
from pricing.redact import redact
from pricing.sanity import SanityPolicy, check
from pricing.store import Store, utcnow

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RefreshPolicy:
    timeout_seconds: float = 900.0  # a whole provider fetch, all regions and pages
    # Prices older than this are forgotten (the current ones never); None keeps them all:
    # the store grows with price changes only, megabytes a year per thousand offers.
    history_days: float | None = None
    sanity: SanityPolicy = field(default_factory=SanityPolicy)


@dataclass(frozen=True)
class RunResult:
    adapter: str
    status: str  # ok, failed or skipped
    row_count: int = 0
    dropped: int = 0  # impossible prices removed by the sanity checks
    suspect: int = 0  # offers flagged by the sanity checks
    error: str = ""
    seconds: float = 0.0


def fetch_with_deadline(adapter: Adapter, timeout: float) -> Batch:
    """``adapter.fetch()`` in a daemon thread; a hung provider is abandoned, not waited on."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["batch"] = adapter.fetch()
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, name=f"fetch-{adapter.name}", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise AdapterError(f"timed out after {timeout:g} s")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["batch"]  # type: ignore[return-value]


def run_adapter(
    store: Store,
    adapter: Adapter,
    policy: RefreshPolicy | None = None,
    force: bool = False,
) -> RunResult:
    """Fetch, check and store one adapter; any failure is recorded as a failed run."""
    policy = policy or RefreshPolicy()
    started = utcnow()
    clock = time.perf_counter()
    try:
        batch = fetch_with_deadline(adapter, policy.timeout_seconds)
        previous = [s.offer for s in store.current_offers(adapter.name)]
        checked = check(list(batch.offers), previous, policy.sanity, force)
        if checked.refused:
            raise AdapterError(checked.refused)
        run = store.record_run(adapter.name, checked.offers, started, batch.source_version)
    except AdapterNotConfigured as exc:
        return RunResult(adapter.name, "skipped", error=str(exc))
    except Exception as exc:  # a provider's failure is data, not a crash
        kind = exc.kind if isinstance(exc, StoreError) else type(exc).__name__
        message = redact(f"{kind}: {exc}")  # credentials in a source URL masked everywhere
        log.warning("refresh of %s failed: %s", adapter.name, message)
        if isinstance(exc, StoreError):  # the run's error is public (/providers); the
            # driver's message (server, port, role) is for the log above
            message = f"the price store failed while writing the run ({kind})"
        store.record_failure(adapter.name, started, message)
        return RunResult(adapter.name, "failed", error=message, seconds=time.perf_counter() - clock)
    if policy.history_days is not None:
        store.prune(adapter.name, keep_after=utcnow() - timedelta(days=policy.history_days))
    store.pack(adapter.name)  # once a month's changes have gathered: see pricing/packs.py
    return RunResult(
        adapter.name,
        "ok",
        run.row_count,
        checked.dropped,
        checked.suspect,
        seconds=time.perf_counter() - clock,
    )


def refresh(
    store: Store,
    adapters: Iterable[Adapter],
    policy: RefreshPolicy | None = None,
    on_result: Callable[[RunResult], None] | None = None,
    force: bool = False,
) -> list[RunResult]:
    results = []
    for adapter in adapters:
        result = run_adapter(store, adapter, policy, force)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
