"""Relative training throughput per workload class, and multi-GPU scaling efficiency.

Speeds are relative to one reference card (Quadro RTX 8000 = 1.0, FP16 PyTorch training, as in
Lambda's benchmark sets); only ratios matter to the engine, so the reference card cancels out.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Workload(StrEnum):
    """Classes whose bottlenecks differ: tensor FLOPs (cnn, transformer) or bandwidth (rnn)."""

    CNN = "cnn"
    TRANSFORMER = "transformer"
    RNN = "rnn"


@dataclass(frozen=True, slots=True)
class Throughput:
    accelerator: str
    workload: Workload
    relative: float
    method: str  # measured, adjusted (a measurement carried over) or estimated
    source: str

    @property
    def estimated(self) -> bool:
        return self.method == "estimated"


@dataclass(frozen=True, slots=True)
class ScalingPoint:
    interconnect: str
    workload: Workload
    num_gpu: int
    efficiency: float
    source: str


class Scaling:
    """Multi-GPU efficiency eta(interconnect, class, n): throughput of n cards / (n x one card).

    Measured at n = 2, 4, 8. Between measured counts the lower point applies (a conservative
    step); beyond the largest the largest applies; n = 1 is exactly 1. A curve that rises
    with n is refused: more cards on one interconnect never scale better.
    """

    def __init__(self, points: Iterable[ScalingPoint]) -> None:
        self._curves: dict[tuple[str, Workload], list[ScalingPoint]] = {}
        for point in points:
            self._curves.setdefault((point.interconnect, point.workload), []).append(point)
        for (link, workload), curve in self._curves.items():
            curve.sort(key=lambda p: p.num_gpu)
            for fewer, more in itertools.pairwise(curve):
                if more.efficiency > fewer.efficiency:
                    raise ValueError(
                        f"scaling {link}/{workload} rises from {fewer.efficiency} at "
                        f"{fewer.num_gpu} cards to {more.efficiency} at {more.num_gpu}"
                    )

    def point(self, interconnect: str, workload: Workload, n: int) -> ScalingPoint | None:
        if n <= 1:
            return None
        curve = self._curves.get((interconnect, workload))
        if not curve:
            raise KeyError(f"no scaling data for {interconnect}/{workload}")
        counts = [p.num_gpu for p in curve]
        index = max(bisect.bisect_right(counts, n) - 1, 0)
        return curve[index]

    def efficiency(self, interconnect: str, workload: Workload, n: int) -> float:
        point = self.point(interconnect, workload, n)
        return 1.0 if point is None else point.efficiency
