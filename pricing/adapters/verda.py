"""Verda (formerly DataCrunch): instance prices on demand and spot, and its long-term
contracts as committed terms, from two public lists that need no account.

``GET {url}/v1/instance-types`` answers a list of instance types: ``instance_type`` (its
id, such as ``8H100.80S.176V``), the GPU by ``name`` (``H100 SXM5 80GB``) and by ``gpu``
(``{"description": "8x H100 SXM5 80GB", "number_of_gpus": 8}``), and the whole instance's
``price_per_hour`` and ``spot_price`` as decimal strings in ``currency`` (``usd``).
``GET {url}/v1/long-term/periods/instances`` answers the contracts Verda sells for an
instance (``.../clusters`` lists a cluster's): per period a ``code``, its length
(``unit_name`` month or year, ``unit_value``), whether it is sold (``is_enabled``) and its
``discount_percentage`` off the on-demand price. A contract is a committed term at that
discount, every hour paid (``purchase_option`` commitment); a period whose length is not
one of the terms (pricing/offer.py TERM_MONTHS) is reported, not priced, so a new length
shows in the run record before it shows in an answer; a list whose enabled periods are none
of the terms fails the run, as an unreadable one does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from pricing.adapters import Batch
from pricing.adapters.kit import Reason, SkipReport, WebAdapter, WebConfig, listed_price
from pricing.errors import AdapterError
from pricing.http import get_json
from pricing.offer import TERM_MONTHS, Offer, PricingModel

PROVIDER = "verda"
SERVICE = "Verda Cloud"
TYPES_PATH = "/v1/instance-types"
PERIODS_PATH = "/v1/long-term/periods/instances"  # an instance's; clusters have their own
SOURCE = f"Verda API {TYPES_PATH} and {PERIODS_PATH}"
REGION = "global"  # the lists name no location
CURRENCY = "usd"
MONTHS_IN = {"month": 1, "year": 12}  # a period's unit_name (any case, plural), in months
TERM_OF_MONTHS = {months: term for term, months in TERM_MONTHS.items()}

NO_GPU = Reason("instance types without a GPU skipped")
UNKNOWN_GPU = Reason("instance types with GPUs not in the hardware registry skipped")
NO_PRICE = Reason("prices that are not a positive number skipped", each=True)
OTHER_CURRENCY = Reason("instance types priced in another currency than USD skipped")
OTHER_LENGTH = Reason("contract lengths that are not a committed term skipped")

log = logging.getLogger(__name__)


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [NO_GPU, UNKNOWN_GPU, NO_PRICE, OTHER_CURRENCY, OTHER_LENGTH])


def parse_periods(periods: Any, skipped: SkipReport) -> dict[PricingModel, Decimal]:
    """Each committed term Verda sells and its discount off on demand, as a share (0.08);
    a period not sold, or of a length no term has, is left out (the second reported)."""
    if not isinstance(periods, list):
        raise AdapterError(f"the long-term periods are not a list: {type(periods).__name__}")
    terms: dict[PricingModel, Decimal] = {}
    enabled = 0
    for period in periods:
        if not isinstance(period, Mapping):
            raise AdapterError(f"a long-term period is not an object: {period!r}")
        if period.get("is_enabled") is not True:
            continue
        enabled += 1
        code = str(period.get("code") or period.get("name") or "?")
        unit, value = period.get("unit_name"), period.get("unit_value")
        months = _months(unit, value)
        term = TERM_OF_MONTHS.get(months) if months is not None else None
        if term is None:
            skipped.add(OTHER_LENGTH, code)
            continue
        discount = _share(period.get("discount_percentage"))
        if discount is None:
            raise AdapterError(f"period {code!r}: bad discount_percentage")
        terms[term] = max(discount, terms.get(term, discount))  # "12 months" and "1 year"
    if enabled and not terms:
        raise AdapterError(f"none of the {enabled} long-term periods sold is a term's length")
    return terms


def parse_instance_types(
    types: Any,
    terms: Mapping[PricingModel, Decimal],
    resolve_accelerator: Callable[[str], str | None],
    price_as_of: str,
    skipped: SkipReport,
) -> list[Offer]:
    """Per GPU instance type: its on-demand offer, its spot offer where the spot price is
    below it, and one committed offer per term at the term's discount off on demand."""
    if not isinstance(types, list):
        raise AdapterError(f"the instance types are not a list: {type(types).__name__}")
    offers: list[Offer] = []
    for item in types:
        if not isinstance(item, Mapping):
            raise AdapterError(f"an instance type is not an object: {item!r}")
        product = item.get("instance_type")
        if not isinstance(product, str) or not product:
            raise AdapterError(f"an instance type without its id: {item.get('id')!r}")
        gpu = item.get("gpu")
        count = gpu.get("number_of_gpus") if isinstance(gpu, Mapping) else None
        if isinstance(count, float) and count.is_integer():
            count = int(count)  # 8.0
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            skipped.add(NO_GPU, product)
            continue
        if str(item.get("currency") or CURRENCY).lower() != CURRENCY:
            skipped.add(OTHER_CURRENCY, product, f"{product} in {item.get('currency')}")
            continue
        accelerator = _accelerator(item, resolve_accelerator)
        if accelerator is None:
            skipped.add(UNKNOWN_GPU, product, str(item.get("name") or product))
            continue
        price = listed_price(item.get("price_per_hour"))
        if price is None:
            skipped.add(NO_PRICE, f"{product} price_per_hour={item.get('price_per_hour')!r}")
            continue
        made = _Made(product, accelerator, count, price, price_as_of)
        offers.append(made.offer(PricingModel.ON_DEMAND, price, f"{price} USD an instance-hour"))
        spot = listed_price(item.get("spot_price"))
        if spot is not None and spot < price:
            offers.append(made.offer(PricingModel.SPOT, spot, f"spot: {spot} USD an instance-hour"))
        for term, discount in terms.items():
            rate = price * (1 - discount)
            offers.append(
                made.offer(
                    term,
                    rate,
                    f"long-term contract of {_months_words(TERM_MONTHS[term])}: "
                    f"{(discount * 100).normalize():f} % "
                    f"off the on-demand {price} USD an instance-hour",
                )
            )
    return offers


class _Made:
    """What every offer of one instance type shares."""

    def __init__(
        self, product: str, accelerator: str, count: int, price: Decimal, price_as_of: str
    ) -> None:
        self.product, self.accelerator, self.count = product, accelerator, count
        self.price_as_of = price_as_of

    def offer(self, pricing: PricingModel, rate: Decimal, what: str) -> Offer:
        committed = pricing in TERM_MONTHS
        return Offer(
            provider=PROVIDER,
            service=SERVICE,
            product=self.product,
            region=REGION,
            accelerator=self.accelerator,
            count=self.count,
            pricing=pricing,
            usd_per_hour=float(rate),
            price_as_of=self.price_as_of,
            source=SOURCE,
            confidence="high",
            notes=f"{what}; the list names no location",
            purchase_option="commitment" if committed else "",
            upfront_share=0.0 if committed else None,
        )


def _accelerator(item: Mapping[str, Any], resolve: Callable[[str], str | None]) -> str | None:
    """The GPU by its full name ("H100 SXM5 80GB"), else by the gpu description less its
    count ("8x H100 SXM5 80GB"); never by the bare model ("A100" is two cards)."""
    name = item.get("name")
    if isinstance(name, str) and (found := resolve(name)):
        return found
    gpu = item.get("gpu")
    described = gpu.get("description") if isinstance(gpu, Mapping) else None
    if isinstance(described, str) and "x " in described:
        return resolve(described.split("x ", 1)[1])
    return None


def _months(unit: Any, value: Any) -> int | None:
    """A period's length in whole months; None where it is not one ("week", 1.5 months)."""
    unit = str(unit).strip().lower().removesuffix("s") if isinstance(unit, str) else None
    if unit not in MONTHS_IN or isinstance(value, bool):
        return None
    try:
        months = Decimal(str(value).strip()) * MONTHS_IN[unit]
    except ArithmeticError:
        return None
    return int(months) if months.is_finite() and months > 0 and months % 1 == 0 else None


def _months_words(months: int) -> str:
    return f"{months} month{'s' if months != 1 else ''}"


def _share(percent: Any) -> Decimal | None:
    """A discount in percent as a share; None where it is not within 0-100."""
    if isinstance(percent, bool) or not isinstance(percent, int | float | str):
        return None
    try:
        share = Decimal(str(percent)) / 100
    except ArithmeticError:
        return None
    return share if share.is_finite() and 0 <= share < 1 else None


class VerdaAdapter(WebAdapter):
    """Both public lists; no key needed, so never skipped. The contracts are read first: a
    failing periods list fails the run rather than pricing on demand alone as if Verda sold
    no term."""

    name = PROVIDER
    config: WebConfig

    def fetch(self) -> Batch:
        http = self.session()
        base = self.config.url.rstrip("/")
        timeout = self.config.http.timeout_seconds
        skipped = skip_report()
        terms = parse_periods(get_json(http, base + PERIODS_PATH, timeout), skipped)
        types = get_json(http, base + TYPES_PATH, timeout)
        offers = parse_instance_types(types, terms, self._resolve, self.today(), skipped)
        if not offers:
            raise AdapterError("the instance types priced no GPU")
        return Batch(offers, source_version=skipped.version(SOURCE))
