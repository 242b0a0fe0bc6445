"""GET /gpus and /gpus/<id>: what the hardware data knows about each accelerator."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint

from service.answers import gpu_document, resolve_gpu
from service.schemas import GpuList, GpuOut
from service.services import current_services

bp = APIBlueprint("gpus", __name__, tag="Hardware")


@bp.get("/gpus")
@bp.output(GpuList)
@bp.doc(summary="Every accelerator: specs, purchase price, throughput, with sources")
def list_gpus() -> dict[str, Any]:
    services = current_services()
    measured = list(services.measured.all().values())
    gpus = [gpu_document(services.hardware, acc, measured) for acc in services.hardware.registry]
    return {"count": len(gpus), "gpus": gpus}


@bp.get("/gpus/<gpu_id>")
@bp.output(GpuOut)
@bp.doc(summary="One accelerator, by id or any alias", responses={404: "Unknown GPU"})
def get_gpu(gpu_id: str) -> dict[str, Any]:
    services = current_services()
    acc = resolve_gpu(services.hardware, gpu_id, parameter="gpu_id")
    return gpu_document(services.hardware, acc, services.measured.all().values())
