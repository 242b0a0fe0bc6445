"""How much work a job is, as people state it, in hours on one card of the kind named.

Three ways to state it so far: hours on the card; a run already done ("40 h on 8 x
a100-80gb"); a transformer job (a model or its parameter count, tokens, and full, LoRA or
QLoRA training). The engine works in hours on the named card, so each becomes that, and the
answer's ``work`` block says how. (Vision jobs wait for a sourced CNN utilization anchor:
transformer runs put an A100 at 0.40 of peak, a ResNet-50 run at about half that.)

Compute: training FLOPs = 6 x parameters x tokens (forward 2, backward 4 per parameter and
token) x the method's factor. FLOPs become hours through the card's peak dense
FP16 TFLOPS (FP32 accumulate) and a model FLOPs utilization anchored on published runs: Meta's
Llama 2 pre-training on A100s implies 0.38-0.43 (hardware/data/sources/training_runs.csv).
Other cards get the utilization that makes their measured relative speed hold, so the FLOPs
route and the throughput table agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hardware import Hardware, Workload
from hardware.jobs import Method, Model

# The card the utilization is anchored on, and its utilization: Llama 2 7B/13B/70B on
# A100-80GB imply 0.391/0.377/0.428 (Touvron et al. 2023, Table 2 GPU-hours, 2T tokens).
ANCHOR_CARD = "a100-80gb"
ANCHOR_UTILIZATION = 0.40
TRAINING_FLOPS_PER_PARAM_TOKEN = 6  # Kaplan et al. 2020: forward 2, backward 4
# Activation memory the answer counts: the least a run needs, micro-batch 1 with full
# activation checkpointing, 2 x sequence x hidden bytes per layer (Korthikanti et al. 2022).
CHECKPOINTED_ACTIVATION_BYTES = 2
GB = 1e9


class WorkError(ValueError):
    """Work stated so it cannot be computed; ``parameter`` names the culprit."""

    def __init__(self, parameter: str, message: str) -> None:
        self.parameter = parameter
        super().__init__(message)


@dataclass(frozen=True)
class Work:
    """A job in hours on one card of the kind named, and how they were worked out."""

    stated: str  # hours, reference_run, transformer or vision
    description: str  # the job in words
    hours: float  # on one named card
    flops: float | None = None
    precision: str | None = None
    utilization: float | None = None  # of the named card's peak
    memory_gb: float | None = None  # weights, gradients, optimizer state and activations
    memory_parts: dict[str, float] | None = None
    min_cards: int = 1  # fewest named cards that hold memory_gb


def from_hours(hours: float) -> Work:
    return Work("hours", f"{hours:g} h on one card", hours)


def from_reference_run(
    hardware: Hardware, named: str, workload: Workload, ref_gpu: str, count: int, hours: float
) -> Work:
    """A run already done: its cards' work, in hours of the named card."""
    done = count * hours * hardware.efficiency(ref_gpu, workload, count)
    done *= hardware.speed(ref_gpu, workload).relative / hardware.speed(named, workload).relative
    return Work(
        "reference_run",
        f"a run that took {hours:g} h on {count} x {ref_gpu}",
        done,
    )


def utilization(hardware: Hardware, card: str, workload: Workload) -> float:
    """Model FLOPs utilization of ``card``: the anchor's, scaled by how the card's measured
    speed compares with its peak against the anchor's."""
    anchor = hardware.registry[ANCHOR_CARD]
    me = hardware.registry[card]
    if me.fp16_tensor_tflops is None or anchor.fp16_tensor_tflops is None:
        raise WorkError("gpu", f"no sourced peak TFLOPS for {card}: state the work in hours")
    speed = hardware.speed(card, workload).relative / hardware.speed(ANCHOR_CARD, workload).relative
    peak = me.fp16_tensor_tflops / anchor.fp16_tensor_tflops
    return ANCHOR_UTILIZATION * speed / peak


def _from_flops(
    hardware: Hardware, named: str, workload: Workload, flops: float
) -> tuple[float, float]:
    """(hours on one named card, its utilization)."""
    share = utilization(hardware, named, workload)
    peak = hardware.registry[named].fp16_tensor_tflops
    assert peak is not None  # utilization() refused a card without one
    return flops / (peak * 1e12 * share * 3600), share


def from_transformer(
    hardware: Hardware,
    named: str,
    model: Model | None,
    params: float | None,
    tokens: float,
    method: Method,
) -> Work:
    n = model.params if model is not None else params
    if n is None:
        raise WorkError("param_count", "a transformer job needs model= or param_count=")
    flops = TRAINING_FLOPS_PER_PARAM_TOKEN * n * tokens * method.flops_factor
    hours, share = _from_flops(hardware, named, Workload.TRANSFORMER, flops)
    parts = {"weights_and_optimizer": n * method.bytes_per_param / GB}
    if model is not None and model.layers and model.hidden and model.seq_len:
        activations = CHECKPOINTED_ACTIVATION_BYTES * model.seq_len * model.hidden
        parts["activations"] = activations * model.layers / GB
    need = sum(parts.values())
    card_memory = hardware.registry[named].device_memory_gb
    name = model.id if model is not None else f"a {n:.3g}-parameter model"
    return Work(
        "transformer",
        f"{method.name} training of {name} on {tokens:.3g} tokens",
        hours,
        flops=flops,
        precision="fp16/bf16 mixed precision (peak dense FP16 TFLOPS, FP32 accumulate)",
        utilization=share,
        memory_gb=need,
        memory_parts=parts,
        min_cards=max(1, math.ceil(need / card_memory)),
    )
