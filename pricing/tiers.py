"""The rental tiers an answer sets side by side: how a team would really rent the capacity.

A headline that compares buying with the cheapest quote of all leans on spot prices that a
provider may withdraw mid-run, and on a commitment nobody asked about. So every answer
gives the best offer of each tier, with its cost, its wall-clock time and its own verdict
against buying, and says which tier its headline compares with (by default the capacity
one can count on: on-demand or committed, ``pricing=dependable``).

Each tier is a set of pricing models within a set of markets, and the offer table keeps one
cheapest-first order per hourly tier (committed offers are all costed): a tier's cheapest is
then among the first offers of its own orders (service/engine/cheapest.py).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pricing.offer import MARKETS, TERM_MONTHS, Offer, PricingModel

CLOUD_MARKETS = frozenset({"cloud"})
MARKETPLACES = frozenset(MARKETS) - CLOUD_MARKETS


def _term_words(months: int) -> str:
    """A term as a contract names it: "6-month", "1-year"."""
    return f"{months // 12}-year" if months % 12 == 0 else f"{months}-month"


@dataclass(frozen=True)
class Tier:
    name: str
    pricing: PricingModel
    markets: frozenset[str] | None  # None: every market
    interruptible: bool  # the provider may take the capacity back mid-run
    description: str


TIERS = (
    Tier(
        "on_demand",
        PricingModel.ON_DEMAND,
        None,
        False,
        "paid by the hour while it runs; kept until released",
    ),
    *(
        Tier(
            str(term),
            term,
            None,
            False,
            f"a {_term_words(months)} commitment (a reserved instance, committed-use discount, "
            "reservation or contract): every hour of the term paid, used or not",
        )
        for term, months in TERM_MONTHS.items()
    ),
    Tier(
        "spot",
        PricingModel.SPOT,
        CLOUD_MARKETS,
        True,
        "a cloud's spare capacity, reclaimed at short notice; the interruption allowance is "
        "in its cost",
    ),
    Tier(
        "interruptible",
        PricingModel.SPOT,
        MARKETPLACES,
        True,
        "a marketplace's interruptible tier (RunPod spot, Vast.ai interruptible): outbid or "
        "stopped at any time; the interruption allowance is in its cost",
    ),
    Tier(
        "compute_units",
        PricingModel.COMPUTE_UNITS,
        None,
        True,
        "Colab's pay-as-you-go compute units: no guaranteed GPU, sessions end and restart",
    ),
)
TIER_NAMES = tuple(tier.name for tier in TIERS)
TERM_NAMES = frozenset(str(term) for term in TERM_MONTHS)  # the committed tiers' names


@functools.lru_cache(maxsize=64)  # a few (pricing, market) pairs; every rent line asks
def tier_code(pricing: str, market: str) -> int:
    """An offer's position in TIERS; -1 where it is in none (a subscription)."""
    for code, tier in enumerate(TIERS):
        if pricing == tier.pricing and (tier.markets is None or market in tier.markets):
            return code
    return -1


def tier_for(offer: Offer) -> Tier | None:
    """The tier an offer is in; None where it is in none (a subscription)."""
    code = tier_code(str(offer.pricing), offer.market)
    return TIERS[code] if code >= 0 else None


def tier_of(offer: Offer) -> str | None:
    """The name of the tier an offer is in (an offer row's `tier`)."""
    tier = tier_for(offer)
    return None if tier is None else tier.name
