"""GET /rank: which card, or which rental, gives the most of one kind of training per dollar."""

from __future__ import annotations

from apiflask import APIBlueprint
from flask import Response
from pydantic import BaseModel, ConfigDict, Field

from hardware import Workload
from service.answers import assumptions_for, resolve_gpu
from service.api import json_response
from service.ranking import RankRequest, rank, ranking_document
from service.schemas import MAX_HOURS, MAX_USD, MIN_HOURS, MIN_UTILIZATION, RankAnswer
from service.services import Services, current_services

bp = APIBlueprint("rank", __name__, tag="Hardware")


class RankQuery(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)

    workload: Workload = Field(Workload.TRANSFORMER, description="Workload class.")
    gpu: str = Field("rtx3090", max_length=100, description="The card `hours` are measured on.")
    memory: float | None = Field(None, gt=0, le=4096, description="GB needed per accelerator.")
    budget: float | None = Field(None, gt=0, le=MAX_USD, description="Max purchase, USD.")
    hours: float | None = Field(
        None, ge=MIN_HOURS, le=MAX_HOURS, description="Workload size: rank by work per TCO dollar."
    )
    top: int = Field(10, ge=1, le=100, description="Rentals listed.")
    electricity: float | None = Field(None, ge=0, le=100, description="USD per kWh.")
    pue: float | None = Field(None, ge=1, le=5, description="Power usage effectiveness.")
    load: float | None = Field(None, gt=0, le=1, description="Share of board power drawn.")
    host_cost: float | None = Field(None, ge=0, le=MAX_USD, description="Host machine, USD.")
    host_watts: float | None = Field(None, ge=0, le=100_000, description="Host power, W.")
    # MIN_UTILIZATION: utilization=5e-324 divided by zero (a 500) in the resale decay
    utilization: float | None = Field(
        None, ge=MIN_UTILIZATION, le=1, description="Share of time training."
    )
    resale: float | None = Field(None, ge=0, le=1, description="Resale share; 0 = none.")
    depreciation: float | None = Field(None, ge=0, lt=1, description="Yearly loss of resale.")
    spot_overhead: float | None = Field(None, ge=0, le=10, description="Interruption overhead.")


def rank_document(query: RankQuery, services: Services) -> dict[str, object]:
    reference = resolve_gpu(services.hardware, query.gpu)
    request = RankRequest(
        workload=query.workload,
        reference=reference.id,
        memory_gb=query.memory,
        budget_usd=query.budget,
        hours=query.hours,
        top=query.top,
        assumptions=assumptions_for(query, services.settings),
    )
    ranking = rank(services.hardware, services.catalog.table(), request)
    return ranking_document(ranking, services.settings.stale_after_hours)


@bp.get("/rank")
@bp.input(RankQuery, location="query", arg_name="query")
@bp.output(RankAnswer, description="The ranking")
@bp.doc(
    summary="Which card? Cards and rentals ranked by training per dollar",
    description=(
        "Buyable cards ranked by relative throughput per purchase dollar, or by hours of "
        "work per dollar of ownership when `hours` is given; cards below `memory` are "
        "listed apart and cards over `budget` marked. The cheapest rentals for the same "
        "work come priced per hour of `gpu`'s work."
    ),
    responses={400: "Invalid parameters", 404: "Unknown GPU"},
)
def get_rank(query: RankQuery) -> Response:
    # A Response skips APIFlask's re-validation of the output; RankAnswer documents it.
    return json_response(rank_document(query, current_services()))
