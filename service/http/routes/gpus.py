"""GET /gpus and /gpus/<id>: what the hardware data knows about each accelerator."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint

from service.documents.gpus import gpu_document, resolve_gpu
from service.http import current_runtime
from service.http.schemas import GpuList, GpuOut

bp = APIBlueprint("gpus", __name__)


@bp.get("/gpus")
@bp.output(GpuList)
@bp.doc(
    summary="Every accelerator: specs, purchase price, throughput, with sources",
    tags=["Hardware"],
)
def list_gpus() -> dict[str, Any]:
    runtime = current_runtime()
    measured = list(runtime.measured.all().values())
    gpus = [gpu_document(runtime.hardware, acc, measured) for acc in runtime.hardware.registry]
    return {"count": len(gpus), "gpus": gpus}


@bp.get("/gpus/<gpu_id>")
@bp.output(GpuOut)
@bp.doc(
    summary="One accelerator, by id or any alias",
    tags=["Hardware"],
    responses={404: "Unknown GPU"},
)
def get_gpu(gpu_id: str) -> dict[str, Any]:
    runtime = current_runtime()
    acc = resolve_gpu(runtime.hardware, gpu_id, parameter="gpu_id")
    return gpu_document(runtime.hardware, acc, runtime.measured.all().values())
