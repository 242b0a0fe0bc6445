"""Which catalog a question is asked of: the current one, or the one of a past moment
(`at=`), read from the runs stored then."""

from __future__ import annotations

from datetime import UTC, datetime

from service.documents.errors import InvalidQuestion, Unanswerable
from service.engine.offer_table import OfferTable
from service.runtime import Runtime


def catalog_at(runtime: Runtime, at: datetime | None) -> OfferTable:
    """The current table, or the one each source's last ok run by ``at`` made (UTC when no
    offset is given). A moment before any stored run, or in the future, is refused."""
    if at is None:
        return runtime.catalog.table()
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    if moment > datetime.now(UTC):
        raise InvalidQuestion("at", f"{moment.isoformat()} is in the future: ask without at=")
    table = runtime.catalog.table_at(moment)
    if table is None:
        first = runtime.store.first_run_finished()
        kept = f"the oldest stored run finished {first.isoformat()}" if first else "none is"
        raise Unanswerable(
            "no-prices-then",
            f"no prices were stored by {moment.isoformat()}: {kept} "
            "(BREAKEVEN_HISTORY_DAYS sets how long runs are kept)",
            "at",
            "before the first stored run",
        )
    return table
