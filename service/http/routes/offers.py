"""GET /offers, /offers/history and /offers/series: the current catalog, past prices and
an accelerator's price over time, as JSON or CSV."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import Response
from pydantic import BaseModel, TypeAdapter

from service.documents.offers import history_document, offers_document, to_csv
from service.documents.queries import HistoryQuery, OffersQuery, SeriesQuery
from service.documents.series import series_document, series_points
from service.http import current_runtime, json_response
from service.http.budget import heavy_read
from service.http.compression import accepts_gzip, compress
from service.http.schemas import History, OfferList, OfferOut, Series

LARGE_PAGE = 1_000  # offers in a page past which it is read as a heavy read

bp = APIBlueprint("offers", __name__)

# `format=csv` answers text/csv; @bp.output documents the JSON form of the same 200.
CSV_TOO = {
    "description": "Successful response: JSON, or CSV rows (header line first; empty when "
    "no rows) with `format=csv`; a `Link` header with rel=next while pages remain",
    "content": {"text/csv": {"schema": {"type": "string"}}},
}


@bp.get("/offers")
@bp.input(OffersQuery, location="query", arg_name="query")
@bp.output(OfferList)
@bp.doc(
    summary="Current rental offers",
    tags=["Prices"],
    description="`format=csv` returns the same rows as text/csv.",
    responses={
        200: CSV_TOO,
        404: "Unknown accelerator",
        422: "With `at=`: no price was stored or recorded as holding then",
        503: "With `at=`, or a page of more than 1,000 offers: the worker is busy with such "
        "reads (Retry-After)",
    },
)
def list_offers(query: OffersQuery) -> Response:
    runtime = current_runtime()
    gzipped = accepts_gzip()

    def respond() -> Response:
        document = offers_document(query, runtime)
        if query.format == "csv":
            return compress(_csv(document["offers"], document), gzipped)
        # only the members the document has: an offer's `source` or, compact, its `source_ref`
        body = _validated_page(document, only_given=True)
        return compress(_json(body, document), gzipped)  # in the heavy read's thread too

    # a page of thousands of offers (megabytes of JSON to encode): off the event loop, in a
    # heavy-read slot, so four clients reading 10,000-row pages leave /health its loop and
    # each client one slot. A past moment takes a slot only to build a run window's table
    # not in memory (service/catalog.py build_past_with): one in a remembered window is
    # read in place, while other clients build theirs
    return heavy_read(respond, needed=query.limit > LARGE_PAGE)


@bp.get("/offers/history")
@bp.input(HistoryQuery, location="query", arg_name="query")
@bp.output(History)
@bp.doc(
    summary="Price series of past runs",
    tags=["Prices"],
    description="Every stored run's prices since `since`, oldest first; `format=csv` too.",
    responses={
        200: CSV_TOO,
        404: "Unknown accelerator",
        503: "The price store is not answering, or the worker is busy (Retry-After)",
    },
)
def get_offer_history(query: HistoryQuery) -> Response:
    runtime = current_runtime()

    def respond() -> Response:
        document = history_document(query, runtime)
        if query.format == "csv":
            return _csv(document["points"], document)
        return _json(_validated(History, document), document)

    return heavy_read(respond)


@bp.get("/offers/series")
@bp.input(SeriesQuery, location="query", arg_name="query")
@bp.output(Series)
@bp.doc(
    summary="An accelerator's price over time",
    tags=["Prices"],
    description="Per provider and pricing tier, the lowest and the median price per "
    "accelerator-hour on each day a price was read (by this store's runs) or recorded (the "
    "bundled history of dated public prices, before the store's first run), and the days "
    "the lowest moved. `format=csv` gives the points.",
    responses={
        200: CSV_TOO,
        404: "Unknown accelerator",
        503: "The price store is not answering, or the worker is busy (Retry-After)",
    },
)
def get_offer_series(query: SeriesQuery) -> Response:
    """Years of days are tens of thousands of numbers in columns: the document is built in
    the schema's shape and sent as it is, not validated value by value on every answer
    (tests/test_past_prices.py validates it against Series)."""
    runtime = current_runtime()

    def respond() -> Response:
        document = series_document(query, runtime)
        if query.format == "csv":
            return _csv(series_points(document), document)
        return _json(document)

    return heavy_read(respond)


# Answers are encoded where they are read: off the event loop for a heavy read (a page of
# 10,000 points is megabytes of JSON). JSON goes through its schema there, as @bp.output would
# have put it (field order, defaults), which then has nothing left to do.


def _csv(rows: list[dict[str, Any]], document: dict[str, Any]) -> Response:
    return Response(to_csv(rows), mimetype="text/csv", headers=_link(document))


def _validated(
    schema: type[BaseModel], document: dict[str, Any], only_given: bool = False
) -> dict[str, Any]:
    model = schema.model_validate(document)
    return model.model_dump(mode="json", by_alias=True, exclude_unset=only_given)


# Offers validated at once. Each validation is one call into pydantic-core, which holds the
# GIL throughout: a 10,000-offer page in one call held /health's event loop for about 100 ms.
VALIDATED_CHUNK = 250
_OFFERS = TypeAdapter(list[OfferOut])


def _validated_page(document: dict[str, Any], only_given: bool) -> dict[str, Any]:
    """As ``_validated(OfferList, document, only_given)``, the offers a chunk at a time."""
    page = _validated(OfferList, {**document, "offers": []}, only_given)
    offers, dumped = document["offers"], []
    for start in range(0, len(offers), VALIDATED_CHUNK):
        chunk = _OFFERS.validate_python(offers[start : start + VALIDATED_CHUNK])
        dumped += _OFFERS.dump_python(chunk, mode="json", by_alias=True, exclude_unset=only_given)
    page["offers"] = dumped
    return page


def _json(body: dict[str, Any], document: dict[str, Any] | None = None) -> Response:
    response = json_response(body)
    response.headers.update(_link(document or body))
    return response


def _link(document: dict[str, Any]) -> dict[str, str]:
    """RFC 8288 `Link: <...>; rel="next"` while pages remain: CSV has no body to say it in."""
    return {"Link": f'<{document["next"]}>; rel="next"'} if document["next"] else {}
