"""The price store's tables (SQLAlchemy Core): runs, the listings they list, each listing's
price changes and packs of older changes, and users' measurements.

The Alembic revisions in pricing/migrations build these tables; tests/test_refresh.py checks
that the two agree.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    false,
)

from pricing.offer import TEXT_LIMITS

metadata = MetaData()

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("adapter", String(64), nullable=False, index=True),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("status", String(16), nullable=False),  # ok, failed
    Column("row_count", Integer, nullable=False, default=0),
    Column("error", Text, nullable=False, default=""),
    Column("source_version", String(200), nullable=False, default=""),
    Column("worker", String(200), nullable=False, default="", server_default=""),
    # Its changes, and every earlier run's of its source, are in price_packs now.
    Column("packed", Boolean, nullable=False, default=False, server_default=false()),
)

# Each offer a source has listed, once: every field but the price (pricing/changes.py). A
# listing whose fields change (a new note, another interruption band) is a new listing; a
# new price is a row of price_changes.
listings = Table(
    "listings",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("adapter", String(64), nullable=False),
    Column("digest", LargeBinary(16), nullable=False),  # names the listing within its source
    Column("provider", String(TEXT_LIMITS["provider"]), nullable=False),
    Column("service", String(TEXT_LIMITS["service"]), nullable=False),
    Column("product", String(TEXT_LIMITS["product"]), nullable=False),
    Column("region", String(TEXT_LIMITS["region"]), nullable=False),
    Column("zone", String(TEXT_LIMITS["zone"]), nullable=False),
    Column("accelerator", String(TEXT_LIMITS["accelerator"]), nullable=False),
    Column("count", Integer, nullable=False),
    Column("memory_gb", Float, nullable=True),
    Column("pricing", String(TEXT_LIMITS["pricing"]), nullable=False),
    Column("host_included", Boolean, nullable=False),
    Column("estimated", Boolean, nullable=False),
    Column("suspect", Boolean, nullable=False),
    Column("confidence", String(TEXT_LIMITS["confidence"]), nullable=False),
    Column("price_as_of", String(TEXT_LIMITS["price_as_of"]), nullable=False),
    Column("source", Text, nullable=False),
    Column("notes", Text, nullable=False),
    Column("market", String(TEXT_LIMITS["market"]), nullable=False),
    Column("reliability", Float, nullable=True),
    Column("interruption", String(TEXT_LIMITS["interruption"]), nullable=False),
    Column(
        "purchase_option",
        String(TEXT_LIMITS["purchase_option"]),
        nullable=False,
        server_default="",
    ),
    Column("upfront_share", Float, nullable=True),
    # a price given in another currency: as given, and the rate that converted it (0010)
    Column("currency", String(3), nullable=False, default="USD", server_default="USD"),
    Column("price_per_hour", Float, nullable=True),
    Column("fx_per_usd", Float, nullable=True),
    Column("fx_day", String(10), nullable=False, default="", server_default=""),
    # The price its source's current run lists, NULL when it lists it no more: the current
    # catalog is read from here alone, price_changes answers for the past.
    Column("usd_per_hour", Float, nullable=True),
    Index("ux_listings_adapter_digest", "adapter", "digest", unique=True),
    Index("ix_listings_accelerator", "accelerator"),
)


def _listing_key() -> Column[int]:
    """The first half of a change's key: its listing (a Column belongs to one table)."""
    return Column(
        "listing_id",
        Integer,
        ForeignKey("listings.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )


# A listing's price from a run on, until the listing's next change; NULL: that run no longer
# listed it. Keyed (listing, run), which is also how it is read: a listing's price at a run is
# its last change at or before it. A month of changes stays here, older ones are packed
# (price_packs). run_id is not a foreign key: pruning keeps every run a change refers to.
price_changes = Table(
    "price_changes",
    metadata,
    _listing_key(),
    Column("run_id", Integer, primary_key=True, autoincrement=False),
    Column("usd_per_hour", Float, nullable=True),
    # what changed after a run: a past moment is the current catalog less that
    Index("ix_price_changes_run", "run_id"),
    sqlite_with_rowid=False,  # the key is the table: no second copy of it as an index
)

# A listing's changes over a range of runs, packed into one row once they are older than its
# source's latest KEEP_RAW_RUNS runs (pricing/packs.py): 12 bytes a change instead of ~64.
# A listing's packs come before its rows in price_changes, and never overlap.
price_packs = Table(
    "price_packs",
    metadata,
    _listing_key(),
    Column("first_run", Integer, primary_key=True, autoincrement=False),
    Column("last_run", Integer, nullable=False),
    Column("closing_price", Float, nullable=True),  # after last_run; NULL: no longer listed
    Column("runs", LargeBinary, nullable=False),
    Column("prices", LargeBinary, nullable=False),
    Index("ix_price_packs_last_run", "last_run"),
    sqlite_with_rowid=False,
)

# Each day's prices per accelerator, provider and tier as each source's last run of the day
# listed them: the lowest and the median per accelerator-hour, and how many offers. Written
# with the run (pricing/store/series.py), so a price chart over years reads a row per day
# and line instead of every listing's changes.
price_series = Table(
    "price_series",
    metadata,
    Column("accelerator", String(TEXT_LIMITS["accelerator"]), primary_key=True),
    Column("day", Date, primary_key=True),
    Column("adapter", String(64), primary_key=True),
    Column("provider", String(TEXT_LIMITS["provider"]), primary_key=True),
    Column("pricing", String(TEXT_LIMITS["pricing"]), primary_key=True),
    Column("low", Float, nullable=False),
    Column("median", Float, nullable=False),
    Column("offers", Integer, nullable=False),
    Index("ix_price_series_adapter_day", "adapter", "day"),
)

# The ECB's euro reference rates as the refresh fetched them (pricing/fx.py): a currency's
# units per euro on a working day; a day fetched again replaces its figure.
fx_rates = Table(
    "fx_rates",
    metadata,
    Column("day", Date, primary_key=True),
    Column("currency", String(3), primary_key=True),
    Column("per_eur", Float, nullable=False),
    Column("fetched_at", DateTime(timezone=True), nullable=False),
)

# Users' own throughput measurements and the calibrations that put them on the published
# scale (pricing/measurement_store.py reads and writes them).
calibrations = Table(
    "calibrations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("accelerator", String(64), nullable=False),
    Column("workload", String(16), nullable=False),
    Column("size", String(16), nullable=False),
    Column("samples_per_second", Float, nullable=False),
    Column("published_relative", Float, nullable=False),
    Column("device_name", String(200), nullable=False),
    Column("host", String(200), nullable=False),
    Column("software", String(200), nullable=False),
    Column("measured_at", DateTime(timezone=True), nullable=False),
)

measurements = Table(
    "measurements",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("accelerator", String(64), nullable=False, index=True),
    Column("workload", String(16), nullable=False),
    Column("size", String(16), nullable=False),
    Column("samples_per_second", Float, nullable=False),
    Column("spread", Float, nullable=False),
    Column("relative", Float, nullable=True),
    Column("calibration", Text, nullable=False),
    Column("device_name", String(200), nullable=False),
    Column("memory_gb", Float, nullable=True),
    Column("power_limit_w", Float, nullable=True),
    Column("host", String(200), nullable=False),
    Column("software", String(200), nullable=False),
    Column("measured_at", DateTime(timezone=True), nullable=False),
)
