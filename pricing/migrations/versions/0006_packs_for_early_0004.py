"""price_packs and runs.packed where revision 0004 as it first landed left them out.

Revision 0004 was edited after it landed (commit 559d608): price_packs and its listing key
(59fe05a) and runs.packed (9357adc) were added to it in place. A store migrated to 0004
before those edits is stamped 0004 without them, so no later upgrade ran them; revision
0005 skips price_packs' index where the table is missing. This revision creates what is
missing, as today's 0004 and 0005 make it, and leaves what is there: on every other store
it does nothing. A store it completes has no packs yet, and every run reads as unpacked
(packed false), which is true of it: the next refreshes pack its older changes.

Downgrading does nothing: what it creates belongs to revisions 0004 and 0005 on every
other store, and their downgrades drop it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    found = sa.inspect(op.get_bind())
    if not found.has_table("price_packs"):
        # as revision 0004 creates it today
        op.create_table(
            "price_packs",
            sa.Column(
                "listing_id",
                sa.Integer(),
                sa.ForeignKey("listings.id", ondelete="CASCADE"),
                primary_key=True,
                autoincrement=False,
            ),
            sa.Column("first_run", sa.Integer(), primary_key=True, autoincrement=False),
            sa.Column("last_run", sa.Integer(), nullable=False),
            sa.Column("closing_price", sa.Float(), nullable=True),
            sa.Column("runs", sa.LargeBinary(), nullable=False),
            sa.Column("prices", sa.LargeBinary(), nullable=False),
            sqlite_with_rowid=False,
        )
        indexes: set[str] = set()
    else:
        indexes = {index["name"] for index in found.get_indexes("price_packs")}
    if "ix_price_packs_last_run" not in indexes:  # as revision 0005 creates it
        op.create_index("ix_price_packs_last_run", "price_packs", ["last_run"])
    if "packed" not in {column["name"] for column in found.get_columns("runs")}:
        # as revision 0004 adds it today
        op.add_column(
            "runs", sa.Column("packed", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    pass
