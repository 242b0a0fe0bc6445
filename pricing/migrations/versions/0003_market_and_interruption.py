"""Offers' market tier, marketplace reliability and published interruption band.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN with a default, which SQLite and PostgreSQL both do in place: the rows
    # already stored are cloud offers without a published band.
    op.add_column(
        "offers", sa.Column("market", sa.String(32), nullable=False, server_default="cloud")
    )
    op.add_column("offers", sa.Column("reliability", sa.Float(), nullable=True))
    op.add_column(
        "offers", sa.Column("interruption", sa.String(16), nullable=False, server_default="")
    )


def downgrade() -> None:
    # batch mode: SQLite drops a column by copying the table
    with op.batch_alter_table("offers") as batch:
        batch.drop_column("interruption")
        batch.drop_column("reliability")
        batch.drop_column("market")
