"""GET /providers: what each adapter serves and how old it is (503 while the store is away)."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint

from pricing.offer import StoredOffer
from service.documents.providers import catalog_document, provider_document
from service.http import current_runtime
from service.http.schemas import ProviderList
from service.jobs.refresh import live_providers
from service.jobs.scheduler import scheduler_state

bp = APIBlueprint("providers", __name__)


@bp.get("/providers")
@bp.output(ProviderList)
@bp.doc(
    summary="Each price source: current run, row count, age, last error",
    tags=["Prices"],
    responses={503: "The price store is not answering (Retry-After)"},
)
def list_providers() -> dict[str, Any]:
    runtime = current_runtime()
    hours = runtime.settings.stale_after_hours
    statuses = runtime.store.provider_status()
    served: dict[int, list[StoredOffer]] = {}
    rows = runtime.catalog.table().rows
    for stored in rows:
        served.setdefault(stored.run_id, []).append(stored)
    scheduler = scheduler_state(runtime.settings, runtime.store)
    return {
        "providers": [
            provider_document(s, hours, served.get(s.current.id, []) if s.current else [])
            for s in statuses
        ],
        "catalog": catalog_document(rows, live_providers(runtime)),
        "scheduler": {
            "active": scheduler.active,
            "quiet_seconds": None
            if scheduler.quiet_seconds is None
            else round(scheduler.quiet_seconds, 1),
            "says": scheduler.says,
        },
    }
