"""Each day's low and median price per accelerator, provider and tier (price_series).

A price chart over years read every listing's changes; the runs now write one row per day
and line as they land (pricing/store/series.py). A store upgraded here has its current
catalog written as the day of each source's latest run; its older days stay answerable from
`/offers/history`, not from the series.

The rows are computed here, not by the live writer: a revision must do what it did when it
was written, whatever the live code does later.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import date, datetime

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    series = op.create_table(
        "price_series",
        sa.Column("accelerator", sa.String(64), primary_key=True),
        sa.Column("day", sa.Date(), primary_key=True),
        sa.Column("adapter", sa.String(64), primary_key=True),
        sa.Column("provider", sa.String(64), primary_key=True),
        sa.Column("pricing", sa.String(32), primary_key=True),
        sa.Column("low", sa.Float(), nullable=False),
        sa.Column("median", sa.Float(), nullable=False),
        sa.Column("offers", sa.Integer(), nullable=False),
    )
    op.create_index("ix_price_series_adapter_day", "price_series", ["adapter", "day"])
    conn = op.get_bind()
    latest = dict(
        conn.execute(
            sa.text(
                "SELECT adapter, MAX(finished_at) FROM runs WHERE status = 'ok' GROUP BY adapter"
            )
        ).all()
    )
    prices: dict[tuple[object, ...], list[float]] = defaultdict(list)
    listed = conn.execute(
        sa.text(
            "SELECT adapter, accelerator, provider, pricing, usd_per_hour, count FROM listings "
            "WHERE usd_per_hour IS NOT NULL"
        )
    )
    for adapter, accelerator, provider, pricing, usd, count in listed:
        finished = latest.get(adapter)
        if finished is None or not count:
            continue
        prices[accelerator, _day(finished), adapter, provider, pricing].append(usd / count)
    rows = [
        {
            "accelerator": key[0],
            "day": key[1],
            "adapter": key[2],
            "provider": key[3],
            "pricing": key[4],
            "low": min(values),
            "median": statistics.median(values),
            "offers": len(values),
        }
        for key, values in prices.items()
    ]
    if rows:
        op.bulk_insert(series, rows)


def _day(finished: object) -> date:
    """A run's finish as SQLite (text) or PostgreSQL (a datetime) gives it, as its day."""
    if isinstance(finished, datetime):
        return finished.date()
    return date.fromisoformat(str(finished)[:10])


def downgrade() -> None:
    op.drop_index("ix_price_series_adapter_day", "price_series")
    op.drop_table("price_series")
