"""Accelerators as documents: specs, purchase price, throughput, each with its source."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from hardware import Accelerator, Hardware, UnknownAccelerator, Workload
from pricing.measurement_store import Measurement
from service.documents.errors import UnknownName
from service.documents.freshness import iso


def resolve_gpu(hardware: Hardware, name: str, parameter: str = "gpu") -> Accelerator:
    """Any alias to its accelerator, or UnknownName listing the closest ids."""
    try:
        return hardware.registry.resolve(name)
    except UnknownAccelerator as exc:
        raise UnknownName(
            "unknown-accelerator",
            str(exc),
            parameter,
            f"unknown accelerator {name!r}",
            exc.suggestions,
        ) from exc


def gpu_document(
    hardware: Hardware, acc: Accelerator, measured: Iterable[Measurement] = ()
) -> dict[str, Any]:
    card = hardware.cards.get(acc.id)
    buy = None
    if card is not None:
        buy = {
            "purchase_usd": card.purchase_usd,
            "price_kind": card.price_kind,
            "price_as_of": card.price_as_of,
            "price_source": card.price_source,
            "consumer": card.consumer,
            "confidence": card.confidence,
            "bases": card.bases(),
            "prices": [asdict(price) for price in card.prices],  # history included
        }
    throughput = {}
    for k in Workload:
        speed = hardware.throughput.get((acc.id, k))
        if speed is not None:
            throughput[str(k)] = {
                "relative": speed.relative,
                "method": speed.method,
                "source": speed.source,
            }
    return {
        "id": acc.id,
        "name": acc.name,
        "kind": acc.kind,
        "memory_gb": acc.memory_gb,
        "device_memory_gb": acc.device_memory_gb,
        "platform": acc.platform,
        "board_power_w": acc.board_power_w,
        "fp16_tensor_tflops": acc.fp16_tensor_tflops,
        "mem_bw_gbps": acc.mem_bw_gbps,
        "interconnect": acc.interconnect,
        "spec_source": acc.spec_source,
        "aliases": list(acc.aliases),
        "buy": buy,
        "throughput": throughput,
        "measured": {
            m.workload: {
                "relative": m.relative,
                "samples_per_second": m.samples_per_second,
                "spread": m.spread,
                "size": m.size,
                "device_name": m.device_name,
                "host": m.host,
                "software": m.software,
                "measured_at": iso(m.measured_at),
                "calibration": m.calibration,
            }
            for m in measured
            if m.accelerator == acc.id
        },
    }
