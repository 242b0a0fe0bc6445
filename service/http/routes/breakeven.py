"""GET /breakeven: rent or buy, for one workload."""

from __future__ import annotations

from apiflask import APIBlueprint
from flask import Response

from service.documents.breakeven import breakeven_document
from service.documents.queries import BreakevenQuery
from service.http import current_runtime, json_response
from service.http.schemas import BreakevenAnswer, BreakevenCompact, documented_response

bp = APIBlueprint("breakeven", __name__)


@bp.get("/breakeven")
@bp.input(BreakevenQuery, location="query", arg_name="query")
@bp.doc(
    summary="Rent or buy?",
    tags=["Break-even"],
    description=(
        "Cost of buying `gpus` cards of type `gpu` against the cheapest rentals for `hours` "
        "of training on one such card: by default the answer a person reads (a few KB); with "
        "`detail=full` everything, every assumption echoed under `assumptions`."
    ),
    responses={
        200: documented_response(
            (BreakevenCompact, BreakevenAnswer),
            "The answer: compact (the default) or full (`detail=full`)",
        ),
        400: "Invalid parameters",
        404: "Unknown GPU",
        422: "Nothing to compare",
        503: "With `at=`: the worker is busy with past reads (Retry-After)",
    },
)
def get_breakeven(query: BreakevenQuery) -> Response:
    # Two shapes, by `detail`: BreakevenCompact and BreakevenAnswer document them.
    runtime = current_runtime()
    # with at=, a run window's table not in memory is built in a heavy-read slot
    # (service/catalog.py build_past_with); the quote on it costs what today's does
    return json_response(breakeven_document(query, runtime))
