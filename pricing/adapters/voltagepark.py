"""Voltage Park: bare-metal HGX prices per GPU-hour, from its public locations list.

``GET {url}/api/v1/bare-metal/locations`` needs no account and answers a paged envelope,
``{"results": [...], "has_next": bool, ...}``: per location, the node's GPUs
(``specs_per_node``: ``gpu_model`` such as ``h100-sxm5-80gb``, ``gpu_count``) and two prices a
GPU-hour as decimal strings, one on Ethernet (``gpu_price_ethernet``: rented a GPU at a time)
and one on 3,200 Gbps InfiniBand (``gpu_price_infiniband``: whole nodes that cluster). The
``gpu_count_*`` fields are what is free right now, not what is sold: a location with none
free still has its price (the run notes it). The same configuration in several locations is
one offer, at its lowest price, as Voltage Park does not name its locations in this list.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pricing.adapters import Batch
from pricing.adapters.kit import Reason, SkipReport, WebAdapter, WebConfig, listed_price
from pricing.errors import AdapterError
from pricing.http import get_json
from pricing.offer import Offer, PricingModel

PROVIDER = "voltagepark"
SERVICE = "Voltage Park"
SOURCE = "Voltage Park API /api/v1/bare-metal/locations"
PATH = "/api/v1/bare-metal/locations"
PAGE = 100  # locations asked per page
PAGES = 50  # a cap: an answer that never stops paging is an error, not a loop
REGION = "global"  # the list names no place
# (fabric in the product name, price field, free-GPU field, rented a GPU at a time: else
# whole nodes)
FABRICS = (
    ("Ethernet", "gpu_price_ethernet", "gpu_count_ethernet", True),
    ("InfiniBand", "gpu_price_infiniband", "gpu_count_infiniband", False),
)
UNKNOWN_GPU = Reason("locations with GPUs not in the hardware registry skipped")
NO_PRICE = Reason("prices that are not a positive number skipped", each=True)

log = logging.getLogger(__name__)


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [UNKNOWN_GPU, NO_PRICE])


def parse_locations(
    locations: list[Any],
    resolve_accelerator: Callable[[str], str | None],
    price_as_of: str,
    skipped: SkipReport,
) -> list[Offer]:
    """One offer per GPU model, fabric and GPUs rented, at its lowest price over the
    locations; a price that is not a positive decimal is skipped, never guessed."""
    best: dict[tuple[str, str, int], _Cheapest] = {}
    for location in locations:
        if not isinstance(location, Mapping):
            raise AdapterError(f"a location is not an object: {location!r}")
        specs = location.get("specs_per_node")
        model = specs.get("gpu_model") if isinstance(specs, Mapping) else None
        per_node = specs.get("gpu_count") if isinstance(specs, Mapping) else None
        if not isinstance(model, str) or not model:
            raise AdapterError(f"location {location.get('id')!r}: no specs_per_node.gpu_model")
        if isinstance(per_node, bool) or not isinstance(per_node, int) or per_node < 1:
            raise AdapterError(f"location {location.get('id')!r}: bad gpu_count {per_node!r}")
        accelerator = resolve_accelerator(model)
        if accelerator is None:
            skipped.add(UNKNOWN_GPU, model)
            continue
        for fabric, price_field, free_field, per_gpu in FABRICS:
            rate = listed_price(location.get(price_field))
            if rate is None:
                skipped.add(NO_PRICE, f"{model} {price_field}={location.get(price_field)!r}")
                continue
            free = location.get(free_field)
            free = free if isinstance(free, int) and not isinstance(free, bool) else 0
            key = (model, fabric, 1 if per_gpu else per_node)
            seen = best.get(key)
            if seen is None:
                best[key] = _Cheapest(accelerator, rate, 1, free)
            else:
                best[key] = _Cheapest(
                    accelerator, min(rate, seen.rate), seen.places + 1, seen.free + free
                )
    return [
        _offer(model, fabric, count, seen, price_as_of)
        for (model, fabric, count), seen in sorted(best.items())
    ]


@dataclass(frozen=True)
class _Cheapest:
    """One configuration at its cheapest over the locations read so far, and where it is
    sold."""

    accelerator: str
    rate: Decimal  # USD per GPU-hour, the lowest seen
    places: int  # locations that price it
    free: int  # GPUs free at fetch time, summed over them


def _offer(model: str, fabric: str, count: int, seen: _Cheapest, price_as_of: str) -> Offer:
    where = f"the lowest of {seen.places} locations" if seen.places > 1 else "one location"
    return Offer(
        provider=PROVIDER,
        service=SERVICE,
        product=f"{count}x {model}, {fabric}",
        region=REGION,
        accelerator=seen.accelerator,
        count=count,
        pricing=PricingModel.ON_DEMAND,
        usd_per_hour=float(seen.rate * count),
        price_as_of=price_as_of,
        source=SOURCE,
        confidence="high",
        notes=(
            f"{seen.rate} USD per GPU-hour x {count} on {fabric}; {where}; {seen.free} GPUs "
            "free at fetch time; the list names no region"
        ),
    )


class VoltageParkAdapter(WebAdapter):
    """The public list, page by page; no key needed, so never skipped."""

    name = PROVIDER
    config: WebConfig

    def fetch(self) -> Batch:
        skipped = skip_report()
        offers = parse_locations(self.locations(), self._resolve, self.today(), skipped)
        if not offers:
            raise AdapterError("the locations list priced no GPU")
        return Batch(offers, source_version=skipped.version(SOURCE))

    def locations(self) -> list[Any]:
        """Every page's ``results``, followed while ``has_next`` says there are more; the
        next page starts after what came (a server may hold a page to fewer than asked). A
        location seen twice counts once, and a page that brings none new while more are
        promised is an error: a server that ignores ``offset`` would otherwise be read as
        the same page fifty times."""
        http = self.session()
        url = self.config.url.rstrip("/") + PATH
        found: dict[str, Any] = {}
        for _ in range(PAGES):
            params = {"limit": str(PAGE), "offset": str(len(found))}
            answer = get_json(http, url, self.config.http.timeout_seconds, params=params)
            results = answer.get("results") if isinstance(answer, Mapping) else None
            if not isinstance(results, list):
                raise AdapterError(f"GET {url}: the answer has no 'results' list")
            more = answer.get("has_next")
            if not isinstance(more, bool):
                raise AdapterError(f"GET {url}: has_next is {more!r}, not true or false")
            before = len(found)
            for position, item in enumerate(results, start=before):
                found.setdefault(_location_id(item, position), item)
            if not more:
                return list(found.values())
            if len(found) == before:
                raise AdapterError(f"GET {url}: has_next, yet the page at {len(found)} is none new")
        raise AdapterError(f"GET {url}: still paging after {PAGES} pages")


def _location_id(item: Any, position: int) -> str:
    """A location's id; one without an id is known by where it came."""
    found = item.get("id") if isinstance(item, Mapping) else None
    return str(found) if found else f"#{position}"
