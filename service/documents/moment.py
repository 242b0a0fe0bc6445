"""Which catalog a question is asked of: the current one, or the one of a past moment
(`at=`), read from the runs stored then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.documents.errors import InvalidQuestion, Unanswerable
from service.engine.offer_table import OfferTable
from service.runtime import Runtime


def catalog_at(runtime: Runtime, at: datetime | None, accelerator: str | None = None) -> OfferTable:
    """The current table, or the one each source's last ok run by ``at`` made (UTC when no
    offset is given), of one accelerator where the question names one. A moment before any
    stored run, before the kept history or in the future, is refused."""
    if at is None:
        return runtime.catalog.table()
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    now = datetime.now(UTC)
    if moment > now:
        raise InvalidQuestion("at", f"{moment.isoformat()} is in the future: ask without at=")
    kept_days = runtime.settings.history_days
    if kept_days is not None and moment < now - timedelta(days=kept_days):
        raise Unanswerable(
            "no-prices-then",
            f"prices before {(now - timedelta(days=kept_days)).isoformat(timespec='seconds')} "
            f"are not kept: BREAKEVEN_HISTORY_DAYS is {kept_days:g}",
            "at",
            "before the kept history",
        )
    table = runtime.catalog.table_at(moment, accelerator)
    if table is None:
        first = runtime.store.first_run_finished()
        kept = f"the oldest stored run finished {first.isoformat()}" if first else "none is"
        recorded = runtime.catalog.past.first_day()
        if recorded is not None:
            kept += f"; the bundled history records prices from {recorded.isoformat()}"
        raise Unanswerable(
            "no-prices-then",
            f"no prices were stored or recorded as holding at {moment.isoformat()}: {kept}",
            "at",
            "before the first stored run, with no recorded price holding then",
        )
    return table
