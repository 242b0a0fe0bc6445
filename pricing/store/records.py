"""What the store hands out, and how its rows become it: a run (Run, ProviderStatus), an
offer from a listing's row, and the instants it writes, always UTC.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row

from pricing.changes import LISTING_FIELDS
from pricing.store.tables import listings


@dataclass(frozen=True, slots=True)
class Run:
    id: int
    adapter: str
    started_at: datetime
    finished_at: datetime
    status: str
    row_count: int
    error: str
    source_version: str
    worker: str = ""  # host:pid of the process that ran it
    packed: bool = False  # its changes are packed (pricing/packs.py)


@dataclass(frozen=True, slots=True)
class ProviderStatus:
    adapter: str
    current: Run | None  # latest ok run: what is served
    last_attempt: Run  # latest run of any status

    @property
    def last_error(self) -> str:
        return self.last_attempt.error if self.last_attempt.status != "ok" else ""


def utcnow() -> datetime:
    return datetime.now(UTC)


def this_worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back naive; they were written as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _utc(moment: datetime) -> datetime:
    """A moment as UTC before it reaches SQL (naive ones are taken as UTC): SQLite compares
    the stored text, so 19:30+01:00 and 18:30Z must be written alike to be one instant."""
    return _aware(moment).astimezone(UTC)


# The listing columns a read selects, in Offer's order (pricing/listed.py makes the offer);
# each read gives the price itself.
_LISTING_COLUMNS = tuple(listings.c[name] for name in LISTING_FIELDS)
_LISTED = len(LISTING_FIELDS)  # a read's first columns: the listing's, in this order


def _run(row: Row[Any]) -> Run:
    return Run(
        id=row.id,
        adapter=row.adapter,
        started_at=_aware(row.started_at),
        finished_at=_aware(row.finished_at),
        status=row.status,
        row_count=row.row_count,
        error=row.error,
        source_version=row.source_version,
        worker=row.worker,
        packed=row.packed,
    )
