"""Refresh runs and their offers.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("adapter", sa.String(64), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("source_version", sa.String(200), nullable=False),
        sa.Column("worker", sa.String(200), nullable=False, server_default=""),
    )
    op.create_index("ix_runs_adapter", "runs", ["adapter"])
    op.create_table(
        "offers",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "run_id", sa.Integer(), sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("provider", sa.String(64), nullable=False),
        sa.Column("service", sa.String(64), nullable=False),
        sa.Column("product", sa.String(200), nullable=False),
        sa.Column("region", sa.String(64), nullable=False),
        sa.Column("zone", sa.String(64), nullable=False),
        sa.Column("accelerator", sa.String(64), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("memory_gb", sa.Float(), nullable=True),
        sa.Column("pricing", sa.String(32), nullable=False),
        sa.Column("usd_per_hour", sa.Float(), nullable=False),
        sa.Column("host_included", sa.Boolean(), nullable=False),
        sa.Column("estimated", sa.Boolean(), nullable=False),
        sa.Column("suspect", sa.Boolean(), nullable=False),
        sa.Column("confidence", sa.String(32), nullable=False),
        sa.Column("price_as_of", sa.String(64), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
    )
    op.create_index("ix_offers_run_id", "offers", ["run_id"])
    op.create_index("ix_offers_accelerator", "offers", ["accelerator"])


def downgrade() -> None:
    op.drop_table("offers")
    op.drop_table("runs")
