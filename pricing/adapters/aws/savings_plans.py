"""AWS Savings Plans as committed offers: the public Savings Plans price list, streamed.

No credentials are needed. ``region_index.json`` under
``/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/`` names each region's current file
(``versionUrl``, a path on the same host, ending ``index.json``); the same file is published
as ``index.csv``, which is read here like the EC2 offer file (pricing/adapters/aws/
price_file.py): five preamble lines, a header (``SKU``, ``RateCode``, ``Unit``,
``EffectiveDate``, ``DiscountedRate`` ...), one row per plan and usage it discounts. AWS
documents both files at docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/
reading-service-price-list-file-for-savings-plans.html.

A row is an hourly rate of one plan (EC2 Instance or Compute Savings Plan; ``Product
Family``), one term (``LeaseContractLength`` 1 or 3 ``year``) and payment option, for one
usage of one instance type in one region. The rows priced, and why:
- ``DiscountedServiceCode`` AmazonEC2, ``DiscountedOperation`` RunInstances (Linux; the
  ``:0002``-style operations are Windows, RHEL, SQL Server and others), and a usage type
  ``BoxUsage:<type>`` or ``<region prefix>-BoxUsage:<type>`` (shared tenancy; not
  DedicatedUsage, HostBoxUsage, UnusedBox or UnusedDed, which discount reservations);
- ``Unit`` Hrs and ``Currency`` USD;
- ``PurchaseOption`` No Upfront only: the plan paid as it is used, like Azure's savings
  plans (purchase option ``savings_plan``, upfront share 0). The upfront options trade cash
  now for a lower rate, which the reserved instances of the same instance and term already
  offer per option (an EC2 Instance Savings Plan is priced like the standard reserved
  instance, AWS says);
- instance types of the project's table (pricing/data/aws_instances.csv) that train; the
  file's other families are not accelerators and are passed over unreported (the offer file
  reports an unmapped accelerated family).

Of the two plans for one instance, region and term the cheaper is kept, and named. The
rate's ``EffectiveDate`` dates the offer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests

from pricing.adapters.aws.common import instance_offer, positive_price
from pricing.adapters.aws.instances import InstanceMap, training
from pricing.adapters.aws.price_file import CHUNK_BYTES, PriceFile, csv_fields
from pricing.errors import AdapterError
from pricing.http import get, get_chunks
from pricing.offer import Offer, PricingModel

PLANS = {
    "EC2InstanceSavingsPlans": "EC2 Instance Savings Plan",
    "ComputeSavingsPlans": "Compute Savings Plan",
}
LEASES = {"1": PricingModel.RESERVED_1Y, "3": PricingModel.RESERVED_3Y}
PAID_AS_USED = "No Upfront"
# Every wanted row holds these bytes (the exact values are checked once parsed).
_MUST = (b"BoxUsage:", b"RunInstances", b"No Upfront", b"AmazonEC2")
# The columns read, by their header names with case, spaces and underscores set aside.
_COLUMNS = (
    "discountedrate",
    "currency",
    "unit",
    "effectivedate",
    "discountedservicecode",
    "discountedusagetype",
    "discountedoperation",
    "purchaseoption",
    "leasecontractlength",
    "leasecontractlengthunit",
    "productfamily",
    "discountedregioncode",
    "discountedinstancetype",
)


@dataclass
class PlanFile:
    """What one region's file yielded, and its version for the run record."""

    offers: list[Offer] = field(default_factory=list)
    version: str = ""
    bytes_read: int = 0


def region_files(index: Any, index_url: str) -> dict[str, str]:
    """Region -> the URL of its current CSV file, from ``region_index.json``. A
    ``versionUrl`` must be a path on the index's own host: an index must not send the
    adapter elsewhere."""
    listed = index.get("regions") if isinstance(index, Mapping) else None
    if not isinstance(listed, list):
        raise AdapterError("savings plans region index: no regions list")
    files = {}
    for entry in listed:
        region = entry.get("regionCode") if isinstance(entry, Mapping) else None
        path = entry.get("versionUrl") if isinstance(entry, Mapping) else None
        if not isinstance(region, str) or not isinstance(path, str):
            raise AdapterError(f"savings plans region index: a bad entry: {str(entry)[:80]}")
        parts = urlsplit(path)
        if parts.scheme or parts.netloc or not parts.path.endswith("/index.json"):
            raise AdapterError(f"savings plans region index: {region}: refused {path[:80]!r}")
        files[region] = urljoin(index_url, parts.path.removesuffix(".json") + ".csv")
    return files


def parse_plan_file(
    chunks: Iterable[bytes], region: str, instances: InstanceMap, price_as_of: str
) -> PlanFile:
    """The cheapest No Upfront plan per training instance type and term in the file."""
    result = PlanFile()
    file = PriceFile(chunks, "savings plans file")
    column = {_name(name): i for i, name in enumerate(file.header)}
    missing = [name for name in _COLUMNS if name not in column]
    if missing:
        raise AdapterError(f"{region}: not a savings plans file (no {', '.join(missing)})")
    at = {name: column[name] for name in _COLUMNS}
    width = len(file.header)
    result.version = file.preamble.get("Version", "")
    source = f"AWS Price List Bulk API, Savings Plans {region} index.csv version {result.version}"
    best: dict[tuple[str, str, str], tuple[float, str, str]] = {}  # the cheaper plan's
    for line in file:
        if not all(token in line for token in _MUST):
            continue
        row = csv_fields(line)
        if len(row) != width:
            raise AdapterError(f"{region}: truncated or malformed row ({len(row)} fields)")
        value = {name: row[i] for name, i in at.items()}
        if not _priced(value) or training(instances, value["discountedinstancetype"]) is None:
            continue
        rate = positive_price(value["discountedrate"], region, "savings plan rate")
        key = (
            value["discountedinstancetype"],
            value["discountedregioncode"] or region,
            value["leasecontractlength"],
        )
        dated = value["effectivedate"][:10] or price_as_of
        if key not in best or rate < best[key][0]:
            best[key] = (rate, PLANS[value["productfamily"]], dated)
    file.check_end(region)
    result.bytes_read = file.bytes_read
    for (name, region_code, years), (rate, plan, dated) in best.items():
        instance = training(instances, name)
        assert instance is not None  # kept above only if it trains
        offer = instance_offer(
            instance,
            region_code,
            LEASES[years],
            rate,
            dated,
            source,
            notes=f"{plan}, {years} year {PAID_AS_USED}: {rate:g} USD an hour committed for "
            "the term, paid as used",
        )
        result.offers.append(replace(offer, purchase_option="savings_plan", upfront_share=0.0))
    return result


def fetch_plans(
    http: requests.Session,
    index_url: str,
    regions: Iterable[str],
    instances: InstanceMap,
    price_as_of: str,
    timeout: float,
) -> list[Offer]:
    """The regions' plans; a region the index lacks has none."""
    try:
        index = get(http, index_url, timeout).json()
    except ValueError as exc:
        raise AdapterError(f"GET {index_url}: answer is not JSON (truncated?)") from exc
    files = region_files(index, index_url)
    offers: list[Offer] = []
    for region in regions:
        url = files.get(region)
        if url is None:
            continue
        with get_chunks(http, url, timeout, CHUNK_BYTES) as chunks:
            found = parse_plan_file(chunks, region, instances, price_as_of)
        offers += found.offers
    return offers


def _name(header: str) -> str:
    return header.lower().replace(" ", "").replace("_", "")


def _priced(value: Mapping[str, str]) -> bool:
    """A row this adapter prices (the module's rules)."""
    usage = value["discountedusagetype"].split(":", 1)[0]
    return (
        value["discountedservicecode"] == "AmazonEC2"
        and value["discountedoperation"] == "RunInstances"
        and (usage == "BoxUsage" or usage.endswith("-BoxUsage"))
        and value["unit"] == "Hrs"
        and value["currency"] == "USD"
        and value["purchaseoption"] == PAID_AS_USED
        and value["leasecontractlengthunit"] == "year"
        and value["leasecontractlength"] in LEASES
        and value["productfamily"] in PLANS
    )
