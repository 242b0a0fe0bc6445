"""Revision 0004 as it first landed (commit 559d608), byte for byte but for this paragraph
and one import: the store's writer it called comes from writer_559d608.py, vendored beside
it. Later commits added price_packs and runs.packed to the live revision in place (59fe05a,
9357adc); a store this built has neither. A fixture for tests/test_migrations.py.

Prices stored once per change: listings and price_changes replace the full copy per run.

Every stored run's offers are folded, adapter by adapter in run order, into the listings and
changes the store writes today (pricing/changes.py), so the history already stored is kept:
the catalog of every stored run reads back as it was written. Downgrading writes each ok
run's catalog back out as a full copy.

The fold calls the store's own writer, so a later change to how changes are written applies
to it too; a later migration that reshapes these tables must fold with the shape it knew.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

from pricing.offer import Offer, PricingModel
from tests.migrations_first.writer_559d608 import _listed, _offer, _run, _write_changes

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

# The runs table as revisions 0001 to 0004 know it.
runs = sa.table(
    "runs",
    sa.column("id", sa.Integer),
    sa.column("adapter", sa.String),
    sa.column("started_at", sa.DateTime(timezone=True)),
    sa.column("finished_at", sa.DateTime(timezone=True)),
    sa.column("status", sa.String),
    sa.column("row_count", sa.Integer),
    sa.column("error", sa.Text),
    sa.column("source_version", sa.String),
    sa.column("worker", sa.String),
)

OFFER_COLUMNS = (
    ("provider", sa.String(64)),
    ("service", sa.String(64)),
    ("product", sa.String(200)),
    ("region", sa.String(64)),
    ("zone", sa.String(64)),
    ("accelerator", sa.String(64)),
    ("count", sa.Integer()),
    ("memory_gb", sa.Float()),
    ("pricing", sa.String(32)),
    ("usd_per_hour", sa.Float()),
    ("host_included", sa.Boolean()),
    ("estimated", sa.Boolean()),
    ("suspect", sa.Boolean()),
    ("confidence", sa.String(32)),
    ("price_as_of", sa.String(64)),
    ("source", sa.Text()),
    ("notes", sa.Text()),
    ("market", sa.String(32)),
    ("reliability", sa.Float()),
    ("interruption", sa.String(16)),
)
NULLABLE = {"memory_gb", "reliability"}
# The offers table as revision 0003 left it: one full copy of the catalog per run.
offers = sa.table(
    "offers",
    sa.column("id", sa.Integer),
    sa.column("run_id", sa.Integer),
    *(sa.column(name, kind) for name, kind in OFFER_COLUMNS),
)

# Runs between progress lines while folding a long history.
PROGRESS_EVERY = 100


def upgrade() -> None:
    op.create_table(
        "listings",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("adapter", sa.String(64), nullable=False),
        sa.Column("digest", sa.LargeBinary(16), nullable=False),
        *(
            sa.Column(name, kind, nullable=name in NULLABLE)
            for name, kind in OFFER_COLUMNS
            if name != "usd_per_hour"
        ),
        sa.Column("usd_per_hour", sa.Float(), nullable=True),
    )
    op.create_index("ux_listings_adapter_digest", "listings", ["adapter", "digest"], unique=True)
    op.create_index("ix_listings_accelerator", "listings", ["accelerator"])
    op.create_table(
        "price_changes",
        sa.Column(
            "listing_id",
            sa.Integer(),
            sa.ForeignKey("listings.id", ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("run_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("usd_per_hour", sa.Float(), nullable=True),
        sqlite_with_rowid=False,
    )
    _fold_stored_runs(op.get_bind())
    op.drop_index("ix_offers_accelerator", "offers")
    op.drop_index("ix_offers_run_id", "offers")
    op.drop_table("offers")


def _fold_stored_runs(conn: sa.Connection) -> None:
    ok = conn.execute(sa.select(runs).where(runs.c.status == "ok").order_by(runs.c.id)).all()
    for done, row in enumerate(ok, start=1):
        run = _run(row)
        stored = conn.execute(
            sa.select(offers).where(offers.c.run_id == run.id).order_by(offers.c.id)
        ).all()
        _write_changes(conn, run.adapter, run, [_stored_offer(r) for r in stored])
        if done % PROGRESS_EVERY == 0 or done == len(ok):
            log.info("folded %d of %d stored runs into price changes", done, len(ok))


def _stored_offer(row: sa.Row) -> Offer:  # type: ignore[type-arg]
    values = {name: getattr(row, name) for name, _ in OFFER_COLUMNS}
    values["pricing"] = PricingModel(values["pricing"])
    return Offer(**values)


def downgrade() -> None:
    op.create_table(
        "offers",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "run_id", sa.Integer(), sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False
        ),
        *(sa.Column(name, kind, nullable=name in NULLABLE) for name, kind in OFFER_COLUMNS),
    )
    op.create_index("ix_offers_run_id", "offers", ["run_id"])
    op.create_index("ix_offers_accelerator", "offers", ["accelerator"])
    conn = op.get_bind()
    ok = conn.execute(sa.select(runs).where(runs.c.status == "ok").order_by(runs.c.id)).all()
    for row in ok:
        run = _run(row)
        day = run.started_at.date().isoformat()
        copy = []
        for listed in conn.execute(_listed(run.adapter, run.id)):
            offer = _offer(listed, day)
            values = {name: getattr(offer, name) for name, _ in OFFER_COLUMNS}
            copy.append({**values, "pricing": str(offer.pricing), "run_id": run.id})
        if copy:
            conn.execute(sa.insert(offers), copy)
    op.drop_table("price_changes")
    op.drop_table("listings")
