"""Training precision: which ones an accelerator runs, and what FP8 gains over 16 bits.

The 16-bit peaks (fp16 and bf16) are one figure on every card here (accelerators.csv's
``fp16_tensor_tflops``): the two differ in which cards run them, not in speed. FP8 runs
the linear layers in 8 bits (Transformer Engine, Megatron; "typically achieving a speedup of
1.2-1.5X", Megatron-Bridge's performance guide) and was measured at 1.336 x BF16's
throughput on H100s, where the FP8 peak is twice the 16-bit one. Elsewhere the gain is
scaled by the card's own FP8-over-16-bit peak ratio: 1.336 again where FP8 doubles the peak,
1.0 where it does not (Gaudi 3, Trainium). FP8 training is measured on transformers only;
hardware/data/precisions.csv says, card by card and with its source, what each runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal, get_args

from hardware.registry import Registry
from hardware.throughput import Throughput, Workload

Precision = Literal["bf16", "fp16", "fp8"]
PRECISIONS: tuple[str, ...] = get_args(Precision)
DEFAULT_PRECISION = "bf16"
SIXTEEN_BITS = "16-bit"  # the speed class of fp16 and bf16 alike
# FP8 over BF16 training throughput, same H100s, container and layout: Llama 3.1 8B 1.335
# and 70B 1.337 on 8 and 64 GPUs (NVIDIA/dgxc-benchmarking@35a9aecc, llama3.1/README_8b.md
# and README_70b.md, NeMo 24.09); 1.31-1.40 across that repository's releases and counts
# (docs/research/training-2026-12-04/fp8.csv).
FP8_SPEEDUP = 1.336
FP8_MEASURED_ON = "h100-sxm"
FP8_PEAK_RATIO_MEASURED = 2.0  # the H100 SXM's 1,978.9 FP8 over 989.4 BF16 dense TFLOPS
FP8_WORKLOADS = frozenset({Workload.TRANSFORMER})
FP8_SOURCE = (
    "x {gain:.3f} for FP8: 1.336 over BF16 measured on H100s (NVIDIA dgxc-benchmarking, "
    "Llama 3.1 8B and 70B, NeMo 24.09){scaled}"
)

SpeedKey = tuple[Workload, str]  # a workload class at 16 bits or in FP8


def speed_key(workload: Workload, precision: str | None) -> SpeedKey:
    """What a speed depends on: the workload class, and FP8 or not (None: 16 bits)."""
    return (workload, "fp8" if precision == "fp8" else SIXTEEN_BITS)


# Every speed an offer table holds: each class at 16 bits, and transformers in FP8.
SPEED_KEYS: tuple[SpeedKey, ...] = (
    *((k, SIXTEEN_BITS) for k in Workload),
    *((k, "fp8") for k in Workload if k in FP8_WORKLOADS),
)


@dataclass(frozen=True, slots=True)
class PrecisionSupport:
    accelerator: str
    precisions: frozenset[str]
    fp8_tflops: float | None  # dense; None where FP8 runs but its peak was not read
    source: str

    def fp8_gain(self, sixteen_bit_tflops: float | None) -> tuple[float, bool]:
        """(FP8's speed over 16 bits on this card, whether its peak ratio is estimated)."""
        if "fp8" not in self.precisions:
            return 1.0, False
        if self.accelerator == FP8_MEASURED_ON:
            return FP8_SPEEDUP, False
        if self.fp8_tflops is None or not sixteen_bit_tflops:
            ratio, estimated = FP8_PEAK_RATIO_MEASURED, True
        else:
            ratio, estimated = self.fp8_tflops / sixteen_bit_tflops, False
        gain = 1.0 + (FP8_SPEEDUP - 1.0) * (ratio - 1.0) / (FP8_PEAK_RATIO_MEASURED - 1.0)
        return max(gain, 1.0), estimated


def fp8_gain(
    precisions: Mapping[str, PrecisionSupport], registry: Registry, accelerator: str
) -> float:
    """FP8's training speed over 16 bits on ``accelerator``: its support's gain at its
    16-bit peak."""
    return precisions[accelerator].fp8_gain(registry[accelerator].fp16_tensor_tflops)[0]


def in_fp8(
    throughput: Throughput, support: PrecisionSupport, sixteen_bit_tflops: float | None
) -> Throughput:
    """A card's 16-bit speed carried to FP8: measured on the H100 (both factors measured
    there), adjusted elsewhere, estimated where the 16-bit speed or the FP8 peak is."""
    gain, estimated = support.fp8_gain(sixteen_bit_tflops)
    if throughput.accelerator == FP8_MEASURED_ON:
        method = throughput.method
    elif throughput.estimated or estimated:
        method = "estimated"
    else:
        method = "adjusted"
    scaled = (
        ""
        if throughput.accelerator == FP8_MEASURED_ON
        else f", scaled by this card's FP8 over 16-bit peak ({support.source})"
    )
    return replace(
        throughput,
        relative=throughput.relative * gain,
        method=method,
        source=f"{throughput.source}; " + FP8_SOURCE.format(gain=gain, scaled=scaled),
    )
