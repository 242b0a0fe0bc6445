"""Measured throughput of users' own cards, and the calibrations that convert it.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calibrations",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("accelerator", sa.String(64), nullable=False),
        sa.Column("workload", sa.String(16), nullable=False),
        sa.Column("size", sa.String(16), nullable=False),
        sa.Column("samples_per_second", sa.Float(), nullable=False),
        sa.Column("published_relative", sa.Float(), nullable=False),
        sa.Column("device_name", sa.String(200), nullable=False),
        sa.Column("host", sa.String(200), nullable=False),
        sa.Column("software", sa.String(200), nullable=False),
        sa.Column("measured_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "measurements",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("accelerator", sa.String(64), nullable=False),
        sa.Column("workload", sa.String(16), nullable=False),
        sa.Column("size", sa.String(16), nullable=False),
        sa.Column("samples_per_second", sa.Float(), nullable=False),
        sa.Column("spread", sa.Float(), nullable=False),
        sa.Column("relative", sa.Float(), nullable=True),
        sa.Column("calibration", sa.Text(), nullable=False),
        sa.Column("device_name", sa.String(200), nullable=False),
        sa.Column("memory_gb", sa.Float(), nullable=True),
        sa.Column("power_limit_w", sa.Float(), nullable=True),
        sa.Column("host", sa.String(200), nullable=False),
        sa.Column("software", sa.String(200), nullable=False),
        sa.Column("measured_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_measurements_accelerator", "measurements", ["accelerator"])


def downgrade() -> None:
    op.drop_table("measurements")
    op.drop_table("calibrations")
