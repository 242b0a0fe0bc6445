"""Reserved instances as offers: a term's hourly charge and upfront fee made one effective rate.

AWS prices a standard or convertible reserved instance per lease (1yr, 3yr) and purchase
option (No, Partial, All Upfront) as up to two price dimensions of one term: an hourly rate
(``Unit`` Hrs; 0 for All Upfront) and an "Upfront Fee" (``Unit`` Quantity; none for No
Upfront). The bulk CSV gives them as two rows sharing SKU and OfferTermCode; the Price List
API as two dimensions of ``terms.Reserved[sku][code]``. A piece alone is no price: a Partial
Upfront hourly rate without its fee would undercut every real rate, so a term is priced only
when every piece its purchase option has was read.

The offer's ``usd_per_hour`` is the effective rate, the fee spread over the term's hours
(pricing.offer.TERM_HOURS): hourly + upfront / hours. Where a standard and a convertible
term of the same instance, lease and option are both listed, the cheaper is kept (standard,
in practice; a convertible may be exchanged, which the model does not value).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pricing.adapters.aws.common import instance_offer
from pricing.adapters.aws.instances import InstanceType
from pricing.offer import TERM_HOURS, Offer, PricingModel

LEASES = {"1yr": PricingModel.RESERVED_1Y, "3yr": PricingModel.RESERVED_3Y}
PURCHASE_OPTIONS = {
    "No Upfront": "no_upfront",
    "Partial Upfront": "partial_upfront",
    "All Upfront": "all_upfront",
}
OFFERING_CLASSES = ("standard", "convertible")
UPFRONT_FEE = "Upfront Fee"


@dataclass
class Term:
    """One reserved term's pieces as they are read."""

    instance: InstanceType
    region: str
    lease: str
    option: str  # as AWS writes it: "Partial Upfront"
    offering_class: str
    effective_date: str
    hourly: float | None = None
    upfront: float | None = None

    def complete(self) -> bool:
        """Every piece the purchase option has: No Upfront an hourly rate, All Upfront a fee
        (its hourly row, 0, may be absent), Partial Upfront both."""
        if self.option == "No Upfront":
            return self.hourly is not None
        if self.option == "All Upfront":
            return self.upfront is not None
        return self.hourly is not None and self.upfront is not None


def known_term(lease: str, option: str, offering_class: str) -> bool:
    """A term this adapter prices: a 1- or 3-year lease, a known purchase option and class."""
    return lease in LEASES and option in PURCHASE_OPTIONS and offering_class in OFFERING_CLASSES


def term_offer(term: Term, source: str) -> Offer | None:
    """The term as an offer at its effective hourly rate; None where it is incomplete or
    prices nothing."""
    if not term.complete():
        return None
    pricing = LEASES[term.lease]
    hours = TERM_HOURS[pricing]
    hourly, upfront = term.hourly or 0.0, term.upfront or 0.0
    total = hourly * hours + upfront
    if total <= 0:
        return None
    offer = instance_offer(
        term.instance,
        term.region,
        pricing,
        round(total / hours, 6),
        term.effective_date,
        source,
        notes=(
            f"{term.offering_class} reserved instance, {term.lease} {term.option}: "
            f"{hourly:g} USD/h + {upfront:g} USD upfront over {hours:,.0f} h"
        ),
    )
    return replace(
        offer, purchase_option=PURCHASE_OPTIONS[term.option], upfront_share=upfront / total
    )


def cheapest_terms(offers: list[Offer]) -> list[Offer]:
    """One offer per instance, region, lease and purchase option: the cheaper class."""
    kept: dict[tuple[object, ...], Offer] = {}
    for offer in offers:
        seen = kept.get(offer.identity)
        if seen is None or offer.usd_per_hour < seen.usd_per_hour:
            kept[offer.identity] = offer
    return list(kept.values())
