"""GET /models: what a job may name (`model`, `method` on /breakeven and /rank), each with
its figures and their sources, so a client can offer them instead of guessing."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from apiflask import APIBlueprint

from service.http import current_runtime
from service.http.schemas import ModelList

bp = APIBlueprint("models", __name__)


@bp.get("/models")
@bp.output(ModelList)
@bp.doc(
    summary="The models and training methods a job may name",
    tags=["Hardware"],
    description="`model` takes an `id` here; `method` a `name` (transformer models: full, "
    "lora, qlora). Each row says where its figures come from.",
)
def list_models() -> dict[str, Any]:
    hardware = current_runtime().hardware
    models = [asdict(model) for model in hardware.models.values()]
    methods = [asdict(method) for method in hardware.methods.values()]
    return {"count": len(models), "models": models, "methods": methods}
