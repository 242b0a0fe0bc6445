"""RunPod: per-GPU pod prices of every GPU type, Secure and Community Cloud, from one query.

``POST {url}`` (Bearer API key) with a GraphQL ``gpuTypes`` query answers
``{"data": {"gpuTypes": [...]}}``: every GPU type RunPod rents, each with USD per GPU-hour
on-demand (``securePrice``, ``communityPrice``) and interruptible (``secureSpotPrice``,
``communitySpotPrice``) for its two markets, Secure Cloud (RunPod's vetted data centres) and
Community Cloud (individual hosts). A pod's price scales with its GPUs, so each priced tier
becomes offers of 1, 2, 4 and 8 GPUs up to ``maxGpuCount``. The query names no data centre:
prices are RunPod-wide, region "global", the data centre chosen when the pod is deployed.

A tier RunPod flags as not offered, or prices at null or 0, has no offers. A malformed price
is reported and skipped, not fatal: one bad number must not cost every other GPU's price.
GPUs resolve through the hardware registry by ``id`` ("NVIDIA GeForce RTX 3090"), then
``displayName`` ("RTX 3090", which RunPod has renamed over time); a GPU the registry does not
know is reported, never guessed. RunPod publishes no interruption rate for its spot pods.

pricing/http.py has only GET helpers; the POST with the same error handling is here.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import requests

from pricing.adapters.kit import HttpConfig, KeyedAdapter, Reason, SkipReport
from pricing.errors import AdapterError
from pricing.http import post_json
from pricing.offer import Offer, PricingModel

PROVIDER = "runpod"
SERVICE = "RunPod"
SOURCE = "RunPod GraphQL API gpuTypes"
REGION = "global"
REGION_NOTE = "data centre chosen at deploy"
REFUSED = "the API key was refused (BREAKEVEN_RUNPOD_API_KEY)"
COUNTS = (1, 2, 4, 8)  # pod sizes offered, up to the type's maxGpuCount
QUERY = (
    "query GpuTypes { gpuTypes { id displayName memoryInGb maxGpuCount secureCloud "
    "communityCloud securePrice communityPrice secureSpotPrice communitySpotPrice "
    "lowestPrice(input: {gpuCount: 1}) { stockStatus } } }"
)
# (market, availability flag, price field, pricing model), in the order offers are emitted.
TIERS = (
    ("secure", "secureCloud", "securePrice", PricingModel.ON_DEMAND),
    ("community", "communityCloud", "communityPrice", PricingModel.ON_DEMAND),
    ("secure", "secureCloud", "secureSpotPrice", PricingModel.SPOT),
    ("community", "communityCloud", "communitySpotPrice", PricingModel.SPOT),
)
# GPU types whose GPU the registry does not know; the run record shows the display name.
UNKNOWN_GPU = Reason("GPU types not in the hardware registry skipped")
# Prices that are no price (negative, text, true/false, NaN); each one counts.
BAD_PRICE = Reason("malformed prices skipped", each=True)

log = logging.getLogger(__name__)

_REFUSAL = re.compile(r"\b(unauthori[sz]ed|forbidden)\b", re.IGNORECASE)
_MESSAGE_CHARS = 200  # a provider's error message, cut to this in ours


@dataclass(frozen=True)
class RunPodConfig:
    url: str  # the GraphQL endpoint (settings: runpod_url)
    api_key: str | None = None
    http: HttpConfig = field(default_factory=HttpConfig)


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [UNKNOWN_GPU, BAD_PRICE])


class BadPrice(ValueError):
    """A price field holding something that is not a price."""


def per_gpu_price(value: Any) -> Decimal | None:
    """A price field as USD per GPU-hour; None when the tier is unpriced (null, 0, missing).

    GraphQL sends a Float; a numeric string is read too. Anything else raises BadPrice.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise BadPrice(repr(value))
    try:
        price = Decimal(str(value).strip())
    except InvalidOperation:
        raise BadPrice(repr(value)) from None
    if not price.is_finite() or price < 0:
        raise BadPrice(repr(value))
    return price if price > 0 else None


def pod_counts(max_gpu_count: Any) -> list[int]:
    """The GPU counts to offer: 1, 2, 4, 8 up to ``maxGpuCount``; 1 alone when it is unusable."""
    if isinstance(max_gpu_count, bool) or not isinstance(max_gpu_count, int) or max_gpu_count < 1:
        return [1]
    return [count for count in COUNTS if count <= max_gpu_count]


def memory_gb(value: Any) -> float | None:
    """Per-GPU memory from ``memoryInGb`` when a positive number; else None (the registry's)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def resolve_gpu(entry: Mapping[str, Any], resolve: Callable[[str], str | None]) -> str | None:
    """The registry id of a GPU type: by ``id`` first (stable), then ``displayName``."""
    for key in ("id", "displayName"):
        name = entry.get(key)
        if isinstance(name, str) and name.strip():
            found = resolve(name)
            if found is not None:
                return found
    return None


def parse_gpu_types(
    payload: Any,
    resolve_accelerator: Callable[[str], str | None],
    price_as_of: str,
    skipped: SkipReport,
) -> list[Offer]:
    """Every priced tier of every known GPU type, as offers of 1, 2, 4, 8 GPUs."""
    if not isinstance(payload, Mapping):
        raise AdapterError("gpuTypes answer is not a JSON object")
    errors = payload.get("errors")
    if errors:
        raise AdapterError(f"RunPod answered an error: {first_error(errors)}")
    data = payload.get("data")
    types = data.get("gpuTypes") if isinstance(data, Mapping) else None
    if not isinstance(types, list):
        raise AdapterError("gpuTypes answer has no data.gpuTypes list")
    if not types:  # RunPod lists every GPU type it has, rentable now or not
        raise AdapterError("gpuTypes answer lists no GPU types")
    offers: list[Offer] = []
    for index, entry in enumerate(types):
        if not isinstance(entry, Mapping):
            raise AdapterError(f"gpuTypes[{index}] is not an object: {entry!r:.80}")
        offers += _parse_one(entry, resolve_accelerator, price_as_of, skipped)
    return offers


def first_error(errors: Any) -> str:
    """The first GraphQL error's message, or the errors as text when they have none."""
    first = errors[0] if isinstance(errors, list) and errors else errors
    message = first.get("message") if isinstance(first, Mapping) else None
    text = str(message if isinstance(message, str) and message else first)[:_MESSAGE_CHARS]
    return f"{text} ({REFUSED})" if _REFUSAL.search(text) else text


def _parse_one(
    entry: Mapping[str, Any],
    resolve_accelerator: Callable[[str], str | None],
    price_as_of: str,
    skipped: SkipReport,
) -> list[Offer]:
    gpu_id = str(entry.get("id") or "")
    display = str(entry.get("displayName") or gpu_id or "(unnamed)")
    name = gpu_id or display
    priced: list[tuple[str, PricingModel, Decimal]] = []
    for market, flag, price_field, pricing in TIERS:
        if entry.get(flag) is False:
            continue  # RunPod does not offer this tier, whatever a price says
        try:
            price = per_gpu_price(entry.get(price_field))
        except BadPrice as bad:
            skipped.add(BAD_PRICE, f"{name} {price_field}", f"{display} {price_field}={bad}")
            continue
        if price is not None:
            priced.append((market, pricing, price))
    if not priced:
        return []  # listed but not rentable: nothing lost
    accelerator = resolve_gpu(entry, resolve_accelerator)
    if accelerator is None:
        skipped.add(UNKNOWN_GPU, name, display)
        return []
    notes = REGION_NOTE
    lowest = entry.get("lowestPrice")
    stock = lowest.get("stockStatus") if isinstance(lowest, Mapping) else None
    if isinstance(stock, str) and stock.strip():
        notes += f"; stock: {stock.strip()}"
    memory = memory_gb(entry.get("memoryInGb"))
    return [
        Offer(
            provider=PROVIDER,
            service=SERVICE,
            product=f"{count}x {display} ({market})",
            region=REGION,
            accelerator=accelerator,
            count=count,
            pricing=pricing,
            usd_per_hour=float(price * count),
            price_as_of=price_as_of,
            source=SOURCE,
            memory_gb=memory,
            confidence="high",
            notes=notes,
            market=market,
            interruption="",  # RunPod publishes no interruption rate
        )
        for market, pricing, price in priced
        for count in pod_counts(entry.get("maxGpuCount"))
    ]


class RunPodAdapter(KeyedAdapter):
    name = PROVIDER
    key_setting = "BREAKEVEN_RUNPOD_API_KEY"
    source = SOURCE
    parse = staticmethod(parse_gpu_types)
    skips = staticmethod(skip_report)

    def request(self, http: requests.Session) -> Any:
        headers = {
            "Authorization": f"Bearer {self.config.api_key}",
            "Accept": "application/json",
            "Content-Type": "application/json",
        }
        return post_json(
            http,
            self.config.url,
            self.config.http.timeout_seconds,
            {"query": QUERY},
            headers,
            refused=REFUSED,
            explain=_graphql_error,
        )


def _graphql_error(status: int, document: Any) -> str | None:
    """A failed answer's first GraphQL error message, if it carries one."""
    errors = document.get("errors") if isinstance(document, Mapping) else None
    return first_error(errors) if errors else None
