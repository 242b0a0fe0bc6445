"""Canonical accelerator ids and every spelling the providers use for them.

AWS says ``NVIDIA A100``, GCP ``nvidia-tesla-a100``, people ``3090``: all of them resolve
through one alias table so that an offer, a card and a user's ``gpu=`` meet on one id.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Accelerator:
    id: str
    name: str
    kind: str  # "gpu", "tpu" or "accelerator" (AWS Trainium)
    memory_gb: float  # per accelerator (TPU: per chip)
    board_power_w: float | None
    fp16_tensor_tflops: float | None  # dense, FP32 accumulate (TPU: bf16 per chip)
    mem_bw_gbps: float | None
    interconnect: str  # "nvlink", "pcie" or "ici": picks the multi-GPU scaling row
    spec_source: str
    aliases: tuple[str, ...] = ()
    # The software stack a training job is written for: code for one runs unchanged on
    # another only by porting it, so offers compete only within a platform unless asked.
    platform: str = "cuda"
    # What one program addresses where that is less than the chip: a TPU v2/v3 chip is two
    # TensorCores, and a job sees one core's HBM (v3: 16 of the chip's 32 GiB).
    program_memory_gb: float | None = None

    @property
    def device_memory_gb(self) -> float:
        """Memory one device of the training job has: the per-accelerator gate's measure."""
        return self.program_memory_gb or self.memory_gb


# cuda: NVIDIA GPUs (CUDA/cuDNN); rocm: AMD GPUs (ROCm/HIP); xla: Google TPUs (JAX or
# PyTorch/XLA); neuron: AWS Trainium and Inferentia (Neuron SDK); gaudi: Intel Gaudi (the
# Intel Gaudi software stack, PyTorch through its own bridge).
PLATFORMS = ("cuda", "rocm", "xla", "neuron", "gaudi")


class UnknownAccelerator(LookupError):
    """A name that no alias resolves; carries the closest canonical ids for the error."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        self.name = name
        self.suggestions = suggestions
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"unknown accelerator {name!r}{hint}")


_SEPARATORS = re.compile(r"[\s_]+")


def normalize_name(name: str) -> str:
    """The key aliases are matched on: lowercase, spaces and underscores as dashes."""
    return _SEPARATORS.sub("-", name.strip().lower())


class Registry:
    """All accelerators, looked up by canonical id or by any alias."""

    def __init__(self, accelerators: Iterable[Accelerator]) -> None:
        self._by_id: dict[str, Accelerator] = {}
        self._by_alias: dict[str, str] = {}
        for acc in accelerators:
            if acc.id in self._by_id:
                raise ValueError(f"duplicate accelerator id {acc.id!r}")
            self._by_id[acc.id] = acc
        for acc in self._by_id.values():
            for spelling in (acc.id, acc.name, *acc.aliases):
                key = normalize_name(spelling)
                owner = self._by_alias.setdefault(key, acc.id)
                if owner != acc.id:
                    raise ValueError(f"alias {spelling!r} names both {owner!r} and {acc.id!r}")

    def __iter__(self) -> Iterator[Accelerator]:
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, accelerator_id: object) -> bool:
        return accelerator_id in self._by_id

    def __getitem__(self, accelerator_id: str) -> Accelerator:
        return self._by_id[accelerator_id]

    def find(self, name: str) -> Accelerator | None:
        key = self._by_alias.get(normalize_name(name))
        return self._by_id[key] if key else None

    def canonical(self, name: str) -> str | None:
        """The canonical id of any spelling, or None: the resolver adapters are given."""
        return self._by_alias.get(normalize_name(name))

    def resolve(self, name: str) -> Accelerator:
        found = self.find(name)
        if found is None:
            raise UnknownAccelerator(name, self.suggest(name))
        return found

    def suggest(self, name: str, limit: int = 5) -> list[str]:
        """Closest canonical ids, matched over ids and aliases alike."""
        key = normalize_name(name)
        close = difflib.get_close_matches(key, self._by_alias, n=limit * 3, cutoff=0.5)
        ids: list[str] = []
        for alias in close:
            acc_id = self._by_alias[alias]
            if acc_id not in ids:
                ids.append(acc_id)
        if not ids:  # substring fallback: "a100" finds a100-40gb and a100-80gb
            ids = [acc_id for acc_id in self._by_id if key and key in acc_id]
        return ids[:limit]
