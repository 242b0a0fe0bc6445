"""GET /rank: which card, or which rental, gives the most of one kind of training per dollar."""

from __future__ import annotations

from apiflask import APIBlueprint
from flask import Response

from service.documents.queries import RankQuery
from service.documents.rank import rank_document
from service.http import current_runtime, json_response
from service.http.schemas import RankAnswer

bp = APIBlueprint("rank", __name__)


@bp.get("/rank")
@bp.input(RankQuery, location="query", arg_name="query")
@bp.output(RankAnswer, description="The ranking")
@bp.doc(
    summary="Which card? Cards and rentals ranked by training per dollar",
    tags=["Hardware"],
    description=(
        "Buyable cards ranked by relative throughput per purchase dollar, or by hours of "
        "work per dollar of ownership when `hours` is given; cards below `memory` are "
        "listed apart and cards over `budget` marked. The cheapest rentals for the same "
        "work come priced per hour of `gpu`'s work."
    ),
    responses={
        400: "Invalid parameters",
        404: "Unknown GPU",
        422: "The card does not train in `precision`",
    },
)
def get_rank(query: RankQuery) -> Response:
    # A Response skips APIFlask's re-validation of the output; RankAnswer documents it.
    return json_response(rank_document(query, current_runtime()))
