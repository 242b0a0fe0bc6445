"""What a run changes: a source's next batch against the prices it lists now.

The store keeps each offer once, as a *listing* (every field but the price), and each price
once per change. Most refreshes repeat most prices (on-demand prices move a few times a
year), so a run writes its run row and the few listings whose price moved, appeared or went:
history grows with changes, not with refreshes times offers.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter

from pricing.offer import Offer

# Every offer field but the price: what makes two offers the same listing.
LISTING_FIELDS = tuple(f.name for f in fields(Offer) if f.name != "usd_per_hour")

# Stored in place of price_as_of when it is simply the day the run read the price (what
# every live adapter writes): the listing then stays one listing from day to day, and a
# reader gets the reading run's day back (pricing/store.py).
READ_ON_RUN_DAY = "@run"

_listing_values = attrgetter(*LISTING_FIELDS)
_PRICE_AS_OF = LISTING_FIELDS.index("price_as_of")
_PRICING = LISTING_FIELDS.index("pricing")


@dataclass(frozen=True, slots=True)
class Listed:
    """One offer of a batch as the store keys it."""

    digest: bytes  # 16 bytes naming the listing within its source
    values: tuple[object, ...]  # LISTING_FIELDS, price_as_of normalised
    usd_per_hour: float

    def row(self, adapter: str) -> dict[str, object]:
        row = dict(zip(LISTING_FIELDS, self.values, strict=True))
        row.update(adapter=adapter, digest=self.digest, usd_per_hour=self.usd_per_hour)
        return row


@dataclass(frozen=True, slots=True)
class Changes:
    """The prices a run writes: ``(listing id, price)``, None where the run no longer lists
    it, and the listings the store has never seen."""

    moved: list[tuple[int, float | None]]
    unseen: list[Listed]


def listed(batch: Iterable[Offer], read_days: frozenset[str]) -> dict[bytes, Listed]:
    """The batch keyed by listing. Offers alike in all but price are told apart by their
    rank in price, so a listing holds one price at a time and the rank is stable however
    the source orders its rows."""
    prices: dict[tuple[object, ...], list[float]] = defaultdict(list)
    for offer in batch:
        values = list(_listing_values(offer))
        values[_PRICING] = str(values[_PRICING])
        if values[_PRICE_AS_OF] in read_days:
            values[_PRICE_AS_OF] = READ_ON_RUN_DAY
        prices[tuple(values)].append(offer.usd_per_hour)
    keyed: dict[bytes, Listed] = {}
    for values, usd in prices.items():
        for rank, price in enumerate(sorted(usd)):
            digest = _digest(values, rank)
            keyed[digest] = Listed(digest, values, price)
    return keyed


def diff(listed_now: dict[bytes, tuple[int, float]], batch: dict[bytes, Listed]) -> Changes:
    """``listed_now`` maps each listing the source lists now to (id, price)."""
    moved: list[tuple[int, float | None]] = []
    for digest, (listing_id, usd) in listed_now.items():
        offer = batch.get(digest)
        if offer is None:
            moved.append((listing_id, None))
        elif offer.usd_per_hour != usd:
            moved.append((listing_id, offer.usd_per_hour))
    return Changes(moved, [offer for digest, offer in batch.items() if digest not in listed_now])


def chunks(items: Sequence[bytes], size: int) -> Iterable[Sequence[bytes]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _digest(values: tuple[object, ...], rank: int) -> bytes:
    # repr of str, int, float (shortest round trip), bool and None is stable across runs and
    # Python versions; 128 bits make a collision among a source's listings unthinkable.
    text = repr((values, rank)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()
