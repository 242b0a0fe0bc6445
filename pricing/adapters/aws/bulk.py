"""On-demand and reserved prices without credentials: the public regional offer file, streamed.

``{base}/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv`` is hundreds of MB to GBs:
five preamble lines, a 91-column header, then one row per (SKU, term, price dimension),
streamed (pricing/adapters/aws/price_file.py). A line is parsed only if a few byte-substring
tests say it could be a Linux accelerated instance hour, on demand or reserved, so almost
every line costs a handful of ``in`` tests. A reserved term's two rows (its hourly rate and
its upfront fee) are paired by SKU and OfferTermCode once the file is read
(pricing/adapters/aws/reserved.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import requests

from pricing.adapters.aws.common import instance_offer, lookup
from pricing.adapters.aws.instances import InstanceMap
from pricing.adapters.aws.price_file import CHUNK_BYTES, PriceFile, csv_fields
from pricing.adapters.aws.reserved import UPFRONT_FEE, Term, cheapest_terms, known_term, term_offer
from pricing.adapters.kit import SkipReport
from pricing.errors import AdapterError
from pricing.http import get_chunks
from pricing.offer import Offer, PricingModel

# Every wanted row contains all of these; the family test comes first as the most selective.
_FAMILIES = (b'"GPU instance"', b'"Machine Learning ASIC Instances"')
# (MarketOption "OnDemand" is on reserved rows too: it is the market, not the term.)
_MUST = (b"BoxUsage", b'"OnDemand"', b'"Linux"', b'"Shared"')
# Column -> the value a wanted row has (the term and unit are checked per term type).
_REQUIRED = {
    "Currency": "USD",
    "Product Family": "Compute Instance",
    "Operating System": "Linux",
    "Tenancy": "Shared",
    "Pre Installed S/W": "NA",
    "CapacityStatus": "Used",
}


def offer_file_url(base: str, region: str) -> str:
    return f"{base.rstrip('/')}/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"


@dataclass
class BulkFile:
    """What one regional file yielded: offers, plus its version for the run record."""

    offers: list[Offer] = field(default_factory=list)
    version: str = ""
    published: str = ""
    bytes_read: int = 0


def parse_offer_file(
    chunks: Iterable[bytes],
    region: str,
    instances: InstanceMap,
    price_as_of: str,
    skipped: SkipReport,
) -> BulkFile:
    result = BulkFile()
    file = PriceFile(chunks, "offer file")
    preamble, header = file.preamble, file.header
    if preamble.get("OfferCode") != "AmazonEC2" or "PricePerUnit" not in header:
        raise AdapterError(f"{region}: not an AmazonEC2 offer file (preamble {preamble})")
    result.version = preamble.get("Version", "")
    result.published = preamble.get("Publication Date", "")
    column = {name: i for i, name in enumerate(header)}
    try:
        required = [(column[name], value) for name, value in _REQUIRED.items()]
        i_type, i_price = column["Instance Type"], column["PricePerUnit"]
        i_usage, i_region = column["usageType"], column["Region Code"]
        i_market = column.get("MarketOption")
        i_term, i_unit, i_what = column["TermType"], column["Unit"], column["PriceDescription"]
        i_sku, i_code, i_date = column["SKU"], column["OfferTermCode"], column["EffectiveDate"]
        i_lease, i_option = column["LeaseContractLength"], column["PurchaseOption"]
        i_class = column["OfferingClass"]
    except KeyError as exc:
        raise AdapterError(f"{region}: offer file lacks column {exc}") from exc
    width = len(header)
    source = f"AWS Price List Bulk API, {region} index.csv version {result.version}"

    terms: dict[tuple[str, str], Term] = {}  # reserved terms by (SKU, OfferTermCode)
    for line in file:
        if not (_FAMILIES[0] in line or _FAMILIES[1] in line):
            continue
        if not all(token in line for token in _MUST):
            continue
        row = csv_fields(line)
        if len(row) != width:
            raise AdapterError(f"{region}: truncated or malformed row ({len(row)} fields)")
        if any(row[i] != value for i, value in required) or "BoxUsage" not in row[i_usage]:
            continue
        if i_market is not None and row[i_market] not in ("", "OnDemand"):
            continue  # capacity blocks and other markets are not on-demand hours
        reserved = row[i_term] == "Reserved"
        fee = reserved and row[i_unit] == "Quantity" and row[i_what] == UPFRONT_FEE
        if row[i_term] not in ("OnDemand", "Reserved") or (row[i_unit] != "Hrs" and not fee):
            continue
        if reserved and not known_term(row[i_lease], row[i_option], row[i_class]):
            continue
        instance = lookup(instances, row[i_type], skipped)
        if instance is None:
            continue
        try:
            usd = float(row[i_price])
        except ValueError as exc:
            raise AdapterError(f"{region}: bad price {row[i_price]!r}") from exc
        region_code = row[i_region] or region
        if reserved:
            key = (row[i_sku], row[i_code])
            term = terms.setdefault(
                key,
                Term(
                    instance,
                    region_code,
                    row[i_lease],
                    row[i_option],
                    row[i_class],
                    row[i_date] or price_as_of,
                ),
            )
            if fee:
                term.upfront = usd
            else:
                term.hourly = usd
        elif usd > 0:
            result.offers.append(
                instance_offer(
                    instance, region_code, PricingModel.ON_DEMAND, usd, price_as_of, source
                )
            )
    file.check_end(region)
    result.bytes_read = file.bytes_read
    reserved = [term_offer(term, source) for term in terms.values()]
    result.offers += cheapest_terms([offer for offer in reserved if offer is not None])
    return result


def fetch_offer_file(
    http: requests.Session,
    base: str,
    region: str,
    instances: InstanceMap,
    price_as_of: str,
    skipped: SkipReport,
    timeout: float,
) -> BulkFile:
    with get_chunks(http, offer_file_url(base, region), timeout, CHUNK_BYTES) as chunks:
        return parse_offer_file(chunks, region, instances, price_as_of, skipped)
