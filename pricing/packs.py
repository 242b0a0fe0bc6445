"""Packed price changes: a listing's changes over a range of runs, as one row.

A change stored as its own row costs PostgreSQL about 64 bytes (a 24-byte tuple header, 16
bytes of values, an index entry), and two years of 6-hourly refreshes of 100,000 offers are
28 million changes. Packed, a month of one listing's changes is one row holding the run ids
(4 bytes each) and the prices (8 bytes each; NaN where the run no longer listed it), so the
store holds 12 bytes a change. The store packs each source's changes once they are older
than :data:`KEEP_RAW_RUNS` of its runs (pricing/store/upkeep.py); recent changes stay rows.
"""

from __future__ import annotations

import math
import sys
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

# A source's latest runs whose changes stay one row each: the window the writer diffs and
# most questions read. A month of 6-hourly refreshes.
KEEP_RAW_RUNS = 120
# Pack once this many more runs' changes have gathered behind that window, so each pack
# spans about a month and a listing has about 12 packs a year.
PACK_EVERY_RUNS = 120

_GONE = math.nan  # the run no longer listed the offer
_RUN, _PRICE = "i", "d"  # 4-byte run ids (the runs table's integer key), 8-byte prices


@dataclass(frozen=True, slots=True)
class Pack:
    runs: array  # run ids, ascending
    prices: array  # NaN where the run no longer listed the offer

    @classmethod
    def of(cls, changes: Sequence[tuple[int, float | None]]) -> Pack:
        """``changes``: (run id, price or None), in run order."""
        runs = array(_RUN, (run for run, _ in changes))
        prices = array(_PRICE, (_GONE if usd is None else usd for _, usd in changes))
        return cls(runs, prices)

    @classmethod
    def decode(cls, runs: bytes, prices: bytes) -> Pack:
        return cls(_little_endian(array(_RUN, runs)), _little_endian(array(_PRICE, prices)))

    def encode(self) -> tuple[bytes, bytes]:
        """Little-endian, whatever the machine: a store may move between hosts."""
        return _little_endian(self.runs).tobytes(), _little_endian(self.prices).tobytes()

    @property
    def closing(self) -> float | None:
        """The price after the last change; None when that change took the offer away."""
        return _price(self.prices[-1])

    def at(self, run_id: int) -> tuple[int, float | None] | None:
        """The last change at or before ``run_id``: (its run, its price or None); None when
        the pack's first change is later."""
        i = bisect_right(self.runs, run_id)
        return None if i == 0 else (self.runs[i - 1], _price(self.prices[i - 1]))

    def changes(self) -> list[tuple[int, float | None]]:
        return [(run, _price(usd)) for run, usd in zip(self.runs, self.prices, strict=True)]


def price_at(runs: bytes, prices: bytes, run_id: int) -> float | None:
    """The price a pack held at ``run_id`` (None: not listed then), read in place: a past
    catalog asks this of thousands of packs."""
    if sys.byteorder == "big":  # the blobs are little-endian
        change = Pack.decode(runs, prices).at(run_id)
        return change[1] if change else None
    i = bisect_right(memoryview(runs).cast(_RUN), run_id)
    return None if i == 0 else _price(memoryview(prices).cast(_PRICE)[i - 1])


def _price(value: float) -> float | None:
    return None if math.isnan(value) else value


def _little_endian(values: array) -> array:
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return values
