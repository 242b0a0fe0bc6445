"""Cards a team can buy: dated prices by basis (launch, new, used), and what they resell for.

A card's price depends on how it is bought: an RTX 3090 launched at 1,499 USD in 2020, is no
longer sold new, and sells used for about 650 USD in 2026. Every price keeps its date and
source; past prices stay as history.
"""

from __future__ import annotations

from dataclasses import dataclass

# How a card is bought, in the order the default tries them: new where a new price is
# sourced (it is still sold new), else used; the launch price only where neither is.
BASES = ("new", "used", "launch")


@dataclass(frozen=True, slots=True)
class CardPrice:
    basis: str  # launch, new or used
    usd: float
    usd_low: float | None  # range where sources differ
    usd_high: float | None
    as_of: str  # YYYY-MM or YYYY-MM-DD
    kind: str  # list, street, sold-average, quote or estimate
    source: str
    notes: str


@dataclass(frozen=True, slots=True)
class Card:
    accelerator: str  # canonical accelerator id
    consumer: bool
    prices: tuple[CardPrice, ...]  # every sourced price, oldest first within a basis

    def price(self, basis: str | None = None) -> CardPrice | None:
        """The newest price of ``basis``; None: the default (the first basis of BASES that
        has a price)."""
        if basis is not None:
            return self._newest(basis)
        return next((p for p in map(self._newest, BASES) if p is not None), None)

    def bases(self) -> list[str]:
        return [b for b in BASES if self._newest(b) is not None]

    def _newest(self, basis: str) -> CardPrice | None:
        of_basis = [p for p in self.prices if p.basis == basis]
        return max(of_basis, key=lambda p: p.as_of) if of_basis else None

    # The default price's fields, for the rankings that compare cards at one price each.
    @property
    def purchase_usd(self) -> float:
        return self._default.usd

    @property
    def price_kind(self) -> str:
        return f"{self._default.basis} ({self._default.kind})"

    @property
    def price_as_of(self) -> str:
        return self._default.as_of

    @property
    def price_source(self) -> str:
        return self._default.source

    @property
    def confidence(self) -> str:
        return {"list": "high", "street": "medium", "sold-average": "medium"}.get(
            self._default.kind, "low"
        )

    @property
    def _default(self) -> CardPrice:
        found = self.price()
        assert found is not None, f"{self.accelerator} has no price"
        return found


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
