"""Checks every run passes before it may become current.

- Prices that cannot be real (<= 0, NaN, inf) are dropped.
- Spot at or above on-demand for the same product and region usually means there is no spot
  capacity: kept, flagged ``suspect``.
- A price that moved more than ``jump_factor`` either way since the provider's current run is
  kept, flagged ``suspect``: real cuts happen (AWS P5, mid-2025: -44 %), but so do parser bugs.
- A run whose every price is impossible is refused: a provider answering $0 everywhere is
  broken, not free.
- A run that would drop more than ``max_drop_share`` of the provider's current offers at once
  is refused unless forced: a half-empty answer from an API must not replace a full catalog.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pricing.offer import Offer, PricingModel


@dataclass(frozen=True)
class SanityPolicy:
    jump_factor: float = 2.0
    max_drop_share: float = 0.5


@dataclass(frozen=True)
class Checked:
    offers: list[Offer]
    dropped: int  # impossible prices removed
    suspect: int  # offers newly flagged
    refused: str = ""  # why the run may not become current; empty = it may


def _key(o: Offer) -> tuple[str, str, str, str, str, int, str]:
    return (o.provider, o.product, o.region, o.zone, o.accelerator, o.count, o.pricing)


def _flag(offer: Offer, note: str) -> Offer:
    notes = f"{offer.notes}; {note}" if offer.notes else note
    return replace(offer, suspect=True, notes=notes)


def check(
    batch: Sequence[Offer],
    previous: Sequence[Offer],
    policy: SanityPolicy,
    force: bool = False,
) -> Checked:
    kept = [o for o in batch if math.isfinite(o.usd_per_hour) and o.usd_per_hour > 0]
    dropped = len(batch) - len(kept)
    on_demand = {
        (o.provider, o.product, o.region): o.usd_per_hour
        for o in kept
        if o.pricing == PricingModel.ON_DEMAND
    }
    before = {_key(o): o.usd_per_hour for o in previous}
    checked = []
    suspect = 0
    for offer in kept:
        notes = []
        reference = on_demand.get((offer.provider, offer.product, offer.region))
        if offer.pricing == PricingModel.SPOT and reference and offer.usd_per_hour >= reference:
            notes.append(f"spot >= on-demand {reference:g}: no spot capacity?")
        old = before.get(_key(offer))
        if old and not 1 / policy.jump_factor <= offer.usd_per_hour / old <= policy.jump_factor:
            notes.append(f"price moved from {old:g} to {offer.usd_per_hour:g} since last run")
        if notes and not offer.suspect:
            suspect += 1
        checked.append(_flag(offer, "; ".join(notes)) if notes else offer)
    refused = ""
    if batch and not checked:
        refused = f"refused: all {len(batch)} prices were impossible (<= 0 or not finite)"
    elif previous and not force:
        lost = len(previous) - len(checked)
        if lost > policy.max_drop_share * len(previous):
            refused = (
                f"refused: would drop {lost} of {len(previous)} current offers "
                f"(more than {policy.max_drop_share:.0%}); refresh with force to accept"
            )
    return Checked(checked, dropped, suspect, refused)
