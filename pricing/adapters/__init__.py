"""One module per price source, each with the same small shape.

An adapter has a ``name`` and a ``fetch()`` that returns a :class:`Batch`: every offer the
source has now, plus a version string saying which data it read. Parsing lives in pure
``parse_*`` functions so it is tested on real-format payloads without any network.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pricing.offer import Offer


@dataclass(frozen=True)
class Batch:
    offers: Sequence[Offer]
    source_version: str = ""


class Adapter(Protocol):
    name: str

    def fetch(self) -> Batch: ...
