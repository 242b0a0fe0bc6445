"""Cards a team can buy: purchase price with its date, kind and source."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Card:
    accelerator: str  # canonical accelerator id
    purchase_usd: float
    price_kind: str  # launch_msrp, list_price or system_price_share (see hardware/data/README.md)
    price_as_of: str
    price_source: str
    consumer: bool
    confidence: str  # high, medium or low
