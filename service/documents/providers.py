"""Price sources as documents: what each serves, how old it is, what last went wrong."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from pricing.bundled_only import BUNDLED_ONLY
from pricing.dated import is_dated
from pricing.offer import PROVIDER_NAMES, READ_BEFORE, StoredOffer, in_listed_order, price_date
from pricing.redact import public_error
from pricing.refresh import RunResult
from pricing.store import ProviderStatus, Run
from service.documents.freshness import iso, price_span


def provider_document(
    status: ProviderStatus,
    stale_after_hours: float,
    served: Iterable[StoredOffer] = (),
    now: datetime | None = None,
) -> dict[str, Any]:
    """``served``: the offers of the source's current run. Stale when the run is old or its
    prices are: freshness is the age of the prices, not of the load."""
    now = now or datetime.now(UTC)
    age = (now - status.current.finished_at).total_seconds() if status.current else None
    prices = price_span(served, stale_after_hours, now)
    loaded_stale = age is None or age > stale_after_hours * 3600
    return {
        "name": status.adapter,
        "status": status.last_attempt.status,
        "current_run": _run_document(status.current, now) if status.current else None,
        "age_seconds": None if age is None else round(age, 1),
        "stale": loaded_stale or prices["stale"],
        "prices": prices,
        "last_attempt_at": iso(status.last_attempt.finished_at),
        "last_error": public_error(status.last_error),  # the detail is in the server's log
    }


# Below this share of dated rows a provider's line says why its prices carry no date.
DATED_SHARE_BAR = 0.7


def catalog_document(rows: Iterable[StoredOffer], live: frozenset[str]) -> list[dict[str, Any]]:
    """Every provider the served catalog rents from, whichever source brought it (the
    bundled snapshot holds many): its rows, how many are dated and from when, what they
    cover, and whether a live adapter refreshes it or only the bundled snapshot does."""
    by_provider: dict[str, list[StoredOffer]] = {}
    for stored in rows:
        by_provider.setdefault(stored.offer.provider, []).append(stored)
    document = []
    for provider, offers in sorted(by_provider.items()):
        # dated as pricing/dated.py says (a live run's price is dated by its run); the span
        # from the prices that name their day
        dated = sum(is_dated(s.offer.price_as_of) for s in offers)
        dates = [d for s in offers if (d := price_date(s.offer.price_as_of)) is not None]
        share = dated / len(offers)
        read_before = sum(s.offer.price_as_of.startswith(READ_BEFORE) for s in offers)
        document.append(
            {
                "provider": provider,
                "name": PROVIDER_NAMES.get(provider, provider),
                "offers": len(offers),
                "dated": dated,
                "dated_share": round(share, 3),
                "oldest_price": min(dates).isoformat() if dates else None,
                "newest_price": max(dates).isoformat() if dates else None,
                "accelerators": sorted({s.offer.accelerator for s in offers}),
                "pricing": list(in_listed_order({s.offer.pricing for s in offers})),
                "live": provider in live,
                "bundled_why": None if provider in live else BUNDLED_ONLY.get(provider),
                "undated_why": _undated_why(share, read_before, len(offers) - dated),
            }
        )
    return document


def _undated_why(share: float, read_before: int, undated: int) -> str | None:
    if share >= DATED_SHARE_BAR:
        return None
    if read_before == undated:
        return (
            f"{undated:,} of its prices were read from a public catalog that gives no date "
            "(price_as_of 'before <the day it was read>'): of unknown age, never fresh"
        )
    return f"{undated:,} of its prices carry no date their source states"


def _run_document(run: Run, now: datetime) -> dict[str, Any]:
    return {
        "id": run.id,
        "finished_at": iso(run.finished_at),
        "row_count": run.row_count,
        "source_version": run.source_version,
        "age_seconds": round((now - run.finished_at).total_seconds(), 1),
    }


def result_document(result: RunResult) -> dict[str, Any]:
    """One refresh attempt, as POST /refresh?wait=true reports it."""
    return {
        "provider": result.adapter,
        "status": result.status,
        "offers": result.row_count,
        "dropped": result.dropped,
        "suspect": result.suspect,
        "error": result.error,
        "seconds": round(result.seconds, 3),
    }


def describe_result(result: RunResult) -> str:
    """One refresh attempt as a line a person reads: the CLI and the scheduler's log."""
    line = f"{result.adapter}: {result.status}, {result.row_count} offers"
    if result.dropped:
        line += f", {result.dropped} impossible prices dropped"
    if result.suspect:
        line += f", {result.suspect} flagged suspect"
    line += f" in {result.seconds:.1f}s"
    # the reason last: a terminal cuts a long one at its width (breakeven refresh --wide)
    return f"{line} ({result.error})" if result.error else line


def describe_outcome(results: Iterable[RunResult]) -> str:
    """A whole refresh in one line: how many sources failed, and that the catalog keeps
    the last prices of those (a failed source never takes them down)."""
    done = list(results)
    failed = sum(r.status == "failed" for r in done)
    ok = sum(r.status == "ok" for r in done)
    skipped = len(done) - failed - ok
    counts = f"{ok} ok, {skipped} skipped"
    if failed:
        return (
            f"{failed} of {len(done)} sources failed ({counts}); the catalog keeps their "
            "last prices"
        )
    return f"no source failed ({counts} of {len(done)})"
