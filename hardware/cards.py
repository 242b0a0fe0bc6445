"""Cards a team can buy: purchase price with its date, kind and source; what they resell for."""

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


@dataclass(frozen=True, slots=True)
class ResaleCurve:
    """What used cards fetch: share of launch price = a x exp(-b x age in years), fitted to
    observed used prices (data/resale.csv, made by derive.py). A card loses the share
    1 - exp(-b) of its value each year, whatever its age when bought."""

    a: float
    b: float
    yearly_loss: float
    points: int
    source: str
