"""Lambda Cloud: on-demand prices of every GPU instance type, from one authenticated GET.

``GET {url}/api/v1/instance-types`` (Bearer API key) answers ``{"data": {name: {...}}}``:
each instance type with its whole-instance price in US cents per hour and the regions that
have capacity for it right now. Lambda lists live capacity, not where a type is offered, so
a type with no capacity at fetch time still gets one offer, in region "us", noted as such.
Lambda sells no spot. GPUs are named only in free text ("8x H100 (80 GB SXM5)"), read here
with a tolerant pattern and resolved through the hardware registry's aliases; a GPU the
registry does not know is reported, never guessed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import requests

from pricing.adapters.kit import HttpConfig, KeyedAdapter, Reason, SkipReport
from pricing.errors import AdapterError
from pricing.http import get_json
from pricing.offer import Offer, PricingModel

PROVIDER = "lambda"
SERVICE = "Lambda Cloud"
SOURCE = "Lambda Cloud API /api/v1/instance-types"
PATH = "/api/v1/instance-types"
NO_CAPACITY_REGION = "us"
NO_CAPACITY_NOTE = "no capacity listed at fetch time"
# Instance types whose GPU the registry does not know; the run record shows the GPU text.
UNKNOWN_GPU = Reason("instance types with GPUs not in the hardware registry skipped")

log = logging.getLogger(__name__)

# "8x H100 (80 GB SXM5)", "1x A10 (24 GB PCIe)", "8x Tesla V100 (16 GB)"; gpu_description
# carries the same text without the count ("H100 (80 GB SXM5)").
_GPU = re.compile(
    r"^\s*(?:(?P<count>\d+)\s*x\s+)?(?:Tesla\s+)?(?P<gpu>.+?)\s*"
    r"\(\s*(?P<memory>\d+)\s*Gi?B(?:\s+(?P<form>[\w ]+?))?\s*\)",
    re.IGNORECASE,
)
_CENTS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class LambdaConfig:
    url: str
    api_key: str | None
    http: HttpConfig = field(default_factory=HttpConfig)


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [UNKNOWN_GPU])


@dataclass(frozen=True)
class GpuText:
    """What a description says about the GPUs: count (if stated), model, memory, form."""

    count: int | None
    gpu: str
    memory_gb: int
    form: str

    def candidates(self) -> list[str]:
        """Spellings to try, most specific first; the registry's aliases decide."""
        names = []
        if self.form:
            names += [
                f"{self.gpu} {self.memory_gb}GB {self.form}",
                f"{self.gpu} ({self.memory_gb} GB {self.form})",
            ]
        names += [f"{self.gpu} {self.memory_gb}GB", f"{self.gpu} ({self.memory_gb} GB)", self.gpu]
        return names

    def __str__(self) -> str:
        form = f" {self.form}" if self.form else ""
        return f"{self.gpu} ({self.memory_gb} GB{form})"


def parse_gpu_text(text: str) -> GpuText | None:
    match = _GPU.match(text or "")
    if match is None:
        return None
    count = match.group("count")
    return GpuText(
        count=int(count) if count is not None else None,
        gpu=" ".join(match.group("gpu").split()),
        memory_gb=int(match.group("memory")),
        form=" ".join((match.group("form") or "").split()),
    )


def resolve_gpu(gpu: GpuText, resolve_accelerator: Callable[[str], str | None]) -> str | None:
    for name in gpu.candidates():
        found = resolve_accelerator(name)
        if found is not None:
            return found
    return None


def price_cents(value: Any, instance_type: str) -> int:
    """``price_cents_per_hour``: an int in the schema, a string of digits in Lambda's example."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and _CENTS.fullmatch(value.strip()):
        return int(value.strip())
    raise AdapterError(f"{instance_type}: bad price_cents_per_hour {value!r}")


def parse_instance_types(
    payload: Mapping[str, Any],
    resolve_accelerator: Callable[[str], str | None],
    price_as_of: str,
    skipped: SkipReport,
) -> list[Offer]:
    """Every priced GPU instance type, one offer per region with capacity (or one in "us")."""
    data = payload.get("data") if isinstance(payload, Mapping) else None
    if not isinstance(data, Mapping):
        raise AdapterError("instance-types answer has no 'data' object")
    if not data:  # Lambda lists every type it sells, with capacity or not
        raise AdapterError("instance-types answer lists no instance types")
    offers: list[Offer] = []
    for key, entry in data.items():
        offers += _parse_one(str(key), entry, resolve_accelerator, price_as_of, skipped)
    return offers


def _parse_one(
    key: str,
    entry: Any,
    resolve_accelerator: Callable[[str], str | None],
    price_as_of: str,
    skipped: SkipReport,
) -> list[Offer]:
    item = entry.get("instance_type") if isinstance(entry, Mapping) else None
    if not isinstance(item, Mapping):
        raise AdapterError(f"{key}: no 'instance_type' object")
    name = str(item.get("name") or key)
    specs = item.get("specs") or {}
    if not isinstance(specs, Mapping):
        raise AdapterError(f"{name}: 'specs' is not an object")
    gpus = specs.get("gpus")
    if gpus is not None and (isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 0):
        raise AdapterError(f"{name}: bad specs.gpus {gpus!r}")
    if gpus == 0:
        return []  # CPU-only
    described = parse_gpu_text(str(item.get("description") or ""))
    gpu = parse_gpu_text(str(item.get("gpu_description") or "")) or described
    if gpu is None:
        if gpus is not None:  # GPUs counted but not named: a new description format
            skipped.add(
                UNKNOWN_GPU, name, str(item.get("gpu_description") or item.get("description"))
            )
        return []  # else no GPU named and none counted: CPU-only
    count = gpus or (described.count if described else None) or gpu.count
    accelerator = resolve_gpu(gpu, resolve_accelerator) if count else None
    if accelerator is None:
        skipped.add(UNKNOWN_GPU, name, str(gpu))
        return []
    cents = price_cents(item.get("price_cents_per_hour"), name)
    if cents == 0:
        return []  # not a price
    usd = float(Decimal(cents) / 100)
    regions = entry.get("regions_with_capacity_available") or []
    if not isinstance(regions, list):
        raise AdapterError(f"{name}: 'regions_with_capacity_available' is not a list")
    names: list[str] = []
    for region in regions:
        region_name = region.get("name") if isinstance(region, Mapping) else None
        if not isinstance(region_name, str) or not region_name:
            raise AdapterError(f"{name}: region without a name: {region!r}")
        if region_name not in names:
            names.append(region_name)
    placed = [(r, "") for r in names] or [(NO_CAPACITY_REGION, NO_CAPACITY_NOTE)]
    return [
        Offer(
            provider=PROVIDER,
            service=SERVICE,
            product=name,
            region=region_name,
            accelerator=accelerator,
            count=count,
            pricing=PricingModel.ON_DEMAND,
            usd_per_hour=usd,
            price_as_of=price_as_of,
            source=SOURCE,
            confidence="high",
            notes=notes,
        )
        for region_name, notes in placed
    ]


class LambdaAdapter(KeyedAdapter):
    name = PROVIDER
    key_setting = "BREAKEVEN_LAMBDA_API_KEY"
    source = SOURCE
    parse = staticmethod(parse_instance_types)
    skips = staticmethod(skip_report)

    def request(self, http: requests.Session) -> Any:
        url = self.config.url.rstrip("/") + PATH
        headers = {"Authorization": f"Bearer {self.config.api_key}", "Accept": "application/json"}
        return get_json(
            http,
            url,
            self.config.http.timeout_seconds,
            headers=headers,
            refused="the API key was refused (BREAKEVEN_LAMBDA_API_KEY)",
        )
