"""GET /offers: the current catalog, filtered, as JSON or CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from apiflask import APIBlueprint
from flask import Response

from service.answers import offer_document, resolve_gpu
from service.schemas import OfferList, OffersQuery
from service.services import current_services

bp = APIBlueprint("offers", __name__, tag="Prices")


@bp.get("/offers")
@bp.input(OffersQuery, location="query", arg_name="query")
@bp.output(OfferList)
@bp.doc(
    summary="Current rental offers",
    description="`format=csv` returns the same rows as text/csv.",
    responses={404: "Unknown accelerator"},
)
def list_offers(query: OffersQuery) -> dict[str, Any] | Response:
    services = current_services()
    accelerator = None
    if query.accelerator:
        accelerator = resolve_gpu(services.hardware, query.accelerator, "accelerator").id
    rows = [
        offer_document(stored)
        for stored in services.catalog.table().rows
        if (accelerator is None or stored.offer.accelerator == accelerator)
        and (query.provider is None or stored.offer.provider == query.provider.lower())
        and (query.pricing is None or stored.offer.pricing == query.pricing)
        and (query.region is None or stored.offer.region.lower().startswith(query.region.lower()))
    ]
    if query.format == "csv":
        return Response(to_csv(rows), mimetype="text/csv")
    return {"count": len(rows), "offers": rows}


def to_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return out.getvalue()
