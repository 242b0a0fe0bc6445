"""What the three AWS sources share: the Offer they build and the record of skipped types."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

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
