"""The ECB's euro reference rates as refreshed (fx_rates), beside the bundled year.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fx_rates",
        sa.Column("day", sa.Date(), primary_key=True),
        sa.Column("currency", sa.String(3), primary_key=True),
        sa.Column("per_eur", sa.Float(), nullable=False),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("fx_rates")
