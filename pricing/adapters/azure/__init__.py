"""Azure: pay-as-you-go, spot, reservation and savings-plan prices of every whole-GPU VM size.

The Azure Retail Prices API is public, so no credentials: one filtered query lists every
NC, ND and NV Virtual Machines meter at Consumption and Reservation prices in USD, about
1000 items a page,
followed through ``NextPageLink``. An item prices a whole VM size for an hour; which GPU,
and how many, each size carries comes from the curated ``pricing/data/azure_vms.csv``.

Rules, and why:
- a page that fails, is not JSON or has no ``Items`` fails the run: stopping there would
  store a silently partial price list; so does an answer with no items on any page;
- a ``NextPageLink`` to another scheme, host or port is refused, and one already followed
  too: an answer must not send us elsewhere, nor round in circles;
- a Reservation item's ``retailPrice`` is the total for its 1- or 3-year term
  (``reservationTerm``), although ``unitOfMeasure`` says "1 Hour": its hourly rate is the
  total over the term's hours, and it is offered as reserved_1y or reserved_3y with purchase
  option "reservation" (paid upfront or monthly, the same total: upfront share 0);
- a Consumption item's ``savingsPlan`` rates (this API version only) are hourly rates for a
  1- or 3-year hourly commitment: offered as reserved_1y or reserved_3y, "savings_plan";
- DevTestConsumption needs a Dev/Test subscription; Windows meters include a licence: both
  skipped;
- Spot and Low Priority (being retired) are both evictable: both priced as spot, the notes
  say which;
- the fractional NVadsA10_v5 sizes (1/6, 1/3 and 1/2 of an A10) are known but skipped, see
  ``FRACTIONAL``: a fraction of a GPU is not a GPU. Any other NC/ND/NV size missing from the
  table is unknown: reported, never priced;
- several items for one (size, region, pricing) keep the latest effectiveStartDate; a
  Spot item is kept over a Low Priority one whatever their dates.

With Microsoft Entra client credentials, each Spot VM offer also carries its size's eviction
band in its region, read from Resource Graph (``eviction.py``): an extra, whose failure costs
the bands only, never the prices; the run record says which it was.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import requests

from pricing.adapters import Batch
from pricing.adapters.azure import eviction
from pricing.adapters.kit import HttpConfig, Reason, SkipReport, read_table
from pricing.errors import AdapterError
from pricing.http import get_json, same_origin
from pricing.offer import TERM_HOURS, Offer, PricingModel

PROVIDER = "azure"
SERVICE = "Virtual Machines"
SOURCE = "Azure Retail Prices API"
API_VERSION = "2023-01-01-preview"
GPU_PREFIXES = ("Standard_NC", "Standard_ND", "Standard_NV")
# Filter values are case-sensitive in this API version.
PRICE_FILTER = (
    "serviceName eq 'Virtual Machines' and "
    "(priceType eq 'Consumption' or priceType eq 'Reservation') and "
    "(contains(armSkuName, 'Standard_NC') or contains(armSkuName, 'Standard_ND') "
    "or contains(armSkuName, 'Standard_NV'))"
)
# NVadsA10_v5 sizes with 1/6, 1/3 and 1/2 of an A10 (learn.microsoft.com, nvadsa10v5-series).
FRACTIONAL = frozenset(
    {"Standard_NV6ads_A10_v5", "Standard_NV12ads_A10_v5", "Standard_NV18ads_A10_v5"}
)
EVICTABLE = (" Spot", " Low Priority")  # skuName / meterName suffixes
EVICTABLE_NOTE = "{} VM: evictable"  # an evictable offer's note names which of the two
# savingsPlan[].term values -> the committed tier: Azure's savings plans are 1 or 3 years
SAVINGS_PLAN_TERMS = {"1 Year": PricingModel.RESERVED_1Y, "3 Years": PricingModel.RESERVED_3Y}
# reservationTerm values: reservations also for 5 years (ND H100 v5, Retail Prices API)
TERMS = {**SAVINGS_PLAN_TERMS, "5 Years": PricingModel.RESERVED_5Y}
# GPU sizes seen but in no row of the table, and items refused: reported, never priced.
UNMAPPED = Reason("GPU VM sizes not in pricing/data/azure_vms.csv skipped")
REJECTED = Reason("non-USD or malformed items rejected", each=True, shown=False)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class VmSize:
    name: str  # armSkuName
    accelerator: str  # canonical id (hardware registry)
    count: int  # whole GPUs
    memory_gb: float | None  # per GPU; None = the registry's figure
    source: str


VmMap = Mapping[str, VmSize]  # by armSkuName


def load_vm_map() -> VmMap:
    return {
        row["arm_sku_name"]: VmSize(
            name=row["arm_sku_name"],
            accelerator=row["accelerator"],
            count=int(row["count"]),
            memory_gb=float(row["memory_gb"]) if row["memory_gb"] else None,
            source=row["source"],
        )
        for row in read_table("azure_vms.csv")
    }


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [UNMAPPED, REJECTED])


def lookup(vms: VmMap, sku: str, skipped: SkipReport) -> VmSize | None:
    """The size if mapped; a GPU size in no row is filed as unmapped, unless it is fractional."""
    found = vms.get(sku)
    if found is None and sku.startswith(GPU_PREFIXES) and sku not in FRACTIONAL:
        skipped.add(UNMAPPED, sku)
    return found


def is_windows(product_name: str) -> bool:
    """A productName like "... Series Windows" or "... Srs Win": a Windows licence is in it."""
    return product_name.endswith(" Win") or "Windows" in product_name


def parse_items(
    items: Iterable[Any], vms: VmMap, price_as_of: str, skipped: SkipReport
) -> list[Offer]:
    """Linux hourly offers of mapped sizes, one per (size, region, pricing): the latest."""
    kept: dict[tuple[str, str, PricingModel, str], tuple[tuple[datetime, bool], Offer]] = {}
    for item in items:
        for rank, offer in _parse_one(item, vms, price_as_of, skipped):
            key = (offer.product, offer.region, offer.pricing, offer.purchase_option)
            if key not in kept or rank > kept[key][0]:
                kept[key] = (rank, offer)
    return [offer for _, offer in kept.values()]


def _parse_one(
    item: Any, vms: VmMap, price_as_of: str, skipped: SkipReport
) -> list[tuple[tuple[datetime, bool], Offer]]:
    """The offers one item prices, each with its rank among repeats: none, its hourly
    offer, or that and its savings-plan rates."""
    if not isinstance(item, dict):
        skipped.add(REJECTED, f"not an object: {item!r:.60}")
        return []
    sku = str(item.get("armSkuName") or "")
    region = str(item.get("armRegionName") or "")
    currency = item.get("currencyCode")
    if currency != "USD":
        skipped.add(REJECTED, f"{sku} {region}: priced in {currency}")
        return []
    kind = item.get("type")
    if kind not in ("Consumption", "Reservation") or item.get("unitOfMeasure") != "1 Hour":
        return []  # DevTestConsumption, other units
    if is_windows(str(item.get("productName") or "")):
        return []
    size = lookup(vms, sku, skipped)
    if size is None:
        return []
    price = item.get("retailPrice")
    if isinstance(price, bool) or not isinstance(price, int | float) or not region:
        skipped.add(REJECTED, f"{sku} {region}: malformed item (retailPrice {price!r})")
        return []
    if not price > 0:
        return []  # $0 is not a price
    names = (str(item.get("skuName") or ""), str(item.get("meterName") or ""))
    evictable = next((s.strip() for s in EVICTABLE for name in names if name.endswith(s)), None)
    start = str(item.get("effectiveStartDate") or "")
    notes = [f"effectiveStartDate {start}"] if start else []
    meter = item.get("meterId") or names[0]

    def offer(pricing: PricingModel, usd: float, *more: str, **committed: Any) -> Offer:
        return Offer(
            provider=PROVIDER,
            service=SERVICE,
            product=sku,
            region=region,
            accelerator=size.accelerator,
            count=size.count,
            pricing=pricing,
            usd_per_hour=usd,
            price_as_of=price_as_of,
            source=f"{SOURCE}, meter {meter}",
            memory_gb=size.memory_gb,
            confidence="high",
            notes="; ".join([*notes, *more]),
            **committed,
        )

    # Spot, the current product (Azure's bands are for it), over Low Priority, which is
    # being retired, whatever their dates; then the latest start.
    rank = (evictable != "Low Priority", _instant(start))
    if kind == "Reservation":
        term = TERMS.get(str(item.get("reservationTerm") or ""))
        if term is None or evictable:
            skipped.add(
                REJECTED, f"{sku} {region}: reservation term {item.get('reservationTerm')!r}"
            )
            return []
        hours = TERM_HOURS[term]
        reserved = offer(
            term,
            round(float(price) / hours, 6),
            f"reservation: {float(price):g} USD for the term's {hours:,.0f} h, paid upfront or "
            "monthly",
            purchase_option="reservation",
            upfront_share=0.0,
        )
        return [(rank, reserved)]
    if evictable:
        return [(rank, offer(PricingModel.SPOT, float(price), EVICTABLE_NOTE.format(evictable)))]
    found = [(rank, offer(PricingModel.ON_DEMAND, float(price)))]
    for plan in item.get("savingsPlan") or ():
        term = (
            SAVINGS_PLAN_TERMS.get(str(plan.get("term") or "")) if isinstance(plan, dict) else None
        )
        rate = plan.get("unitPrice") if term is not None else None
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not rate > 0:
            continue
        committed = offer(
            term,  # type: ignore[arg-type]
            float(rate),
            f"savings plan: {float(rate):g} USD an hour committed for the term",
            purchase_option="savings_plan",
            upfront_share=0.0,
        )
        found.append((rank, committed))
    return found


def _instant(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)  # undated sorts oldest
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def is_spot_vm(offer: Offer) -> bool:
    """A Spot VM's offer, not a Low Priority one's: Azure's bands are for Spot VMs."""
    return EVICTABLE_NOTE.format("Spot") in offer.notes


@dataclass(frozen=True)
class AzureConfig:
    prices_url: str
    http: HttpConfig = field(default_factory=HttpConfig)
    # the eviction bands: read only with credentials and both endpoints (eviction.py)
    credentials: eviction.Credentials | None = None
    credentials_missing: tuple[str, ...] = ()  # some set, these not: a misconfiguration
    login_url: str = ""
    resource_graph_url: str = ""


class AzureAdapter:
    name = PROVIDER

    def __init__(
        self,
        config: AzureConfig,
        http: requests.Session | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        vms: VmMap | None = None,
    ) -> None:
        self.config = config
        self._http = http
        self._clock = clock
        self._vms = vms

    def fetch(self) -> Batch:
        vms = load_vm_map() if self._vms is None else self._vms
        today = self._clock().date().isoformat()
        items: list[Any] = []
        pages = 0
        for page in self._pages():
            items += page
            pages += 1
        if not items:  # thousands of GPU meters exist: none at all is a broken answer
            raise AdapterError(f"no items on any of {pages} page(s): never the whole price list")
        skipped = skip_report()
        offers = parse_items(items, vms, today, skipped)
        bands, note = self._bands()
        offers = eviction.with_bands(offers, bands, is_spot_vm)
        version = f"eviction bands: {note}; {SOURCE} {API_VERSION}, {pages} pages"
        return Batch(offers, source_version=skipped.version(version))

    def _bands(self) -> tuple[eviction.Bands, str]:
        """Resource Graph's eviction bands, or none and why (spot_overhead then applies)."""
        if self.config.credentials_missing:
            unset = ", ".join(self.config.credentials_missing)
            return {}, f"credentials incomplete ({unset} unset), spot_overhead applies"
        if self.config.credentials is None:
            return {}, "no credentials, spot_overhead applies"
        if not (self.config.login_url and self.config.resource_graph_url):
            return {}, "no Resource Graph configured, spot_overhead applies"
        http = self._http or self.config.http.session()
        try:
            bands = eviction.fetch_bands(
                http,
                self.config.login_url,
                self.config.resource_graph_url,
                self.config.credentials,
                self.config.http.timeout_seconds,
            )
        except AdapterError as exc:
            log.warning("azure: eviction rates unavailable: %s", exc)
            return {}, "unavailable (see the log), spot_overhead applies"
        except (ValueError, RecursionError) as exc:  # a hostile answer: its text unquoted
            log.warning("azure: eviction rates unavailable: %s", type(exc).__name__)
            return {}, "unavailable (see the log), spot_overhead applies"
        return bands, f"Resource Graph ({len(bands)} sizes and regions)"

    def _pages(self) -> Iterator[list[Any]]:
        """Every page's Items, in order; any page that cannot be read fails the run."""
        http = self._http or self.config.http.session()
        url = self.config.prices_url
        params: dict[str, str] | None = {"api-version": API_VERSION, "$filter": PRICE_FILTER}
        followed: set[str] = set()
        page = 1
        while True:
            body = self._get(http, url, params, page)
            yield body["Items"]
            link = body.get("NextPageLink")
            if not link:
                return
            if not isinstance(link, str) or not same_origin(link, self.config.prices_url):
                raise AdapterError(
                    f"page {page}: NextPageLink {link!r:.200} is not on "
                    f"{self.config.prices_url}'s scheme, host and port: refused"
                )
            if link in followed:
                raise AdapterError(f"page {page}: NextPageLink {link:.200} was already followed")
            followed.add(link)
            url, params, page = link, None, page + 1

    def _get(
        self, http: requests.Session, url: str, params: dict[str, str] | None, page: int
    ) -> dict[str, Any]:
        body = get_json(
            http, url, self.config.http.timeout_seconds, params=params, context=f"page {page}: "
        )
        if not isinstance(body, dict) or not isinstance(body.get("Items"), list):
            raise AdapterError(f"page {page}: GET {url}: answer has no 'Items' list")
        return body
