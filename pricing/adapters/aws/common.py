"""What the three AWS sources share: the Offer they build and the record of skipped types."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from pricing.adapters.aws.instances import InstanceMap, InstanceType, family
from pricing.offer import Offer, PricingModel

PROVIDER = "aws"
SERVICE = "EC2"

log = logging.getLogger("pricing.adapters.aws")


@dataclass
class Skipped:
    """Accelerated instance types seen but not priced, so a new family is noticed, not lost."""

    unknown: set[str] = field(default_factory=set)

    def check(self, instances: InstanceMap, instance_type: str) -> InstanceType | None:
        found = instances.training(instance_type)
        if found is None and instance_type not in instances:
            self.unknown.add(instance_type)
        return found

    def report(self) -> str:
        if not self.unknown:
            return ""
        families = sorted({family(t) for t in self.unknown})
        message = (
            f"skipped {len(self.unknown)} accelerated instance types not in "
            f"pricing/data/aws_instances.csv (families {', '.join(families)})"
        )
        log.warning("aws: %s: %s", message, ", ".join(sorted(self.unknown)))
        return message


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


def flag_spot_at_or_above_on_demand(offers: list[Offer]) -> list[Offer]:
    """Spot at or above on-demand usually means no spot capacity: keep it, flagged suspect."""
    on_demand = {
        (o.product, o.region): o.usd_per_hour for o in offers if o.pricing == PricingModel.ON_DEMAND
    }
    flagged = []
    for o in offers:
        reference = on_demand.get((o.product, o.region))
        if o.pricing == PricingModel.SPOT and reference is not None and o.usd_per_hour >= reference:
            o = replace(o, suspect=True, notes=f"spot >= on-demand {reference:g}: no capacity?")
        flagged.append(o)
    return flagged
