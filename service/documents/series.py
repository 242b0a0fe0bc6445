"""An accelerator's price over time: per provider and tier, the low and the median price
per accelerator-hour on each day a price was read or recorded, and the changes.

Days before the store's first run come from the bundled history (pricing/past.py, each
price on the day it is recorded as holding); from then on, from the store's daily series
(pricing/store/series.py), each source's last run of the day.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

from service.documents.gpus import resolve_gpu
from service.documents.queries import SeriesQuery
from service.runtime import Runtime

# Where a series with no since= looks from (the bundled history begins in 2023); the answer
# states the first day it found instead.
EARLIEST = date(2000, 1, 1)
# A low that moves less than this (a rounding of the same list price) is not a change.
CHANGE_SHARE = 0.005
# A line's columns, one value per day.
LINE_COLUMNS = ("days", "low", "median", "offers", "origin")


def series_document(query: SeriesQuery, runtime: Runtime) -> dict[str, Any]:
    """Line by line (provider, tier), columns of days and prices: a chart reads them as
    they are, and years of days cost arrays, not an object per point."""
    accelerator = resolve_gpu(runtime.hardware, query.accelerator, "accelerator").id
    since = EARLIEST
    if query.since is not None:
        moment = query.since if query.since.tzinfo else query.since.replace(tzinfo=UTC)
        since = moment.astimezone(UTC).date()
    first_run = runtime.store.first_run_finished()
    recorded_until = first_run or datetime.now(UTC)
    joined: dict[tuple[str, str], dict[str, Any]] = {}
    sources = [("recorded", runtime.catalog.past.series(accelerator, since, recorded_until))]
    if first_run is not None:  # recorded days all come before the store's first run
        sources.append(("stored", runtime.store.series(accelerator, since)))
    for origin, found in sources:
        for line in found:
            out = joined.setdefault(
                (line.provider, line.pricing),
                {"provider": line.provider, "pricing": line.pricing}
                | {column: [] for column in LINE_COLUMNS},
            )
            out["days"] += [day.isoformat() for day in line.days]
            out["low"] += line.low
            out["median"] += line.median
            out["offers"] += line.offers
            out["origin"] += [origin] * len(line.days)
    lines = [joined[key] for key in sorted(joined)]
    return {
        "accelerator": accelerator,
        # unasked, the first day there is (never the search's floor)
        "since": since.isoformat()
        if query.since is not None
        else min((line["days"][0] for line in lines), default=recorded_until.date().isoformat()),
        "recorded_until": recorded_until.date().isoformat(),
        "count": sum(len(line["days"]) for line in lines),
        "lines": lines,
        "changes": sorted(
            (change for line in lines for change in _changes(line)),
            key=lambda change: change["day"],
            reverse=True,
        ),
        "next": None,
    }


def series_points(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The series as rows (``format=csv``): a line's day per row."""
    return [
        {
            "day": day,
            "provider": line["provider"],
            "pricing": line["pricing"],
            "low": low,
            "median": median,
            "offers": offers,
            "origin": origin,
        }
        for line in document["lines"]
        for day, low, median, offers, origin in zip(
            *(line[column] for column in LINE_COLUMNS), strict=True
        )
    ]


def _changes(line: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The days a line's low moved from its day before. The step from recorded prices to
    the store's own is not a change: the recorded ones are of fewer regions and offers."""
    low, origin = line["low"], line["origin"]
    for i in range(1, len(low)):
        before = low[i - 1]
        if origin[i] != origin[i - 1] or abs(low[i] - before) <= CHANGE_SHARE * before:
            continue  # (a low of 0 cannot be: prices are positive; 0 <= 0 skips it anyway)
        yield {
            "day": line["days"][i],
            "provider": line["provider"],
            "pricing": line["pricing"],
            "low_before": before,
            "low": low[i],
            "change": low[i] / before - 1,
        }
