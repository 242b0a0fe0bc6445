"""Committed offers: a listing's purchase option and upfront share.

Reserved instances, committed-use discounts and reservations are listed beside hourly
offers (pricing reserved_1y and reserved_3y); how a term is bought is part of what the
offer is (an AWS no-upfront and all-upfront reservation of one instance are two offers),
and the share paid upfront describes it. Rows already stored are hourly offers: no
purchase option, no upfront share. Their listing keys do not change (pricing/changes.py
leaves an empty purchase option out of the key).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN with a default: in place on SQLite and PostgreSQL alike.
    op.add_column(
        "listings",
        sa.Column("purchase_option", sa.String(32), nullable=False, server_default=""),
    )
    op.add_column("listings", sa.Column("upfront_share", sa.Float(), nullable=True))


def downgrade() -> None:
    # batch mode: SQLite drops a column by copying the table
    with op.batch_alter_table("listings") as batch:
        batch.drop_column("upfront_share")
        batch.drop_column("purchase_option")
