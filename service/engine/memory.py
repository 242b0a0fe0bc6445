"""What a transformer training job holds in accelerator memory, part by part.

Model states, mixed-precision Adam (Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054, §3.1):
16-bit weights (2 bytes a parameter) and gradients (2), and fp32 master weights, momentum
and variance (12): 16 bytes for every parameter trained. LoRA freezes the model in 16 bits
(2 bytes, no gradient or optimizer state) and trains adapters at 16 bytes each; QLoRA holds
the frozen model in 4-bit NF4 with double quantization, 4.127 bits = 0.516 bytes a parameter
(Dettmers et al. 2023, arXiv:2305.14314, §3); the frozen bytes are the method's
``bytes_per_param`` (hardware/data/methods.csv).

Adapters: rank ``LORA_RANK`` on the four attention projections of every layer, an h x h
matrix each read as two of r x h: 8 r h parameters a layer (the LoRA paper adapted q and v,
Hu et al. 2021 §7.1; today's recipes adapt all four or more: a stated default).

Activations (Korthikanti et al. 2022, arXiv:2205.05198, §4, eq. 1): a GPT layer keeps
s b h (34 + 5 a s / h) bytes in 16 bits for its backward pass. With a fused attention kernel
(FlashAttention, PyTorch's SDPA) the a s / h term, the score matrix, is never stored: 34 s b h.
With full activation checkpointing, stated in every answer, each layer keeps only its input,
2 s b h, and one layer's 34 s b h is rebuilt at a time.

Logits: the output layer's b s V scores, upcast to fp32 for the loss, 4 bytes each (the data
audit's 4.2 GB for Llama 3 at 8,192 tokens).

Framework: the CUDA context and the allocator's reserve take memory no tensor accounts for;
no measured figure was found (`breakeven measure` on a GPU would give one), so
``FRAMEWORK_GB`` is a stated assumption, counted on every card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hardware.jobs import Method, Model

GB = 1e9
WEIGHT_BYTES = 2  # 16-bit weights (ZeRO §3.1)
GRADIENT_BYTES = 2
ADAM_BYTES = 12  # fp32 master weights, momentum and variance
TRAINED_BYTES = WEIGHT_BYTES + GRADIENT_BYTES + ADAM_BYTES  # 16: ZeRO's "16Ψ"
LORA_RANK = 16
LORA_MATRICES_PER_LAYER = 4  # q, k, v and o
LAYER_ACTIVATION_BYTES = 34  # per token and hidden unit, fused attention (Korthikanti eq. 1)
CHECKPOINT_BYTES = 2  # a checkpointed layer's input, 16 bits
LOGIT_BYTES = 4  # fp32 scores for the loss
FRAMEWORK_GB = 1.0  # CUDA context and allocator reserve: an assumption, see above
CHECKPOINTING = (
    "full activation checkpointing (each layer keeps its input; one layer's activations "
    "rebuilt at a time), a fused attention kernel, micro-batch {micro_batch} of {seq_len} "
    "tokens"
)


@dataclass(frozen=True)
class Shape:
    """What sizes the activations and logits: a model's layers and width, its vocabulary,
    and the sequences a step trains on."""

    layers: int
    hidden: int
    vocab: int | None
    seq_len: int
    micro_batch: int


def shape_of(model: Model | None, seq_len: int | None, micro_batch: int) -> Shape | None:
    """The shape a model's table row gives, at ``seq_len`` tokens (default: its context);
    None where there is none (a job stated by its parameter count)."""
    if model is None or not model.layers or not model.hidden:
        return None
    tokens = seq_len or model.seq_len
    if not tokens:
        return None
    return Shape(model.layers, model.hidden, model.vocab, tokens, micro_batch)


def memory_parts(params: float, method: Method, shape: Shape | None) -> dict[str, float]:
    """GB per part, for one replica of the job."""
    if method.name == "full":
        parts = {
            "weights": params * WEIGHT_BYTES / GB,
            "gradients": params * GRADIENT_BYTES / GB,
            "optimizer": params * ADAM_BYTES / GB,
        }
    else:
        parts = {"weights": params * method.bytes_per_param / GB}
        if shape is not None:
            adapters = LORA_MATRICES_PER_LAYER * 2 * LORA_RANK * shape.hidden * shape.layers
            parts["adapters"] = adapters * TRAINED_BYTES / GB
    if shape is not None:
        tokens = shape.seq_len * shape.micro_batch
        kept = CHECKPOINT_BYTES * tokens * shape.hidden * shape.layers
        rebuilt = LAYER_ACTIVATION_BYTES * tokens * shape.hidden
        parts["activations"] = (kept + rebuilt) / GB
        if shape.vocab:
            parts["logits"] = tokens * shape.vocab * LOGIT_BYTES / GB
    parts["framework"] = FRAMEWORK_GB
    return parts


UNSHARDED_PARTS = ("framework",)  # kept whole on every card: not split by ZeRO or FSDP


def unsharded_gb(parts: dict[str, float]) -> float:
    """What every card keeps for itself, whatever the sharding."""
    return sum(parts.get(part, 0.0) for part in UNSHARDED_PARTS)


def cards_to_hold(parts: dict[str, float], card_memory_gb: float) -> int:
    """The fewest cards whose memory holds the job, the model states and activations
    sharded across them (ZeRO stage 3, FSDP) and the framework's share taken on each. The
    rentals meet the same rule (MemoryNeed.per_card_overhead_gb)."""
    kept = unsharded_gb(parts)
    sharded = sum(parts.values()) - kept
    room = max(card_memory_gb - kept, 1e-9)
    return max(1, math.ceil(sharded / room))


def memory_note(shape: Shape | None) -> str:
    if shape is None:
        return (
            "no activations or logits: a job stated by its parameter count has no shape to "
            f"size them; framework {FRAMEWORK_GB:g} GB (an assumption)"
        )
    logits = "" if shape.vocab else "; no logits: the model table gives no vocabulary"
    return (
        CHECKPOINTING.format(micro_batch=shape.micro_batch, seq_len=shape.seq_len)
        + f"; framework {FRAMEWORK_GB:g} GB on each card (an assumption: no measured figure)"
        + logits
    )
