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

# Every offer field but the price: the columns of a listing.
LISTING_FIELDS = tuple(f.name for f in fields(Offer) if f.name != "usd_per_hour")
# Fields that describe a listing without identifying it: a marketplace's machine ids and
# offer counts (notes), its reliability score, a sanity flag and an import's file name
# (source) move from run to run while the offer and its price stay. They are stored beside
# the listing, updated in place, so a run that repeats every price writes no listing and no
# change; a past moment shows the latest description of each listing it lists.
# A committed offer's upfront share follows its price (the fee over the term's total), as
# does a price given in another currency (the price as given, the rate and its day).
DESCRIPTIVE_FIELDS = (
    *("source", "notes", "reliability", "suspect", "upfront_share"),
    *("currency", "price_per_hour", "fx_per_usd", "fx_day"),
)
# What makes two offers the same listing: every other field.
IDENTITY_FIELDS = tuple(name for name in LISTING_FIELDS if name not in DESCRIPTIVE_FIELDS)

# Stored in place of price_as_of when it is simply the day the run read the price (what
# every live adapter writes): the listing then stays one listing from day to day, and a
# reader gets the reading run's day back (pricing/store/records.py).
READ_ON_RUN_DAY = "@run"

_listing_values = attrgetter(*LISTING_FIELDS)
_PRICE_AS_OF = LISTING_FIELDS.index("price_as_of")
_PRICING = LISTING_FIELDS.index("pricing")
_MEMORY = LISTING_FIELDS.index("memory_gb")
_IDENTITY = tuple(LISTING_FIELDS.index(name) for name in IDENTITY_FIELDS)
_DESCRIPTIVE = tuple(LISTING_FIELDS.index(name) for name in DESCRIPTIVE_FIELDS)
# Identity fields added after listings were first keyed, by position in IDENTITY_FIELDS,
# with the value every older listing has (they come last: Offer's fields are appended).
_ADDED_LATER = {IDENTITY_FIELDS.index("purchase_option"): ""}
_NO_DEFAULT = object()


@dataclass(frozen=True, slots=True)
class Listed:
    """One offer of a batch as the store keys it."""

    digest: bytes  # 16 bytes naming the listing within its source
    values: tuple[object, ...]  # LISTING_FIELDS, price_as_of normalised
    usd_per_hour: float

    @property
    def description(self) -> tuple[object, ...]:
        return described(self.values)

    def row(self, adapter: str) -> dict[str, object]:
        row = dict(zip(LISTING_FIELDS, self.values, strict=True))
        row.update(adapter=adapter, digest=self.digest, usd_per_hour=self.usd_per_hour)
        return row


@dataclass(frozen=True, slots=True)
class Changes:
    """What a run writes: ``(listing id, price)``, None where the run no longer lists it;
    the listings the store has never seen; and ``(listing id, description)`` of listed ones
    whose DESCRIPTIVE_FIELDS moved while they stayed."""

    moved: list[tuple[int, float | None]]
    unseen: list[Listed]
    redescribed: list[tuple[int, tuple[object, ...]]]


def described(values: Sequence[object]) -> tuple[object, ...]:
    """The DESCRIPTIVE_FIELDS of a listing's LISTING_FIELDS values."""
    return tuple(values[i] for i in _DESCRIPTIVE)


def listed(batch: Iterable[Offer], read_days: frozenset[str]) -> dict[bytes, Listed]:
    """The batch keyed by listing. Offers alike in identity are told apart by their rank in
    price (then description), so a listing holds one price at a time and the rank is stable
    however the source orders its rows."""
    alike: dict[tuple[object, ...], list[tuple[float, tuple[object, ...]]]] = defaultdict(list)
    for offer in batch:
        values = list(_listing_values(offer))
        values[_PRICING] = str(values[_PRICING])
        if values[_MEMORY] is not None:  # as the Float column gives it back: 24 reads 24.0
            values[_MEMORY] = float(values[_MEMORY])
        if values[_PRICE_AS_OF] in read_days:
            values[_PRICE_AS_OF] = READ_ON_RUN_DAY
        alike[tuple(values[i] for i in _IDENTITY)].append((offer.usd_per_hour, tuple(values)))
    keyed: dict[bytes, Listed] = {}
    for identity, offers in alike.items():
        offers.sort(key=lambda offer: (offer[0], repr(described(offer[1]))))
        for rank, (price, values) in enumerate(offers):
            digest = listing_digest(identity, rank)
            keyed[digest] = Listed(digest, values, price)
    return keyed


def diff(
    listed_now: dict[bytes, tuple[int, float, tuple[object, ...]]], batch: dict[bytes, Listed]
) -> Changes:
    """``listed_now`` maps each listing the source lists now to (id, price, description)."""
    moved: list[tuple[int, float | None]] = []
    redescribed: list[tuple[int, tuple[object, ...]]] = []
    for digest, (listing_id, usd, description) in listed_now.items():
        offer = batch.get(digest)
        if offer is None:
            moved.append((listing_id, None))
            continue
        if offer.usd_per_hour != usd:
            moved.append((listing_id, offer.usd_per_hour))
        if offer.description != description:
            redescribed.append((listing_id, offer.description))
    unseen = [offer for digest, offer in batch.items() if digest not in listed_now]
    return Changes(moved, unseen, redescribed)


def chunks(items: Sequence[bytes], size: int) -> Iterable[Sequence[bytes]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def listing_digest(identity: tuple[object, ...], rank: int) -> bytes:
    """The key of a listing within its source: its IDENTITY_FIELDS values (price_as_of as
    stored) and its rank among offers alike in them. A field added to the identity after
    listings were keyed (purchase_option, revision 0007) is left out while it holds its
    default, so the listings stored before it keep their keys and their history."""
    while identity and identity[-1] == _ADDED_LATER.get(len(identity) - 1, _NO_DEFAULT):
        identity = identity[:-1]
    # repr of str, int, float (shortest round trip), bool and None is stable across runs and
    # Python versions; 128 bits make a collision among a source's listings unthinkable.
    text = repr((identity, rank)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()
