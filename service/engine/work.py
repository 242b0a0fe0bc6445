"""How much work a job is, as people state it, in hours on one card of the kind named.

Four ways to state it: hours on the card; a run already done ("40 h on 8 x a100-80gb"); a
transformer job (a model or its parameter count, tokens, and full, LoRA or QLoRA training);
a vision job (a model, images and epochs). The engine works in hours on the named card, so
each becomes that, and the answer's ``work`` block says how.

Compute: transformer training FLOPs = 6 x active parameters x tokens (forward 2, backward 4
per parameter and token) plus attention's 12 x layers x width x sequence a token where the
model's shape is known, x the method's factor; vision training FLOPs = 3 x the forward pass
(2 FLOPs per multiply-accumulate in the model table) x images x epochs. FLOPs become hours
through the card's peak dense FP16 TFLOPS (FP32 accumulate) and a model FLOPs utilization:
for language models, fitted on published runs (hardware/utilization.py: model size, software
era, FP8, each run cited in hardware/data/sources/training_runs.csv); for CNNs, NVIDIA's
ResNet-50 v1.5 recipe, 0.19 on an A100; for vision transformers, DeiT-B, 0.21 on V100s.
Other cards get the utilization that makes their measured relative speed hold, so the FLOPs
route and the throughput table agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware import Hardware, Workload
from hardware.jobs import Method, Model
from hardware.utilization import (
    DENSE,
    MIXTURE,
    REFERENCE_CARD,
    REFERENCE_PARAMS,
    SPREAD_NAME,
    WITHIN,
    structure_of,
    training_flops,
)
from service.engine.hours import HOURS_PER_MONTH
from service.engine.memory import (
    FRAMEWORK_GB,
    cards_to_hold,
    memory_note,
    memory_parts,
    shape_of,
)

# The card the CNN utilization is anchored on (the transformer fit's reference card too).
ANCHOR_CARD = REFERENCE_CARD
# CNNs: NVIDIA DeepLearningExamples, ResNet-50 v1.5 for PyTorch (README, pytorch-21.03
# container): one A100 80GB in mixed precision trains 2,470 images/s, 90 epochs in ~14 h.
CNN_ANCHOR_IMAGES_PER_S = 2470
CNN_ANCHOR = (
    "ResNet-50 v1.5 on one A100 80GB, mixed precision: 2,470 images/s (NVIDIA "
    "DeepLearningExamples PyTorch README, pytorch-21.03); a plain PyTorch loop gets about "
    "two thirds of that (Lambda 2025-12: 1,582 images/s)"
)
# Vision transformers: DeiT-B (ViT-B/16's architecture) trains 300 ImageNet-1k epochs in
# 53 h on one 8-GPU V100 node (Touvron et al. 2021, arXiv:2012.12877, section 6). LLM runs
# would make ViT training 1.8 x too fast: 197 tokens a sequence keep the matrices small.
VIT_ANCHOR_CARD = "v100-16gb"  # the paper's V100 (16 GB in its Table 1); same chip as 32 GB
VIT_ANCHOR_GPU_HOURS = 8 * 53
VIT_ANCHOR_EPOCHS = 300
VIT_ANCHOR = (
    "DeiT-B (ViT-B/16) on ImageNet-1k: 300 epochs in 53 h on 8 x V100 (Touvron et al. 2021, "
    "arXiv:2012.12877, section 6)"
)
IMAGENET_1K_IMAGES = 1_281_167  # the ILSVRC-2012 training set
SIXTEEN_BIT_TRAINING = "fp16/bf16 mixed precision (peak dense 16-bit TFLOPS, FP32 accumulate)"
FP8_TRAINING = (
    "fp8 (linear layers in FP8, as Transformer Engine trains): the 16-bit hours / {gain:.3f}, "
    "FP8's gain on {card} (hardware/precision.py); utilization stated at 16 bits"
)
# Vision: forward 2 FLOPs per multiply-accumulate, and backward costs twice the forward.
TRAINING_FLOPS_PER_FORWARD_MAC = 6
# The work a question may state, however it states it (hours=, a run done, a job, steady
# work): the bounds of hours= and of every job once converted to hours. The upper is a real
# one: a hundred times the largest training run published with its accelerator-hours,
# Llama 3.1 405B's 30.84 million H100-80GB hours (Meta's model card, "Training Factors",
# 2024-07), so every frontier run can be asked, on any card; past it lie only typos and
# 1e308s. The lower keeps vanishing inputs out: hours=5e-324 rounded every rental's cost to
# 0 (break-even "never"), and epochs=5e-324 made a job of 0 h that Colab's session count
# turned negative.
LARGEST_PUBLISHED_RUN_HOURS = 30_840_000  # Llama 3.1 405B, H100-80GB hours (model card)
MAX_HOURS = 100 * LARGEST_PUBLISHED_RUN_HOURS
MIN_HOURS = 0.001  # 3.6 seconds of one card


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
    utilization_anchor: str | None = None  # the published runs it is scaled from
    hours_spread: tuple[float, float] | None = None  # SPREAD_NAME of hours as the anchors err
    memory_gb: float | None = None  # weights, gradients, optimizer state and activations
    memory_parts: dict[str, float] | None = None
    memory_note: str | None = None  # what memory_gb leaves out
    min_cards: int = 1  # fewest named cards that hold memory_gb
    hours_per_month: float | None = None  # steady work: this much each month ...
    months: float | None = None  # ... for this long

    @property
    def span_hours(self) -> float | None:
        """Steady work's calendar hours, its months: the deadline it sets; None otherwise."""
        return None if self.months is None else self.months * HOURS_PER_MONTH


def from_steady(hours_per_month: float, months: float) -> Work:
    """Steady work, as teams state it: about this many hours on the card every month."""
    return Work(
        "steady",
        f"{hours_per_month:g} h a month on one card for {months:g} months",
        hours_per_month * months,
        hours_per_month=hours_per_month,
        months=months,
    )


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


def anchor(
    hardware: Hardware,
    workload: Workload,
    family: str,
    active_params: float = REFERENCE_PARAMS,
    structure: str = DENSE,
) -> tuple[str, float, str]:
    """The published runs a utilization is read from: their card, the utilization they
    imply there, and the runs in words. One per kind of training: a language model (fitted
    on many, by model size), a CNN, a vision transformer."""
    if workload == Workload.CNN:
        macs = _forward_macs(hardware, "resnet50")
        achieved = CNN_ANCHOR_IMAGES_PER_S * TRAINING_FLOPS_PER_FORWARD_MAC * macs
        return ANCHOR_CARD, achieved / (_peak(hardware, ANCHOR_CARD) * 1e12), CNN_ANCHOR
    if workload == Workload.TRANSFORMER and family == "vision":
        flops = TRAINING_FLOPS_PER_FORWARD_MAC * _forward_macs(hardware, "vit-b-16")
        flops *= IMAGENET_1K_IMAGES * VIT_ANCHOR_EPOCHS
        achieved = flops / (VIT_ANCHOR_GPU_HOURS * 3600)
        return VIT_ANCHOR_CARD, achieved / (_peak(hardware, VIT_ANCHOR_CARD) * 1e12), VIT_ANCHOR
    if workload == Workload.TRANSFORMER:
        fitted = hardware.utilization
        share = fitted.utilization(active_params, structure=structure)
        return REFERENCE_CARD, share, transformer_anchor(hardware, structure)
    raise WorkError("workload", f"no published {workload} run anchors a utilization")


def transformer_anchor(hardware: Hardware, structure: str = DENSE) -> str:
    """The language-model fit in words, for the answer's ``utilization_anchor``."""
    fitted = hardware.utilization
    hits, runs = fitted.within
    low, high = fitted.spreads[structure]
    mixture = (
        f", x {fitted.mixture_factor:.3f} for a mixture of experts (routing and all-to-all)"
        if structure == MIXTURE
        else ""
    )
    return (
        f"fitted on {runs} published language-model runs (hardware/data/sources/"
        f"training_runs.csv): {fitted.at_reference:.3f} of peak on an {REFERENCE_CARD} at "
        f"{REFERENCE_PARAMS:.0e} active parameters with today's software, x (active / "
        f"{REFERENCE_PARAMS:.0e}) ^ {fitted.size_slope:.3f}{mixture}; {hits} of {runs} runs "
        f"within {WITHIN * 100:.0f} %; {structure} runs held out with their team: hours "
        f"{SPREAD_NAME} {low:.2f}-{high:.2f} x reported"
    )


def utilization(
    hardware: Hardware,
    card: str,
    workload: Workload,
    family: str = "transformer",
    active_params: float = REFERENCE_PARAMS,
    structure: str = DENSE,
) -> float:
    """Model FLOPs utilization of ``card``: the anchor's, scaled by how the card's speed
    compares with its peak against the anchor card's."""
    anchor_card, share, _ = anchor(hardware, workload, family, active_params, structure)
    speed = hardware.speed(card, workload).relative / hardware.speed(anchor_card, workload).relative
    peak = _peak(hardware, card) / _peak(hardware, anchor_card)
    return share * speed / peak


def _forward_macs(hardware: Hardware, model: str) -> float:
    macs = hardware.models[model].forward_gmacs
    if macs is None:
        raise WorkError("model", f"{model} has no sourced FLOPs per image")
    return macs * 1e9


def _peak(hardware: Hardware, card: str) -> float:
    peak = hardware.registry[card].fp16_tensor_tflops
    if peak is None:
        raise WorkError("gpu", f"no sourced peak TFLOPS for {card}: state the work in hours")
    return peak


def _from_flops(
    hardware: Hardware,
    named: str,
    workload: Workload,
    flops: float,
    family: str,
    active_params: float = REFERENCE_PARAMS,
    structure: str = DENSE,
) -> tuple[float, float]:
    """(hours on one named card, its utilization)."""
    share = utilization(hardware, named, workload, family, active_params, structure)
    return flops / (_peak(hardware, named) * 1e12 * share * 3600), share


def from_transformer(
    hardware: Hardware,
    named: str,
    model: Model | None,
    params: float | None,
    tokens: float,
    method: Method,
    active_params: float | None = None,
    seq_len: int | None = None,
    micro_batch: int = 1,
    precision: str | None = None,
) -> Work:
    """A transformer job. Compute counts the parameters each token passes through (a
    mixture of experts' active ones); memory holds them all (service/engine/memory.py). The
    time of LoRA and QLoRA is full training's times the method's measured ``time_factor``,
    not its FLOPs ratio."""
    n = model.params if model is not None else params
    if n is None:
        raise WorkError("param_count", "a transformer job needs model= or param_count=")
    active = n if active_params is None else active_params
    if active > n:
        raise WorkError(
            "active_param_count",
            f"{active:.4g} active parameters are more than the model's {n:.4g}",
        )
    shape = shape_of(model, seq_len, micro_batch)
    if shape is None:
        full = training_flops(active, tokens)
    else:
        full = training_flops(active, tokens, shape.layers, shape.hidden, shape.seq_len)
    structure = structure_of(n, active)
    hours, share = _from_flops(
        hardware,
        named,
        Workload.TRANSFORMER,
        full * method.time_factor,
        "transformer",
        active,
        structure,
    )
    trained_in = SIXTEEN_BIT_TRAINING
    if precision == "fp8":
        gain = hardware.fp8_gain(named)
        hours /= gain
        trained_in = FP8_TRAINING.format(gain=gain, card=named)
    elif precision is not None:
        trained_in = f"{precision} mixed precision (peak dense 16-bit TFLOPS, FP32 accumulate)"
    parts = memory_parts(n, method, shape)
    name = model.id if model is not None else f"a {n:.3g}-parameter model"
    if active != n:
        name += f" ({active:.3g} active a token)"
    timed = "" if method.name == "full" else f", {method.time_factor:g} x full training's time"
    return Work(
        "transformer",
        f"{method.name} training of {name} on {tokens:.3g} tokens{timed}",
        hours,
        flops=full * method.flops_factor,
        precision=trained_in,
        utilization=share,
        utilization_anchor=transformer_anchor(hardware, structure),
        hours_spread=hardware.utilization.spreads[structure],
        memory_gb=sum(parts.values()),
        memory_parts=parts,
        memory_note=memory_note(shape),
        min_cards=cards_to_hold(parts, hardware.registry[named].device_memory_gb),
    )


def from_vision(hardware: Hardware, named: str, model: Model, images: float, epochs: float) -> Work:
    """Full training of a vision model. Memory counts weights, gradients, Adam state and the
    framework: activations grow with the batch, which the answer cannot know."""
    flops = TRAINING_FLOPS_PER_FORWARD_MAC * _forward_macs(hardware, model.id) * images * epochs
    workload = Workload(model.workload)
    hours, share = _from_flops(hardware, named, workload, flops, model.family)
    parts = memory_parts(model.params, hardware.methods["full"], None)
    return Work(
        "vision",
        f"full training of {model.id} on {images:,.0f} images for {epochs:g} epochs",
        hours,
        flops=flops,
        precision=SIXTEEN_BIT_TRAINING,
        utilization=share,
        utilization_anchor=anchor(hardware, workload, model.family)[2],
        memory_gb=sum(parts.values()),
        memory_parts=parts,
        memory_note=(
            "no activations: they grow with the batch size, which is yours to pick; "
            f"framework {FRAMEWORK_GB:g} GB on each card (an assumption: no measured figure)"
        ),
        min_cards=cards_to_hold(parts, hardware.registry[named].device_memory_gb),
    )
