"""AWS spot without credentials: prices from the public spot pricing page's data, and each
type's interruption band from the Spot Instance Advisor's.

Two public files, no AWS account needed:

- ``spot.json`` (https://website.spot.ec2.aws.a2z.com/spot.json): the data behind
  aws.amazon.com/ec2/spot/pricing, one Linux and one Windows price per region and instance
  type, as strings ("14.2313"; "N/A*" where a size is not sold as spot there). The older
  ``spot.js`` is the same document wrapped as ``callback(...);`` with legacy region names
  ("us-east"); both are read. The page shows one price per region, not per zone.
- ``spot-advisor-data.json`` (https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json):
  per region and type, the savings against on-demand (``s``) and the index (``r``) of an
  interruption band in its ``ranges`` table ("<5%" ... ">20%"): "the rate at which Spot has
  reclaimed capacity during the trailing month" (AWS). The band sets the offer's lost-work
  overhead (service/engine/interruption.py).

Neither file dates its data: a price is as of the day it was read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import requests

from pricing.adapters.aws.common import instance_offer, positive_price
from pricing.adapters.aws.instances import InstanceMap, training
from pricing.errors import AdapterError
from pricing.http import get
from pricing.offer import AWS_INTERRUPTION_BANDS, Offer, PricingModel

PRICES_SOURCE = "AWS public spot price data (spot.json, aws.amazon.com/ec2/spot/pricing)"
ADVISOR_SOURCE = "AWS Spot Instance Advisor data (spot-advisor-data.json)"
NOTE = "Linux; the region's spot price as the public pricing page shows it (zones differ)"
NOT_SOLD = "N/A"  # "N/A*": not sold as spot in that region
# spot.js, frozen since 2024-05-13, names six regions the old way; spot.json uses codes.
LEGACY_REGIONS = {
    "us-east": "us-east-1",
    "us-west": "us-west-1",
    "eu-ireland": "eu-west-1",
    "apac-sin": "ap-southeast-1",
    "apac-syd": "ap-southeast-2",
    "apac-tokyo": "ap-northeast-1",
}
JSONP = "callback("

Bands = Mapping[tuple[str, str], str]  # (region, instance type) -> "<5%" ...


def fetch_document(http: requests.Session, url: str, timeout: float) -> Any:
    """One of the two files, as JSON; a JSONP wrapper (spot.js) is taken off first."""
    text = get(http, url, timeout).text.strip()
    if text.startswith(JSONP):
        text = text[len(JSONP) :].rstrip(";").rstrip()
        text = text[:-1] if text.endswith(")") else text
    try:
        return json.loads(text)
    except ValueError as exc:
        raise AdapterError(f"GET {url}: answer is not JSON (truncated?)") from exc


def parse_spot_prices(
    document: Any, regions: Iterable[str], instances: InstanceMap, price_as_of: str
) -> list[Offer]:
    """One spot offer per training instance type and region asked, where sold as spot."""
    wanted = set(regions)
    offers = []
    for region, size, text in _price_cells(document):
        instance = training(instances, size)
        if region not in wanted or instance is None or text.startswith(NOT_SOLD):
            continue
        price = positive_price(text, f"spot.json: {region} {size}")
        offers.append(
            instance_offer(
                instance,
                region,
                PricingModel.SPOT,
                price,
                price_as_of,
                source=PRICES_SOURCE,
                notes=NOTE,
            )
        )
    return offers


def _price_cells(document: Any) -> Iterable[tuple[str, str, str]]:
    """(region code, instance type, Linux USD price text) of every size the file lists."""
    config = document.get("config") if isinstance(document, Mapping) else None
    listed = config.get("regions") if isinstance(config, Mapping) else None
    if not isinstance(listed, list) or not listed:
        raise AdapterError("spot.json: no config.regions list")
    for entry in listed:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("region"), str):
            raise AdapterError(f"spot.json: a region without a name: {str(entry)[:80]}")
        region = LEGACY_REGIONS.get(entry["region"], entry["region"])
        for family in entry.get("instanceTypes") or []:
            for size in (family.get("sizes") if isinstance(family, Mapping) else None) or []:
                name = size.get("size") if isinstance(size, Mapping) else None
                text = _linux_price(size) if isinstance(name, str) else None
                if text is not None:
                    yield region, name, text


def _linux_price(size: Mapping[str, Any]) -> str | None:
    for column in size.get("valueColumns") or []:
        if isinstance(column, Mapping) and column.get("name") == "linux":
            price = (column.get("prices") or {}).get("USD")
            return price.strip() if isinstance(price, str) else None
    return None


def parse_advisor(document: Any) -> dict[tuple[str, str], str]:
    """(region, instance type) -> its Linux interruption band, as the advisor labels it."""
    if not isinstance(document, Mapping):
        raise AdapterError("spot advisor: not a JSON object")
    ranges = document.get("ranges")
    advisor = document.get("spot_advisor")
    if not isinstance(ranges, list) or not isinstance(advisor, Mapping):
        raise AdapterError("spot advisor: no 'ranges' list or 'spot_advisor' object")
    labels = {}
    for band in ranges:
        if isinstance(band, Mapping) and band.get("label") in AWS_INTERRUPTION_BANDS:
            labels[band.get("index")] = band["label"]
    if set(labels.values()) != set(AWS_INTERRUPTION_BANDS):
        raise AdapterError(f"spot advisor: unexpected interruption bands {ranges!r:.200}")
    bands = {}
    for region, systems in advisor.items():
        linux = systems.get("Linux") if isinstance(systems, Mapping) else None
        for instance_type, figures in (linux or {}).items():
            index = figures.get("r") if isinstance(figures, Mapping) else None
            if index in labels:
                bands[(str(region), str(instance_type))] = labels[index]
    return bands


def with_bands(offers: Iterable[Offer], bands: Bands) -> list[Offer]:
    """Spot offers carrying their type's band in their region, where the advisor gives one."""
    return [
        replace(offer, interruption=bands[(offer.region, offer.product)])
        if offer.pricing == PricingModel.SPOT and (offer.region, offer.product) in bands
        else offer
        for offer in offers
    ]
