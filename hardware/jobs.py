"""What training jobs are made of: models (parameters, shape, vision MACs per image) and
training methods (compute factor, bytes per parameter), each row with its source."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Model:
    id: str
    family: str  # transformer or vision
    workload: str  # the throughput class its training behaves like: cnn or transformer
    params: float
    layers: int | None
    hidden: int | None
    seq_len: int | None  # default context (transformers) or image side (vision)
    vocab: int | None  # transformers: the output layer's vocabulary (its logits)
    forward_gmacs: float | None  # vision: multiply-accumulates per image, forward, 10^9
    source: str
    date: str


@dataclass(frozen=True, slots=True)
class Method:
    name: str  # full, lora or qlora
    flops_factor: float  # training FLOPs against full training's 6 x params x tokens
    time_factor: float  # measured wall-clock time against full training's, same tokens
    bytes_per_param: float  # weights, gradients and optimizer state per parameter
    source: str
    notes: str
