"""The network between rented or bought machines, and how well training scales across it.

A job too slow for its deadline on one machine, or too large for its memory, runs on several:
N instances of one offer do N x e(fabric, N) instances' work. e comes from published
multi-node results (hardware/data/fabrics.csv: MLPerf Training at several system sizes, a
paper for plain Ethernet), which offer has which fabric from the providers' own pages
(hardware/data/instance_fabrics.csv).

Between sourced sizes e is interpolated in log2(N); past the largest it holds. Only a fabric
with RDMA (InfiniBand, RoCE, EFA, GPUDirect-TCPX) carries a job sharded across machines: on
plain Ethernet each machine must hold a whole replica, and machines with no private network
between them (a marketplace's hosts, a notebook, a TPU slice) are not clustered at all.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

# Fabrics that take a job sharded across machines (its weights split between them).
SHARDING = frozenset({"infiniband", "roce", "efa", "gpudirect_tcpx"})
# Fabrics whose machines may be clustered at all; the rest ("none") are rented one by one.
CLUSTERED = SHARDING | {"ethernet"}
NONE = "none"
FABRIC_LOOKUPS = 65_536  # (provider, product) answers remembered: a catalog's distinct products


@dataclass(frozen=True, slots=True)
class FabricPoint:
    fabric: str
    nodes: int
    efficiency: float  # throughput of N nodes / (N x one node's)
    kind: str  # measured or estimated
    source: str


@dataclass(frozen=True, slots=True)
class InstanceFabric:
    provider: str
    product: re.Pattern[str]  # full match, case-insensitive
    fabric: str
    source: str


class Fabrics:
    """e(fabric, N) and which offer has which fabric."""

    def __init__(self, points: Iterable[FabricPoint], instances: Iterable[InstanceFabric]) -> None:
        self._curves: dict[str, list[FabricPoint]] = {}
        for point in points:
            self._curves.setdefault(point.fabric, []).append(point)
        for fabric, curve in self._curves.items():
            curve.sort(key=lambda p: p.nodes)
            if fabric not in CLUSTERED:
                raise ValueError(f"fabrics.csv: {fabric!r} is none of {sorted(CLUSTERED)}")
            for fewer, more in itertools.pairwise(curve):
                if more.efficiency > fewer.efficiency:
                    raise ValueError(
                        f"fabric {fabric} rises from {fewer.efficiency} at {fewer.nodes} nodes "
                        f"to {more.efficiency} at {more.nodes}: more nodes never scale better"
                    )
        missing = CLUSTERED - self._curves.keys()
        if missing:
            raise ValueError(f"fabrics.csv has no scaling for {sorted(missing)}")
        self.instances = tuple(instances)
        # a catalog asks of every offer, and past catalogs ask again: products repeat
        self.of = functools.lru_cache(maxsize=FABRIC_LOOKUPS)(self._of)
        for row in self.instances:
            if row.fabric not in CLUSTERED and row.fabric != NONE:
                raise ValueError(f"instance_fabrics.csv: unknown fabric {row.fabric!r}")

    @property
    def names(self) -> tuple[str, ...]:
        """Every fabric, ``none`` last."""
        return (*sorted(self._curves), NONE)

    def efficiency(self, fabric: str, nodes: int) -> float:
        """e(fabric, N): 1 for one node; 1 for a fabric that is not clustered (one node)."""
        if nodes <= 1 or fabric == NONE:
            return 1.0
        curve = self._curves[fabric]
        sizes = [p.nodes for p in curve]
        at = bisect.bisect_left(sizes, nodes)
        if at < len(curve) and curve[at].nodes == nodes:
            return curve[at].efficiency
        if at == len(curve):  # past the largest sourced size: it holds
            return curve[-1].efficiency
        low = (1, 1.0) if at == 0 else (curve[at - 1].nodes, curve[at - 1].efficiency)
        high = curve[at].nodes, curve[at].efficiency
        share = (math.log2(nodes) - math.log2(low[0])) / (math.log2(high[0]) - math.log2(low[0]))
        return low[1] + share * (high[1] - low[1])

    def points(self, fabric: str) -> tuple[FabricPoint, ...]:
        return tuple(self._curves.get(fabric, ()))

    def _of(self, provider: str, product: str) -> str:
        """The fabric between two instances of ``product``: the first matching row's, else
        ``none`` (an imported offer's network is unknown, so it is not clustered)."""
        for row in self.instances:
            if row.provider == provider and row.product.fullmatch(product):
                return row.fabric
        return NONE

    def source(self, fabric: str) -> str:
        """Where a fabric's figures come from, in a line: each sourced size and its kind."""
        if fabric == NONE:
            return "not clustered: rented one instance at a time"
        sizes = ", ".join(
            f"{p.nodes} nodes {p.efficiency:.3f} ({p.kind})" for p in self._curves[fabric]
        )
        return f"{fabric}: {sizes}; hardware/data/fabrics.csv"
