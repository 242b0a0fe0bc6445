"""GET /health: cheap liveness for load balancers; answers from memory."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint

from service.http import current_runtime
from service.http.schemas import Health

bp = APIBlueprint("health", __name__)


@bp.get("/health")
@bp.output(Health)
@bp.doc(summary="Liveness and the catalog version this worker serves", tags=["Operations"])
def health() -> dict[str, Any]:
    catalog = current_runtime().catalog
    table = catalog.table()
    return {"status": "ok", "catalog_version": catalog.version, "offers": len(table)}
