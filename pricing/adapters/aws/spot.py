"""Spot prices from ``ec2.describe_spot_price_history`` (credentials needed).

Asked with StartTime = now, EC2 returns the price in effect per instance type and
availability zone; the latest row per (type, zone) wins, and each zone is its own offer
because spot prices and capacity differ by zone. A type with no spot row has no spot offer:
missing is absent, never zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from pricing.adapters.aws.common import instance_offer
from pricing.adapters.aws.instances import InstanceMap, training
from pricing.errors import AdapterError
from pricing.offer import Offer, PricingModel

LINUX = "Linux/UNIX"


def fetch_spot_history(client: Any, now: datetime) -> Iterator[Mapping[str, Any]]:
    paginator = client.get_paginator("describe_spot_price_history")
    pages = paginator.paginate(
        ProductDescriptions=[LINUX], StartTime=now, PaginationConfig={"PageSize": 1000}
    )
    for number, page in enumerate(pages, start=1):
        if not isinstance(page.get("SpotPriceHistory"), list):
            raise AdapterError(f"DescribeSpotPriceHistory page {number} is malformed")
        yield from page["SpotPriceHistory"]


def parse_spot_history(
    items: Iterable[Mapping[str, Any]],
    region: str,
    instances: InstanceMap,
    price_as_of: str,
) -> list[Offer]:
    latest: dict[tuple[str, str], tuple[datetime, float]] = {}
    for item in items:
        if item.get("ProductDescription") != LINUX:
            continue
        try:
            key = (item["InstanceType"], item["AvailabilityZone"])
            stamp = _timestamp(item["Timestamp"])
            price = float(item["SpotPrice"])
        except (KeyError, ValueError, TypeError) as exc:
            raise AdapterError(f"{region}: malformed spot price row {item!r}") from exc
        if price > 0 and (key not in latest or stamp > latest[key][0]):
            latest[key] = (stamp, price)
    offers = []
    for (instance_type, zone), (stamp, price) in sorted(latest.items()):
        # Spot rows carry no instance family: every type comes back, so only mapped ones
        # count here; new accelerated families are noticed by the on-demand sources.
        instance = training(instances, instance_type)
        if instance is None:
            continue
        offers.append(
            instance_offer(
                instance,
                region,
                PricingModel.SPOT,
                price,
                price_as_of,
                source=f"EC2 DescribeSpotPriceHistory, {zone}",
                zone=zone,
                notes=f"spot price set {stamp:%Y-%m-%d %H:%M} UTC",
            )
        )
    return offers


def _timestamp(value: datetime | str) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime.fromisoformat(value.replace("Z", "+00:00"))
