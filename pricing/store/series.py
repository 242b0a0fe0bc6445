"""The price series: each day's low and median per accelerator-hour, per accelerator,
provider and tier, as each source's last run of the day listed them.

Written with every run from the batch it lists (a source's run lists everything it offers),
so reading years of one accelerator's chart is a range of one index, whatever the history
holds; the day's later run of the same source replaces its rows.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import Connection, Row, delete, insert, select

from pricing.offer import DayPrices, Offer
from pricing.store.records import Run
from pricing.store.tables import price_series


def _write_series(conn: Connection, adapter: str, run: Run, batch: Sequence[Offer]) -> None:
    day = run.finished_at.date()
    lines: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for offer in batch:
        lines[offer.accelerator, offer.provider, offer.pricing].append(
            offer.usd_per_accelerator_hour
        )
    conn.execute(
        delete(price_series).where(price_series.c.adapter == adapter, price_series.c.day == day)
    )
    if lines:
        conn.execute(
            insert(price_series),
            [
                {
                    "accelerator": accelerator,
                    "day": day,
                    "adapter": adapter,
                    "provider": provider,
                    "pricing": pricing,
                    "low": min(prices),
                    "median": statistics.median(prices),
                    "offers": len(prices),
                }
                for (accelerator, provider, pricing), prices in lines.items()
            ],
        )


def _read_series(conn: Connection, accelerator: str, since: date) -> list[DayPrices]:
    """One accelerator's days since ``since``, oldest first. Where two sources list one
    provider on a day (the bundled snapshot beside a live adapter), the low is the lower of
    theirs and the median is the source with more offers'."""
    query = (
        select(price_series)
        .where(price_series.c.accelerator == accelerator, price_series.c.day >= since)
        .order_by(price_series.c.day)
    )
    lines: dict[tuple[date, str, str], list[Row[Any]]] = defaultdict(list)
    for row in conn.execute(query):
        lines[row.day, row.provider, row.pricing].append(row)
    return [
        DayPrices(
            day,
            provider,
            pricing,
            min(row.low for row in rows),
            max(rows, key=lambda row: row.offers).median,
            max(row.offers for row in rows),
        )
        for (day, provider, pricing), rows in lines.items()
    ]
