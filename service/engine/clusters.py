"""The fabrics' scaling as arrays, built once per catalog: finding the fewest instances
that meet a deadline is then a search in a sorted array for every offer at once
(service/engine/costs.py), not a loop over cluster sizes per offer."""

from __future__ import annotations

import functools

import numpy as np

from hardware.fabrics import NONE, SHARDING, Fabrics
from service.engine.assumptions import bounds


class Clusters:
    """Each fabric's e(N) and N * e(N) for N = 1 .. the most instances a question may take,
    as arrays: the fewest instances that meet a deadline are a search in a sorted array."""

    LARGEST = int(bounds("max_instances")["le"])

    def __init__(self, fabrics: Fabrics) -> None:
        sizes = np.arange(1, self.LARGEST + 1)
        self.names = fabrics.names
        self.code = {name: i for i, name in enumerate(self.names)}
        self.efficiency = [
            np.array([fabrics.efficiency(name, int(n)) for n in sizes]) for name in self.names
        ]
        self.work = [sizes * e for e in self.efficiency]  # N * e(N): instances' work
        for name, work in zip(self.names, self.work, strict=True):
            if np.any(np.diff(work) < 0):
                raise ValueError(f"fabric {name}: more nodes do less work; check fabrics.csv")
        self.largest = np.array([1 if n == NONE else self.LARGEST for n in self.names])
        self.shards = np.array([n in SHARDING for n in self.names], dtype=bool)


@functools.cache  # one per hardware data: every catalog, past ones too, shares it
def clusters_for(fabrics: Fabrics) -> Clusters:
    return Clusters(fabrics)
