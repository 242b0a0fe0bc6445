"""Listings as a store read hands them out: a listing's columns and the price it held, made
an Offer only when one is asked for.

A past catalog of one accelerator is a few thousand listings, of which an answer shows a
page: building every Offer (a frozen dataclass of 20 fields) was a fifth of that read. The
offer table (service/engine/offer_table.py) reads what it needs as columns instead
(:meth:`Listed.column`), straight from the rows. Nothing here imports SQLAlchemy: a row is
any sequence with a listing's columns first, in ``LISTING_FIELDS`` order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import fields
from datetime import datetime
from typing import Any, overload

from pricing.changes import LISTING_FIELDS, READ_ON_RUN_DAY
from pricing.offer import Offer, PricingModel, StoredOffer

_OFFER_FIELDS = tuple(f.name for f in fields(Offer))
_LISTED = len(LISTING_FIELDS)
_PRICING_MODELS = {model.value: model for model in PricingModel}
# Where Offer's positional arguments put the pricing, the price and its date.
_PRICING_AT = LISTING_FIELDS.index("pricing")
_AS_OF_AT = LISTING_FIELDS.index("price_as_of")
_PRICE_AT = _OFFER_FIELDS.index("usd_per_hour")
_LISTING_AT = {name: i for i, name in enumerate(LISTING_FIELDS)}  # a row's column by name


def listed_offer(row: Sequence[Any], read_day: str, usd_per_hour: float, start: int = 0) -> Offer:
    """``row[start:]`` holds the listing's columns in ``LISTING_FIELDS`` order; ``read_day``
    is the day of the run that read it, for a price_as_of stored as that day."""
    # a slice and positional arguments, not a lookup by name per field: a catalog is a
    # hundred thousand rows read at every start, a past one thousands per question
    values = list(row[start : start + _LISTED])
    values[_PRICING_AT] = _PRICING_MODELS[values[_PRICING_AT]]
    if values[_AS_OF_AT] == READ_ON_RUN_DAY:
        values[_AS_OF_AT] = read_day
    values.insert(_PRICE_AT, usd_per_hour)
    return Offer(*values)


class Listed(Sequence[StoredOffer]):
    """A catalog's listings, each made a StoredOffer only when asked for."""

    def __init__(self) -> None:
        self._rows: list[Sequence[Any]] = []
        self._prices: list[float] = []
        self._runs: list[tuple[int, datetime, str]] = []  # run id, finished, the day it read
        self._run_of: list[int] = []  # position in _runs, per row

    def add(
        self, rows: list[tuple[Sequence[Any], float]], run_id: int, finished: datetime, day: str
    ) -> None:
        """A source's listings at one of its runs, with the price each held then."""
        self._runs.append((run_id, finished, day))
        at = len(self._runs) - 1
        for row, usd in rows:
            self._rows.append(row)
            self._prices.append(usd)
            self._run_of.append(at)

    def keep(self, wanted: Sequence[bool]) -> Listed:
        """The rows where ``wanted`` is true, in order."""
        kept = Listed()
        kept._runs = self._runs
        for i, take in enumerate(wanted):
            if take:
                kept._rows.append(self._rows[i])
                kept._prices.append(self._prices[i])
                kept._run_of.append(self._run_of[i])
        return kept

    def column(self, name: str) -> list[Any]:
        """One field of every row: a listing column, ``usd_per_hour``, ``run_id`` or
        ``fetched_at`` (its run's finish). Pricing comes as its text, as stored."""
        if name == "usd_per_hour":
            return list(self._prices)
        if name in ("run_id", "fetched_at"):
            per_run = [run[0] if name == "run_id" else run[1] for run in self._runs]
            return [per_run[i] for i in self._run_of]
        at = _LISTING_AT[name]
        return [row[at] for row in self._rows]

    def finished(self) -> list[datetime]:
        """When each run read finished: the latest is the catalog's moment."""
        return [finished for _, finished, _ in self._runs]

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> StoredOffer: ...
    @overload
    def __getitem__(self, index: slice) -> list[StoredOffer]: ...
    def __getitem__(self, index: int | slice) -> StoredOffer | list[StoredOffer]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        run_id, finished, day = self._runs[self._run_of[index]]
        return StoredOffer(
            listed_offer(self._rows[index], day, self._prices[index]), run_id, finished
        )

    def __iter__(self) -> Iterator[StoredOffer]:
        return (self[i] for i in range(len(self)))
