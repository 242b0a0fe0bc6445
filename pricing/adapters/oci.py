"""Oracle Cloud (OCI): GPU prices from Oracle's public price list, dated by the list itself.

``GET {url}?currencyCode=USD`` needs no account and answers ``{"lastUpdated": ..., "items":
[...]}``: every part Oracle sells, each with its ``metricName`` and a price per currency and
model (``currencyCodeLocalizations[].prices[]``, ``PAY_AS_YOU_GO``). A GPU is priced per
GPU-hour on a part that names the card, not the shape it is rented in, so
``pricing/data/oci_shapes.csv`` says which part is which bare-metal shape and how many GPUs
that shape holds; the offer is the shape, at the part's rate times its GPUs. The list's
``lastUpdated`` dates every price (list prices are the same in every region).

The list also sells per GPU-hour what is not a GPU to rent: NVIDIA AI Enterprise licences,
GPUs in a customer's own data centre (Cloud@Customer), VMware nodes. A "GPU Per Hour" part of
the public compute categories that the shape table does not name is reported, never
guessed; every other part is not a GPU price and is passed over.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from pricing.adapters import Batch
from pricing.adapters.kit import (
    Reason,
    SkipReport,
    WebAdapter,
    WebConfig,
    listed_price,
    read_table,
)
from pricing.errors import AdapterError
from pricing.http import get_json
from pricing.offer import Offer, PricingModel

PROVIDER = "oci"
SERVICE = "OCI Compute"
SOURCE = "Oracle Cloud price list API (cetools/api/v1/products, currencyCode=USD)"
SHAPES = "oci_shapes.csv"
CURRENCY = "USD"
MODEL = "PAY_AS_YOU_GO"
PER_GPU = "GPU Per Hour"
REGION = "global"  # one list price for every region
# Parts sold per GPU-hour in these categories are GPUs to rent (the shape table names them)
RENTED = ("Compute - GPU",)
# ... except these, which are sold per GPU-hour but rent no GPU
NOT_A_GPU = ("NVIDIA AI Enterprise", "Cloud@Customer", "VMware")

UNKNOWN_PART = Reason("GPU parts not in pricing/data/oci_shapes.csv skipped")
NO_PRICE = Reason("parts without a positive USD pay-as-you-go price skipped", each=True)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shape:
    """What a price list part rents (the table's `source` column says how that is known)."""

    accelerator: str
    name: str
    gpus: int


def shapes() -> dict[str, Shape]:
    """The part numbers the adapter prices, each as the shape it rents."""
    return {
        row["part_number"]: Shape(row["accelerator"], row["shape"], int(row["gpus"]))
        for row in read_table(SHAPES)
    }


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [UNKNOWN_PART, NO_PRICE])


def parse_products(
    payload: Any, known: Mapping[str, Shape], skipped: SkipReport
) -> tuple[str, list[Offer]]:
    """(the day the list was last updated, an offer per shape the list prices)."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("items"), list):
        raise AdapterError("the price list has no 'items' list")
    day = _day(payload.get("lastUpdated"))
    offers = []
    for item in payload["items"]:
        if not isinstance(item, Mapping):
            raise AdapterError(f"a price list item is not an object: {item!r}")
        part = str(item.get("partNumber") or "")
        name = str(item.get("displayName") or part)
        shape = known.get(part)
        if shape is None:
            if _rents_a_gpu(item):
                skipped.add(UNKNOWN_PART, part, f"{part} {name}")
            continue
        if item.get("metricName") != PER_GPU:
            raise AdapterError(
                f"{part} ({name}): metric {item.get('metricName')!r}, not GPU Per Hour"
            )
        rate = _usd_rate(item)
        if rate is None:
            skipped.add(NO_PRICE, part, f"{part} {name}")
            continue
        offers.append(_offer(part, name, shape, rate, day))
    return day, offers


def _rents_a_gpu(item: Mapping[str, Any]) -> bool:
    name, category = str(item.get("displayName") or ""), str(item.get("serviceCategory") or "")
    return (
        item.get("metricName") == PER_GPU
        and category.startswith(RENTED)
        and not any(word in name or word in category for word in NOT_A_GPU)
    )


def _usd_rate(item: Mapping[str, Any]) -> Decimal | None:
    for localized in item.get("currencyCodeLocalizations") or []:
        if not isinstance(localized, Mapping) or localized.get("currencyCode") != CURRENCY:
            continue
        for price in localized.get("prices") or []:
            if isinstance(price, Mapping) and price.get("model") == MODEL:
                return listed_price(price.get("value"))
    return None


def _day(value: Any) -> str:
    """The list's ``lastUpdated`` as a day, in UTC as the fetch's own day is: the date every
    price in it held."""
    if not isinstance(value, str):
        raise AdapterError(f"the price list's lastUpdated is {value!r}, not a time")
    try:
        when = datetime.fromisoformat(value)
    except ValueError as exc:
        raise AdapterError(f"the price list's lastUpdated {value!r} is not a time") from exc
    return (when.astimezone(UTC) if when.tzinfo else when).date().isoformat()


def _offer(part: str, name: str, shape: Shape, rate: Decimal, day: str) -> Offer:
    return Offer(
        provider=PROVIDER,
        service=SERVICE,
        product=shape.name,
        region=REGION,
        accelerator=shape.accelerator,
        count=shape.gpus,
        pricing=PricingModel.ON_DEMAND,
        usd_per_hour=float(rate * shape.gpus),
        price_as_of=day,
        source=f"{SOURCE}, lastUpdated {day}; partNumber {part} ({name})",
        confidence="high",
        notes=(
            f"{rate} USD per GPU-hour x {shape.gpus}, the GPUs of the bare-metal shape "
            f"{shape.name}; list prices are the same in every region"
        ),
    )


class OciAdapter(WebAdapter):
    """The public list, one document; no key needed, so never skipped."""

    name = PROVIDER
    config: WebConfig

    def resolved_shapes(self) -> dict[str, Shape]:
        """The shape table, each card resolved through the registry (a card it does not know
        is the table's error, named)."""
        known = {}
        for part, shape in shapes().items():
            accelerator = self._resolve(shape.accelerator)
            if accelerator is None:
                raise AdapterError(
                    f"{SHAPES}: {part}'s {shape.accelerator!r} is not in the registry"
                )
            known[part] = replace(shape, accelerator=accelerator)
        return known

    def fetch(self) -> Batch:
        skipped = skip_report()
        payload = get_json(
            self.session(),
            self.config.url,
            self.config.http.timeout_seconds,
            params={"currencyCode": CURRENCY},
        )
        day, offers = parse_products(payload, self.resolved_shapes(), skipped)
        if day > self.today():
            raise AdapterError(f"the price list says it was updated on {day}, in the future")
        if not offers:
            raise AdapterError("the price list priced none of the shapes in oci_shapes.csv")
        return Batch(offers, source_version=skipped.version(f"{SOURCE}, lastUpdated {day}"))
