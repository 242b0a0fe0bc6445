"""The exchange rates a refresh fetched (fx_rates): written a fetch at a time, read whole.

A fetch is written in one transaction: the days it holds replace what was stored for them,
so a day the ECB corrected carries its corrected figure, and a failed fetch writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, delete, insert, select

from pricing.fx import EuroRate
from pricing.store.tables import fx_rates


def _write_rates(conn: Connection, rates: Sequence[EuroRate], fetched_at: datetime) -> int:
    days = sorted({rate.day for rate in rates})
    for start in range(0, len(days), 500):  # a parameter list short enough for any backend
        conn.execute(delete(fx_rates).where(fx_rates.c.day.in_(days[start : start + 500])))
    rows = [
        {"day": r.day, "currency": r.currency, "per_eur": r.per_eur, "fetched_at": fetched_at}
        for r in rates
    ]
    if rows:
        conn.execute(insert(fx_rates), rows)
    return len(rows)


def _read_rates(conn: Connection) -> list[EuroRate]:
    query = select(fx_rates.c.day, fx_rates.c.currency, fx_rates.c.per_eur)
    return [EuroRate(day, currency, per_eur) for day, currency, per_eur in conn.execute(query)]
