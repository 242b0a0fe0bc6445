"""The price series: each day's low and median per accelerator-hour, per accelerator,
provider and tier, as each source's last run of the day listed them.

Written with every run from the batch it lists (a source's run lists everything it offers),
so reading years of one accelerator's chart is a range of one index, whatever the history
holds; the day's later run of the same source replaces its rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date

from sqlalchemy import Connection, delete, insert, select

from pricing.offer import Offer, PriceLine, day_prices
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
    rows = []
    for (accelerator, provider, pricing), prices in lines.items():
        low, median, offers = day_prices(prices)
        rows.append(
            {
                "accelerator": accelerator,
                "day": day,
                "adapter": adapter,
                "provider": provider,
                "pricing": pricing,
                "low": low,
                "median": median,
                "offers": offers,
            }
        )
    if rows:
        conn.execute(insert(price_series), rows)


def _read_series(conn: Connection, accelerator: str, since: date) -> list[PriceLine]:
    """One accelerator's days since ``since``, line by line (provider, tier), oldest first.
    Where two sources list one provider on a day (the bundled snapshot beside a live
    adapter), the low is the lower of theirs and the median is the source with more offers'."""
    query = (
        select(
            price_series.c.day,
            price_series.c.provider,
            price_series.c.pricing,
            price_series.c.low,
            price_series.c.median,
            price_series.c.offers,
        )
        .where(price_series.c.accelerator == accelerator, price_series.c.day >= since)
        .order_by(
            price_series.c.provider,
            price_series.c.pricing,
            price_series.c.day,
            price_series.c.offers.desc(),
        )
    )
    lines: list[PriceLine] = []
    line = PriceLine("", "")
    last_day = None
    for day, provider, pricing, low, median, offers in conn.execute(query):
        if (provider, pricing) != (line.provider, line.pricing):
            line, last_day = PriceLine(provider, pricing), None
            lines.append(line)
        if day == last_day:  # the same day from another source: the lower low
            line.low[-1] = min(line.low[-1], low)
            continue
        line.add(day, low, median, offers)
        last_day = day
    return lines
