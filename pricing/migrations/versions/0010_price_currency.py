"""A price given in another currency: the price as given and the rate that converted it.

China's GPU clouds price in yuan; their offers are compared in dollars, converted at the
ECB's reference rate of the price's day. The listing keeps what was given (``currency``,
``price_per_hour``) and the conversion (``fx_per_usd``, ``fx_day``), so an answer can show
the yuan and the rate beside the dollars. Rows already stored were given in dollars.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN with a default: in place on SQLite and PostgreSQL alike.
    op.add_column(
        "listings", sa.Column("currency", sa.String(3), nullable=False, server_default="USD")
    )
    op.add_column("listings", sa.Column("price_per_hour", sa.Float(), nullable=True))
    op.add_column("listings", sa.Column("fx_per_usd", sa.Float(), nullable=True))
    op.add_column("listings", sa.Column("fx_day", sa.String(10), nullable=False, server_default=""))


def downgrade() -> None:
    # batch mode: SQLite drops a column by copying the table
    with op.batch_alter_table("listings") as batch:
        for name in ("fx_day", "fx_per_usd", "price_per_hour", "currency"):
            batch.drop_column(name)
