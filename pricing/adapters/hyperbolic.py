"""Hyperbolic: its GPU rental options on demand, from a public list that needs no account.

``GET {url}/v2/alpha/on-demand/rental-options`` answers a bare list of options: per option
whether it is offered (``enabled``), the whole option's price in cents an hour
(``costPerHourCents``), its ``region``, the GPUs (``gpuType`` such as ``h100``,
``gpuFormFactor`` such as ``sxm5``, ``gpuCount``), the machine (``machineType``:
``virtual-machine`` or ``bare-metal``) and how its nodes connect (``connectionType``:
``ethernet`` or ``infiniband``, an Ethernet one's ``ethernetVariant``: ``rocev2`` for RoCE).
The list also carries Hyperbolic's cost from its supplier (``providerCostPerHourCents``):
not a price anyone rents at, never read. An option not ``enabled``, or priced in anything
but positive whole cents, is skipped and reported; the same GPUs, machine and network in a
region offered twice is one offer at its lowest price.
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
from pricing.offer import Offer, PricingModel

PROVIDER = "hyperbolic"
SERVICE = "Hyperbolic GPU Marketplace"
PATH = "/v2/alpha/on-demand/rental-options"
SOURCE = f"Hyperbolic API {PATH}"
# (connectionType, ethernetVariant) -> the network named in the product, which
# hardware/data/instance_fabrics.csv reads to cluster the offer
NETWORKS = {("infiniband", ""): "InfiniBand", ("ethernet", "rocev2"): "RoCE", ("roce", ""): "RoCE"}

NOT_OFFERED = Reason("options not enabled skipped")
UNKNOWN_GPU = Reason("options with GPUs not in the hardware registry skipped")
NO_PRICE = Reason("prices that are not positive whole cents skipped", each=True)

log = logging.getLogger(__name__)


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [NOT_OFFERED, UNKNOWN_GPU, NO_PRICE])


def parse_options(
    options: Any,
    resolve_accelerator: Callable[[str], str | None],
    price_as_of: str,
    skipped: SkipReport,
) -> list[Offer]:
    """One on-demand offer per GPU, count, machine, network and region, at its lowest."""
    if not isinstance(options, list):
        raise AdapterError(f"the rental options are not a list: {type(options).__name__}")
    best: dict[tuple[str, str, str], Offer] = {}
    for option in options:
        if not isinstance(option, Mapping):
            raise AdapterError(f"a rental option is not an object: {option!r}")
        gpu = f"{_word(option.get('gpuType'))} {_word(option.get('gpuFormFactor'))}".strip()
        count = option.get("gpuCount")
        region = option.get("region")
        if option.get("enabled") is not True:  # not offered: whatever else it lacks
            skipped.add(NOT_OFFERED, f"{count} x {gpu or '?'} in {region}")
            continue
        if not gpu or isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise AdapterError(f"an option without its GPUs: {gpu!r} x {count!r}")
        if not isinstance(region, str) or not region:
            raise AdapterError(f"an option of {count} x {gpu} without a region")
        product = _product(option, gpu, count)
        accelerator = resolve_accelerator(gpu)
        if accelerator is None:
            skipped.add(UNKNOWN_GPU, gpu)
            continue
        cents = _whole_cents(option.get("costPerHourCents"))
        if cents is None:
            shown = option.get("costPerHourCents")
            skipped.add(NO_PRICE, f"{product} in {region} costPerHourCents={shown!r}")
            continue
        price = Decimal(cents) / 100
        offer = Offer(
            provider=PROVIDER,
            service=SERVICE,
            product=product,
            region=region,
            accelerator=accelerator,
            count=count,
            pricing=PricingModel.ON_DEMAND,
            usd_per_hour=float(price),
            price_as_of=price_as_of,
            source=SOURCE,
            confidence="high",
            notes=f"{cents} cents an hour for the whole option ({price / count} USD a GPU-hour)",
        )
        key = (product, region, accelerator)
        if key not in best or offer.usd_per_hour < best[key].usd_per_hour:
            best[key] = offer
    return [best[key] for key in sorted(best)]


def _word(value: Any) -> str:
    """A field the list spells as a lower-case word ("h100", "infiniband"), read so whatever
    its case: "H100" and "h100" in one region are one offer, "Infiniband" is InfiniBand."""
    return str(value).strip().lower() if isinstance(value, str) else ""


def _whole_cents(value: Any) -> int | None:
    """A price in positive whole cents (319, or 319.0) as the kit reads a listed price
    (finite, positive); None where it is anything else, text included."""
    cents = None if isinstance(value, str) else listed_price(value)
    return int(cents) if cents is not None and cents == cents.to_integral_value() else None


def _product(option: Mapping[str, Any], gpu: str, count: int) -> str:
    """The option as a product: "8x h100 sxm5 bare-metal, InfiniBand"."""
    machine = _word(option.get("machineType")) or "machine"
    link = (_word(option.get("connectionType")), _word(option.get("ethernetVariant")))
    network = NETWORKS.get(link) or NETWORKS.get((link[0], "")) or "Ethernet"
    return f"{count}x {gpu} {machine}, {network}"


class HyperbolicAdapter(WebAdapter):
    """The public list; no key needed, so never skipped."""

    name = PROVIDER
    config: WebConfig

    def fetch(self) -> Batch:
        url = self.config.url.rstrip("/") + PATH
        answer = get_json(self.session(), url, self.config.http.timeout_seconds)
        skipped = skip_report()
        offers = parse_options(answer, self._resolve, self.today(), skipped)
        if not offers:
            raise AdapterError("the rental options priced no GPU")
        return Batch(offers, source_version=skipped.version(SOURCE))
