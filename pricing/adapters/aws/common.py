"""What the three AWS sources share: the Offer they build and the report of skipped types."""

from __future__ import annotations

import logging
import math
from dataclasses import replace

from pricing.adapters.aws.instances import InstanceMap, InstanceType, training
from pricing.adapters.kit import Reason, SkipReport
from pricing.errors import AdapterError
from pricing.offer import Offer, PricingModel

PROVIDER = "aws"
SERVICE = "EC2"
# Accelerated types seen but in no row of the table: reported, so a new family is noticed.
UNMAPPED = Reason("accelerated instance types not in pricing/data/aws_instances.csv skipped")

log = logging.getLogger("pricing.adapters.aws")


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [UNMAPPED])


def lookup(instances: InstanceMap, instance_type: str, skipped: SkipReport) -> InstanceType | None:
    """The type if it trains; an accelerated type the table lacks is filed as unmapped."""
    if instance_type not in instances:
        skipped.add(UNMAPPED, instance_type)
    return training(instances, instance_type)


def positive_price(text: str, where: str, what: str = "price") -> float:
    """A price as a public file writes it: a finite number above 0, or an AdapterError
    naming ``where`` (a formula cell, "N/A" or 0 is never a price)."""
    try:
        price = float(text)
    except ValueError:
        price = math.nan
    if not math.isfinite(price) or price <= 0:
        raise AdapterError(f"{where}: bad {what} {text!r}")
    return price


def unique(offers: list[Offer]) -> list[Offer]:
    """One offer per (instance type, region, zone, pricing, purchase option), first seen first.

    A source that repeats an item (the same SKU on two pages, a row twice in a file) must not
    price it twice. Should two repeats disagree, the higher price is kept, so the result never
    depends on the order the source happened to answer in; the notes say so.
    """
    kept: dict[tuple[str, ...], Offer] = {}
    for offer in offers:
        key = (offer.product, offer.region, offer.zone, offer.pricing, offer.purchase_option)
        seen = kept.get(key)
        if seen is None:
            kept[key] = offer
        elif seen.usd_per_hour != offer.usd_per_hour:
            low, high = sorted((seen.usd_per_hour, offer.usd_per_hour))
            winner = seen if seen.usd_per_hour == high else offer
            note = f"the source repeats this item at {low:g} and {high:g}: the higher kept"
            kept[key] = replace(winner, notes=f"{winner.notes}; {note}" if winner.notes else note)
    return list(kept.values())


def instance_offer(
    instance: InstanceType,
    region: str,
    pricing: PricingModel,
    usd_per_hour: float,
    price_as_of: str,
    source: str,
    zone: str = "",
    notes: str = "",
) -> Offer:
    return Offer(
        provider=PROVIDER,
        service=SERVICE,
        product=instance.name,
        region=region,
        zone=zone,
        accelerator=instance.accelerator,
        count=instance.count,
        pricing=pricing,
        usd_per_hour=usd_per_hour,
        price_as_of=price_as_of,
        source=source,
        confidence="high",
        notes=notes,
    )
