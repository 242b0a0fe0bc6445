"""The machine around the cards: a desktop holds 1-2, a workstation 4, a server 8.

A host's price and draw grow with the cards it carries (a 4-GPU box needs a 280 W CPU and
a 1600 W supply), so a flat host misprices every multi-card purchase. Past 8 cards the
purchase is several servers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Host:
    name: str  # desktop, workstation or server
    max_cards: int
    site: str  # where such a host runs by default (hardware/ownership.py SITES)
    price_usd: float  # without the cards
    watts: float  # draw under training load, without the cards
    price_kind: str
    price_as_of: str
    price_source: str
    watts_kind: str
    watts_source: str


@dataclass(frozen=True, slots=True)
class HostChoice:
    """The hosts ``cards`` cards need: ``count`` of the smallest class that holds them."""

    host: Host
    count: int

    @property
    def price_usd(self) -> float:
        return self.count * self.host.price_usd

    @property
    def watts(self) -> float:
        return self.count * self.host.watts


def host_for(hosts: tuple[Host, ...], cards: int) -> HostChoice:
    """The smallest host class that holds ``cards``; beyond the largest, several of it."""
    by_size = sorted(hosts, key=lambda h: h.max_cards)
    for host in by_size:
        if cards <= host.max_cards:
            return HostChoice(host, 1)
    largest = by_size[-1]
    return HostChoice(largest, math.ceil(cards / largest.max_cards))
