"""Vast.ai: the cheapest live ask per GPU, count, host tier and country, from one offer search.

``POST {url}`` (Bearer API key; default ``https://console.vast.ai/api/v0/bundles/``) with a
JSON query answers ``{"offers": [...]}``: every machine a host has listed right now, each with
its whole-offer price. Vast lists thousands of machines whose ids come and go by the minute,
while the catalog wants rows that stay put between runs, so offers are grouped by (GPU, GPU
count, host tier, country) and each group is priced at its cheapest ask: on demand at
``dph_total``, interruptible at ``min_bid`` (the current bid floor). Verified and unverified
hosts are both asked for and kept apart (``market``), with the chosen machine's reliability
score. GPU names resolve through the hardware registry's aliases (a Vast A100 names its form,
not its memory: ``gpu_ram`` tells 40 GB from 80 GB); a GPU the registry does not know is
reported, never guessed. One bad offer is skipped and counted, never fatal: it is one host's
listing, not the marketplace.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import requests

from pricing.adapters.kit import HttpConfig, KeyedAdapter, Reason, SkipReport
from pricing.errors import AdapterError
from pricing.http import post_json
from pricing.offer import Offer, PricingModel

PROVIDER = "vast"
SERVICE = "Vast.ai"
SOURCE = "Vast.ai API /api/v0/bundles/"
REFUSED = "the API key was refused (BREAKEVEN_VAST_API_KEY)"
# Offers asked for in one search, cheapest first. Vast has no paging: ``limit`` caps the
# answer (gpuhunt asks for 3000), and every row counts against a daily search-row quota, so
# this is one generous page; an answer that fills it is reported (the dearest are missing).
LIMIT = 5000
# The disk (GB) Vast prices into dph_total: the CLI's default allocation, sent explicitly so
# the notes can say what the price includes whatever the server's default is.
STORAGE_GB = 5.0
UNKNOWN_REGION = "unknown"

# GPU names the registry does not know; the run record shows the name and memory.
UNKNOWN_GPU = Reason("GPU names not in the hardware registry skipped")
BAD_OFFER = Reason("offers with a bad GPU name, GPU count or price skipped", each=True)
BAD_BID = Reason("offers with a bad min_bid priced on demand only", each=True)
# The query asks for offers not rented, but Vast's docs say the server drops that filter.
RENTED = Reason("offers already rented left out", each=True, shown=False)
TRUNCATED = Reason("answer cut short at the offer limit: the dearest offers are missing")

log = logging.getLogger(__name__)

_COUNTRY = re.compile(r"[A-Za-z]{2}")
_FORM = re.compile(r"^(?P<model>.+?)\s+(?P<form>SXM\d*|PCIE|NVL)$", re.IGNORECASE)
_GLUED = re.compile(r"(?<=\d)(?=[A-Za-z])")  # "RTX 6000Ada" -> "RTX 6000 Ada"
_SPACED = re.compile(r"(?<=\d) (?=(?:Ada|Ti)\b)")  # "RTX 6000 Ada" -> "RTX 6000Ada"


@dataclass(frozen=True)
class VastConfig:
    url: str  # the offer search endpoint itself (settings: vast_url)
    api_key: str | None
    http: HttpConfig = field(default_factory=HttpConfig)


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [UNKNOWN_GPU, BAD_OFFER, BAD_BID, RENTED, TRUNCATED])


def search_query(limit: int = LIMIT) -> dict[str, Any]:
    """The search body: every rentable on-demand offer, verified hosts or not, cheapest first."""
    return {
        "rentable": {"eq": True},
        "rented": {"eq": False},
        "type": "on-demand",
        "allocated_storage": STORAGE_GB,
        "order": [["dph_total", "asc"]],
        "limit": limit,
    }


def region_of(geolocation: Any) -> str:
    """The host's country code, lower-case: "Texas, US" -> "us"; anything else "unknown"."""
    if not isinstance(geolocation, str):
        return UNKNOWN_REGION
    country = geolocation.rsplit(",", 1)[-1].strip()
    if "," not in geolocation or not _COUNTRY.fullmatch(country):
        return UNKNOWN_REGION  # a bare country ("Norway", older rows) names no code
    return country.lower()


def gpu_spellings(gpu_name: str) -> list[str]:
    """Vast's name, then with the space before "Ada"/"Ti" added or removed."""
    name = " ".join(gpu_name.split())
    return _unique([name, _GLUED.sub(" ", name), _SPACED.sub("", name)])


def resolve_gpu(
    gpu_name: str, memory_gib: int | None, resolve_accelerator: Callable[[str], str | None]
) -> tuple[str, str] | None:
    """(accelerator id, label) for a Vast GPU, or None when the registry does not know it.

    Spellings with the memory come first, as the registry keys variants by memory ("A100
    SXM4" is 40 or 80 GB; a bare "Tesla V100" is the 16 GB card). The label is Vast's name,
    with the memory added only when the name alone would not have picked this accelerator.
    """
    names = gpu_spellings(gpu_name)
    by_name = _first(names, resolve_accelerator)
    if memory_gib:
        qualified: list[str] = []
        for name in names:
            qualified += [f"{name} {memory_gib}GB", f"{name} ({memory_gib} GB)"]
            form = _FORM.match(name)
            if form:
                model, kind = form.group("model"), form.group("form")
                qualified += [f"{model} {memory_gib}GB {kind}", f"{model} ({memory_gib} GB {kind})"]
        by_memory = _first(qualified, resolve_accelerator)
        if by_memory is not None:
            label = names[0] if by_memory == by_name else f"{names[0]} {memory_gib}GB"
            return by_memory, label
    return (by_name, names[0]) if by_name is not None else None


@dataclass(frozen=True)
class _Ask:
    """One offer that passed the checks: what it is and what it asks."""

    key: tuple[str, int, str, str]  # accelerator, num_gpus, market, region
    label: str
    order: str  # tie-break between equal prices: the offer id, so a run is repeatable
    on_demand: float
    bid: float | None
    machine: str
    memory_gb: float | None
    reliability: float | None


def parse_offers(
    payload: Mapping[str, Any],
    resolve_accelerator: Callable[[str], str | None],
    price_as_of: str,
    skipped: SkipReport,
    limit: int = LIMIT,
) -> list[Offer]:
    """The cheapest on-demand and interruptible ask of each (GPU, count, tier, country)."""
    listed = payload.get("offers") if isinstance(payload, Mapping) else None
    if not isinstance(listed, list):
        raise AdapterError("offer search answer has no 'offers' list")
    if not listed:  # the marketplace always has machines for rent
        raise AdapterError("offer search answer lists no offers")
    if payload.get("truncated") is True or len(listed) >= limit:
        skipped.add(TRUNCATED, "answer")
    groups: dict[tuple[str, int, str, str], list[_Ask]] = {}
    for index, entry in enumerate(listed):
        ask = _ask(index, entry, resolve_accelerator, skipped)
        if ask is not None:
            groups.setdefault(ask.key, []).append(ask)
    offers: list[Offer] = []
    for key in sorted(groups):
        asks = groups[key]
        label = min(a.label for a in asks)
        cheapest = min(asks, key=lambda a: (a.on_demand, a.order))
        offers.append(_offer(key, label, cheapest, PricingModel.ON_DEMAND, len(asks), price_as_of))
        bids = [a for a in asks if a.bid is not None]
        if bids:
            lowest = min(bids, key=lambda a: (a.bid or 0.0, a.order))
            offers.append(_offer(key, label, lowest, PricingModel.SPOT, len(bids), price_as_of))
    return offers


def _ask(
    index: int,
    entry: Any,
    resolve_accelerator: Callable[[str], str | None],
    skipped: SkipReport,
) -> _Ask | None:
    if not isinstance(entry, Mapping):
        skipped.add(BAD_OFFER, f"#{index}", f"#{index}: not an object")
        return None
    offer_id = entry.get("id", entry.get("ask_contract_id"))
    name = str(offer_id) if offer_id is not None else f"#{index}"
    if entry.get("rented") is True:
        skipped.add(RENTED, name)
        return None
    gpu_name, gpus = entry.get("gpu_name"), entry.get("num_gpus")
    if not isinstance(gpu_name, str) or not gpu_name.strip():
        skipped.add(BAD_OFFER, name, f"{name}: gpu_name {gpu_name!r}")
        return None
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus <= 0:
        skipped.add(BAD_OFFER, name, f"{name}: num_gpus {gpus!r}")
        return None
    price = _positive(entry.get("dph_total"))
    if price is None:
        skipped.add(BAD_OFFER, name, f"{name}: dph_total {entry.get('dph_total')!r}")
        return None
    ram_mb = _positive(entry.get("gpu_ram"))  # per GPU, MB (MiB in practice)
    memory_gib = round(ram_mb / 1024) if ram_mb is not None else None
    resolved = resolve_gpu(gpu_name, memory_gib, resolve_accelerator)
    if resolved is None:
        label = " ".join(gpu_name.split()) + (f" ({memory_gib} GB)" if memory_gib else "")
        skipped.add(UNKNOWN_GPU, label)
        return None
    accelerator, gpu_label = resolved
    min_bid = entry.get("min_bid")
    bid = _positive(min_bid)
    if bid is None and min_bid not in (None, 0):  # 0 or absent: no interruptible price
        skipped.add(BAD_BID, name, f"{name}: min_bid {min_bid!r}")
    market = "verified" if entry.get("verification") == "verified" else "unverified"
    machine = entry.get("machine_id")
    return _Ask(
        key=(accelerator, gpus, market, region_of(entry.get("geolocation"))),
        label=gpu_label,
        order=name,
        on_demand=price,
        bid=bid,
        machine=str(machine) if machine is not None else "",
        memory_gb=round(ram_mb / 1024, 1) if ram_mb is not None else None,
        reliability=_unit(entry.get("reliability2"), entry.get("reliability")),
    )


def _offer(
    key: tuple[str, int, str, str],
    label: str,
    ask: _Ask,
    pricing: PricingModel,
    seen: int,
    price_as_of: str,
) -> Offer:
    accelerator, gpus, market, region = key
    notes = [f"cheapest of {seen} offer{'s' if seen != 1 else ''}"]
    if ask.machine:
        notes.append(f"machine {ask.machine}")
    if pricing == PricingModel.SPOT and ask.bid is not None:
        price = ask.bid
        notes.append("min_bid: the current bid floor, outbid instances stop; storage extra")
    else:
        price = ask.on_demand
        notes.append(f"dph_total: includes {STORAGE_GB:g} GB of storage")
    return Offer(
        provider=PROVIDER,
        service=SERVICE,
        product=f"{gpus}x {label} ({market})",
        region=region,
        accelerator=accelerator,
        count=gpus,
        pricing=pricing,
        usd_per_hour=price,
        price_as_of=price_as_of,
        source=SOURCE,
        memory_gb=ask.memory_gb,
        confidence="medium",  # one host's point-in-time ask, gone when someone rents it
        notes="; ".join(notes),
        market=market,
        reliability=ask.reliability,
        interruption="",  # Vast publishes no interruption rate
    )


def _positive(value: Any) -> float | None:
    """A positive finite number, else None (bools, strings and NaN are no price)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number > 0 else None


def _unit(*values: Any) -> float | None:
    """The first value that is a number from 0 to 1."""
    for value in values:
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
            return float(value)
    return None


def _first(names: list[str], resolve_accelerator: Callable[[str], str | None]) -> str | None:
    for name in names:
        found = resolve_accelerator(name)
        if found is not None:
            return found
    return None


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


class VastAdapter(KeyedAdapter):
    name = PROVIDER
    key_setting = "BREAKEVEN_VAST_API_KEY"
    source = SOURCE
    parse = staticmethod(parse_offers)
    skips = staticmethod(skip_report)

    def request(self, http: requests.Session) -> Any:
        headers = {"Authorization": f"Bearer {self.config.api_key}", "Accept": "application/json"}
        return post_json(
            http,
            self.config.url,
            self.config.http.timeout_seconds,
            search_query(),
            headers,
            refused=REFUSED,
            explain=_key_refused,
        )


def _key_refused(status: int, document: Any) -> str | None:
    """Vast answers a bad key with 404 {"error": ..., "msg": "Invalid user key"} (its OpenAPI
    spec) as well as 401/403: a 404 blaming the key says so; any other 404 is a wrong URL."""
    if status != 404 or not isinstance(document, Mapping):
        return None
    text = f"{document.get('error', '')} {document.get('msg', '')}"
    return REFUSED if "key" in text.lower() else None
