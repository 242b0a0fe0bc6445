"""The fabrics' scaling as arrays, built once per catalog: finding the fewest instances
that meet a deadline is then a search in a sorted array for every offer at once
(service/engine/costs.py), not a loop over cluster sizes per offer."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from hardware.fabrics import NONE, SHARDING, Fabrics
from service.engine.assumptions import bounds
from service.engine.interruption import slowdown


class Clusters:
    """Each fabric's e(N) and N * e(N) for N = 1 .. the most instances a question may take,
    as arrays: the fewest instances that meet a deadline are a search in a sorted array."""

    LARGEST = int(bounds("max_instances")["le"])

    def __init__(self, fabrics: Fabrics) -> None:
        sizes = np.arange(1, self.LARGEST + 1)
        self.names = fabrics.names
        self.code = {name: i for i, name in enumerate(self.names)}
        # e(N), fabric x N, and N * e(N): the instances' work
        self.efficiency = np.array(
            [[fabrics.efficiency(name, int(n)) for n in sizes] for name in self.names]
        )
        self.work = sizes * self.efficiency
        for name, work in zip(self.names, self.work, strict=True):
            if np.any(np.diff(work) < 0):
                raise ValueError(f"fabric {name}: more nodes do less work; check fabrics.csv")
        self.largest = np.array([1 if n == NONE else self.LARGEST for n in self.names])
        self.shards = np.array([n in SHARDING for n in self.names], dtype=bool)
        self._tables: dict[tuple[tuple[float, ...], int], tuple[np.ndarray, float]] = {}

    def fewest(
        self,
        fabric: np.ndarray,
        kind: np.ndarray,
        shares: Sequence[float],
        needed: np.ndarray,
        most: int,
    ) -> np.ndarray:
        """For each offer, the least N <= ``most`` whose instances do ``needed`` instances'
        work an hour once interrupted: N * e(N) / slowdown(o, N) >= needed, with e on the
        offer's ``fabric`` and o the share of its interruption ``kind``; most + 1 where
        none does.

        One search for every offer at once: each (fabric, kind) pair's running maximum of
        that function over N = 1 .. most is laid end to end, each lifted above the last by
        a stride, and every offer looks up its own pair's stretch."""
        table, stride = self._table(tuple(shares), most)
        kinds = len(shares)
        group = fabric * kinds + kind
        wanted = np.minimum(needed * (1 - DEADLINE_TOLERANCE), stride / 2)
        found = np.searchsorted(table, group * stride + wanted)
        return found - group * most + 1  # past the pair's stretch: most + 1

    def _table(self, shares: tuple[float, ...], most: int) -> tuple[np.ndarray, float]:
        key = (shares, most)
        found = self._tables.get(key)
        if found is None:
            sizes = np.arange(1, most + 1, dtype=np.float64)
            work = self.work[:, :most]  # fabric x N
            o = np.asarray(shares, dtype=np.float64)
            # N * e(N) / slowdown(o, N): 0 where N of them make no progress
            kept = 1.0 / slowdown(o[:, None], sizes)  # kind x N
            done = work[:, None, :] * kept[None, :, :]  # fabric x kind x N
            done = np.maximum.accumulate(done, axis=2)
            stride = 2.0 * (float(done.max()) + 1.0)
            lift = np.arange(done.shape[0] * done.shape[1]).reshape(done.shape[:2]) * stride
            found = ((done + lift[..., None]).ravel(), stride)
            if len(self._tables) >= TABLES_KEPT:
                self._tables.clear()
            self._tables[key] = found
        return found


# A share this small past the deadline still meets it: float noise, not time.
DEADLINE_TOLERANCE = 1e-9
TABLES_KEPT = 64  # (interruption shares, max_instances) pairs remembered


@functools.cache  # one per hardware data: every catalog, past ones too, shares it
def clusters_for(fabrics: Fabrics) -> Clusters:
    return Clusters(fabrics)
