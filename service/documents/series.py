"""An accelerator's price over time: per provider and tier, the low and the median price
per accelerator-hour on each day a price was read or recorded, and the changes.

Days before the store's first run come from the bundled history (pricing/past.py, each
price on the day it is recorded as holding); from then on, from the store's daily series
(pricing/store/series.py), each source's last run of the day.
"""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime
from typing import Any

from pricing.offer import DayPrices
from service.documents.gpus import resolve_gpu
from service.documents.queries import SeriesQuery
from service.runtime import Runtime

# The first day a series may start: the bundled history begins in 2023.
EARLIEST = date(2000, 1, 1)
# A low that moves less than this (a rounding of the same list price) is not a change.
CHANGE_SHARE = 0.005


def series_document(query: SeriesQuery, runtime: Runtime) -> dict[str, Any]:
    accelerator = resolve_gpu(runtime.hardware, query.accelerator, "accelerator").id
    since = EARLIEST
    if query.since is not None:
        moment = query.since if query.since.tzinfo else query.since.replace(tzinfo=UTC)
        since = moment.astimezone(UTC).date()
    first_run = runtime.store.first_run_finished()
    recorded_until = first_run or datetime.now(UTC)
    recorded = runtime.catalog.past.series(accelerator, since, recorded_until)
    stored = runtime.store.series(accelerator, since) if first_run else []
    points = sorted(
        [_point(day, "recorded") for day in recorded] + [_point(day, "stored") for day in stored],
        key=lambda point: (point["provider"], point["pricing"], point["day"]),
    )
    return {
        "accelerator": accelerator,
        "since": since.isoformat(),
        "recorded_until": recorded_until.date().isoformat(),
        "count": len(points),
        "points": points,
        "changes": _changes(points),
        "next": None,
    }


def _point(prices: DayPrices, origin: str) -> dict[str, Any]:
    return {
        "day": prices.day.isoformat(),
        "provider": prices.provider,
        "pricing": prices.pricing,
        "low": round(prices.low, 4),
        "median": round(prices.median, 4),
        "offers": prices.offers,
        "origin": origin,
    }


def _changes(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each line's days whose low moved from the line's day before, newest first. The step
    from recorded prices to the store's own is not a change: the recorded ones are of fewer
    regions and offers."""
    found = []
    for before, point in itertools.pairwise(points):
        line = ("provider", "pricing", "origin")  # recorded prices cover fewer regions
        if any(before[key] != point[key] for key in line):
            continue
        if abs(point["low"] - before["low"]) > CHANGE_SHARE * before["low"]:
            found.append(
                {
                    "day": point["day"],
                    "provider": point["provider"],
                    "pricing": point["pricing"],
                    "low_before": before["low"],
                    "low": point["low"],
                    "change": round(point["low"] / before["low"] - 1, 4),
                }
            )
    return sorted(found, key=lambda change: change["day"], reverse=True)
