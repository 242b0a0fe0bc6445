"""GET /offers: the current catalog, filtered, as JSON or CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

from apiflask import APIBlueprint
from flask import Response

from service.answers import freshness, history_point, offer_document, resolve_gpu
from service.problems import invalid_parameter
from service.schemas import History, HistoryQuery, OfferList, OffersQuery
from service.services import current_services

bp = APIBlueprint("offers", __name__, tag="Prices")

DEFAULT_HISTORY = timedelta(days=30)  # the window /offers/history shows without `since`
# `format=csv` answers text/csv; @bp.output documents the JSON form of the same 200.
CSV_TOO = {
    "description": "Successful response: JSON, or CSV rows (header line first; empty when "
    "no rows) with `format=csv`",
    "content": {"text/csv": {"schema": {"type": "string"}}},
}


@bp.get("/offers")
@bp.input(OffersQuery, location="query", arg_name="query")
@bp.output(OfferList)
@bp.doc(
    summary="Current rental offers",
    description="`format=csv` returns the same rows as text/csv.",
    responses={200: CSV_TOO, 404: "Unknown accelerator"},
)
def list_offers(query: OffersQuery) -> dict[str, Any] | Response:
    services = current_services()
    accelerator = None
    if query.accelerator:
        accelerator = resolve_gpu(services.hardware, query.accelerator, "accelerator").id
    table = services.catalog.table()
    picked = [
        i
        for i, stored in enumerate(table.rows)
        if (accelerator is None or stored.offer.accelerator == accelerator)
        and (query.provider is None or stored.offer.provider == query.provider.lower())
        and (query.pricing is None or stored.offer.pricing == query.pricing)
        and (query.region is None or stored.offer.region.lower().startswith(query.region.lower()))
    ]
    chosen = [table.rows[i] for i in picked]
    rows = [offer_document(stored) for stored in chosen]
    if query.workload is not None or query.gpu is not None:
        if query.workload is None or query.gpu is None:
            raise invalid_parameter("workload", "workload and gpu go together")
        reference = resolve_gpu(services.hardware, query.gpu, "gpu").id
        s_ref = services.hardware.speed(reference, query.workload).relative
        for row, i in zip(rows, picked, strict=True):
            # usd per hour / (reference-card hours of work the offer does per hour)
            row["usd_per_reference_hour"] = (
                row["usd_per_hour"] * s_ref / (table.speed[query.workload][i])
            )
    if query.format == "csv":
        return Response(to_csv(rows), mimetype="text/csv")
    prices = freshness(chosen, services.settings.stale_after_hours)
    return {"count": len(rows), "offers": rows, "prices": prices}


@bp.get("/offers/history")
@bp.input(HistoryQuery, location="query", arg_name="query")
@bp.output(History)
@bp.doc(
    summary="Price series of past runs",
    description="Every stored run's prices since `since`, oldest first; `format=csv` too.",
    responses={200: CSV_TOO, 404: "Unknown accelerator"},
)
def offer_history(query: HistoryQuery) -> dict[str, Any] | Response:
    services = current_services()
    accelerator = None
    if query.accelerator:
        accelerator = resolve_gpu(services.hardware, query.accelerator, "accelerator").id
    since = query.since or datetime.now(UTC) - DEFAULT_HISTORY
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    points = [
        history_point(stored)
        for stored in services.store.history(
            since,
            accelerator=accelerator,
            provider=query.provider.lower() if query.provider else None,
            region_prefix=query.region.lower() if query.region else None,
            pricing=query.pricing,
            limit=query.limit,
        )
    ]
    if query.format == "csv":
        return Response(to_csv(points), mimetype="text/csv")
    return {"count": len(points), "since": since.isoformat(), "points": points}


def to_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return out.getvalue()
