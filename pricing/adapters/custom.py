"""Offers a user imports: negotiated rates, quotes, an on-prem cluster's internal price.

``breakeven offers import FILE.csv`` merges the file into the current custom offers (a row
with the same provider, product, region, accelerator and pricing replaces the old one) and
writes the result as one new run, so an import is all-or-nothing and older imports survive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path

from pricing.adapters import Batch
from pricing.adapters.tabular import parse_offers_csv
from pricing.offer import Offer

CUSTOM = "custom"


def _key(offer: Offer) -> tuple[str, str, str, str, str]:
    return (offer.provider, offer.product, offer.region, offer.accelerator, offer.pricing)


def read_custom_file(
    path: Path, resolve_accelerator: Callable[[str], str | None], today: date
) -> list[Offer]:
    """Parse an import file; rows without source or date get the file name and today."""
    text = path.read_text(encoding="utf-8-sig")
    defaults = {
        "provider": CUSTOM,
        "source": f"imported from {path.name}",
        "price_as_of": today.isoformat(),
        "confidence": "user",
    }
    return parse_offers_csv(text, resolve_accelerator, defaults)


def merge(current: Sequence[Offer], imported: Sequence[Offer], replace: bool) -> Batch:
    """The next custom run: the import alone (replace) or laid over the current offers."""
    merged = {} if replace else {_key(o): o for o in current}
    merged.update({_key(o): o for o in imported})
    version = f"{len(imported)} imported, {len(merged)} total"
    return Batch(offers=list(merged.values()), source_version=version)
