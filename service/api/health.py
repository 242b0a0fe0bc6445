"""GET /health: cheap liveness for load balancers; answers from memory."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint

from service.schemas import Health
from service.services import current_services

bp = APIBlueprint("health", __name__, tag="Operations")


@bp.get("/health")
@bp.output(Health)
@bp.doc(summary="Liveness and the catalog version this worker serves")
def health() -> dict[str, Any]:
    catalog = current_services().catalog
    table = catalog.table()
    return {"status": "ok", "catalog_version": catalog.version, "offers": len(table)}
