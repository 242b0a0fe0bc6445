"""On-demand prices from the Price List Query API (``pricing.get_products``), with credentials.

Each PriceList entry is a JSON *string* holding one product (SKU) and its terms. The server
side filters narrow the result to Linux, shared-tenancy, no pre-installed software, used
capacity, accelerated families in one region; the parser re-checks all of it, because a
filter that AWS silently ignores must not let Windows or Dedicated Host rows through.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pricing.adapters.aws.common import instance_offer, lookup
from pricing.adapters.aws.instances import InstanceMap, InstanceType
from pricing.adapters.aws.reserved import UPFRONT_FEE, Term, cheapest_terms, known_term, term_offer
from pricing.adapters.kit import SkipReport
from pricing.errors import AdapterError
from pricing.offer import Offer, PricingModel

# The Price List Query API lives in us-east-1 (and two others) whatever region is priced.
PRICING_REGION = "us-east-1"
ACCELERATED_FAMILIES = ("GPU instance", "Machine Learning ASIC Instances")
# Attribute values a row must have to be a plain Linux on-demand instance hour.
REQUIRED = {
    "operatingSystem": "Linux",
    "tenancy": "Shared",
    "preInstalledSw": "NA",
    "capacitystatus": "Used",
}


def product_filters(region: str) -> list[dict[str, str]]:
    exact = {"regionCode": region, **REQUIRED}
    filters = [{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in exact.items()]
    filters.append(
        {"Type": "ANY_OF", "Field": "instanceFamily", "Value": ",".join(ACCELERATED_FAMILIES)}
    )
    return filters


def fetch_price_list(client: Any, region: str) -> Iterator[str]:
    """Every PriceList entry for the region's accelerated instances, all pages."""
    paginator = client.get_paginator("get_products")
    pages = paginator.paginate(
        ServiceCode="AmazonEC2",
        Filters=product_filters(region),
        FormatVersion="aws_v1",
        PaginationConfig={"PageSize": 100},
    )
    for number, page in enumerate(pages, start=1):
        # botocore turns an unparsable JSON body into {} instead of raising: without this
        # check a page cut off mid-body would end pagination early and look complete.
        if not isinstance(page.get("PriceList"), list):
            raise AdapterError(f"{region}: GetProducts page {number} is malformed or truncated")
        yield from page["PriceList"]


def parse_price_list(
    entries: Iterable[str | Mapping[str, Any]],
    instances: InstanceMap,
    price_as_of: str,
    skipped: SkipReport,
) -> list[Offer]:
    offers = []
    for raw in entries:
        try:
            item = json.loads(raw) if isinstance(raw, str) else raw
            attrs = item["product"]["attributes"]
        except (ValueError, KeyError, TypeError) as exc:
            raise AdapterError(f"malformed PriceList entry: {exc}") from exc
        if not _is_linux_box_usage(item.get("product", {}).get("productFamily", ""), attrs):
            continue
        instance = lookup(instances, attrs.get("instanceType", ""), skipped)
        if instance is None:
            continue
        version = item.get("version", "")
        for term in item.get("terms", {}).get("OnDemand", {}).values():
            for dimension in term.get("priceDimensions", {}).values():
                usd = dimension.get("pricePerUnit", {}).get("USD")
                if dimension.get("unit") != "Hrs" or usd is None or float(usd) <= 0:
                    continue
                offers.append(
                    instance_offer(
                        instance,
                        attrs["regionCode"],
                        PricingModel.ON_DEMAND,
                        float(usd),
                        price_as_of,
                        source=f"AWS Price List Query API (get_products), offer {version}",
                        notes=f"effective {term.get('effectiveDate', '')[:10]}",
                    )
                )
        source = f"AWS Price List Query API (get_products), offer {version}"
        for term in item.get("terms", {}).get("Reserved", {}).values():
            offer = _reserved(term, instance, attrs["regionCode"], price_as_of, source)
            if offer is not None:
                offers.append(offer)
    return cheapest_terms(offers)


def _reserved(
    term: Mapping[str, Any], instance: InstanceType, region: str, price_as_of: str, source: str
) -> Offer | None:
    """``terms.Reserved[sku][code]``: its lease, option and class in ``termAttributes``,
    its hourly rate and upfront fee as price dimensions (pricing/adapters/aws/reserved.py)."""
    attributes = term.get("termAttributes", {})
    lease = attributes.get("LeaseContractLength", "")
    option = attributes.get("PurchaseOption", "")
    offering_class = attributes.get("OfferingClass", "")
    if not known_term(lease, option, offering_class):
        return None
    effective = str(term.get("effectiveDate", ""))[:10] or price_as_of
    found = Term(instance, region, lease, option, offering_class, effective)
    for dimension in term.get("priceDimensions", {}).values():
        usd = dimension.get("pricePerUnit", {}).get("USD")
        if usd is None:
            continue
        try:
            value = float(usd)
        except ValueError as exc:
            raise AdapterError(f"bad reserved price {usd!r}") from exc
        if dimension.get("unit") == "Quantity" and dimension.get("description") == UPFRONT_FEE:
            found.upfront = value
        elif dimension.get("unit") == "Hrs":
            found.hourly = value
    return term_offer(found, source)


def _is_linux_box_usage(product_family: str, attrs: Mapping[str, str]) -> bool:
    return (
        product_family == "Compute Instance"
        and "BoxUsage" in attrs.get("usagetype", "")
        and all(attrs.get(k) == v for k, v in REQUIRED.items())
        and attrs.get("marketoption", "OnDemand") == "OnDemand"
    )
