"""GET /providers: what each adapter serves and how old it is."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint

from service.answers import provider_document
from service.schemas import ProviderList
from service.services import current_services

bp = APIBlueprint("providers", __name__, tag="Prices")


@bp.get("/providers")
@bp.output(ProviderList)
@bp.doc(summary="Each price source: current run, row count, age, last error")
def list_providers() -> dict[str, Any]:
    services = current_services()
    hours = services.settings.stale_after_hours
    statuses = services.store.provider_status()
    return {"providers": [provider_document(status, hours) for status in statuses]}
