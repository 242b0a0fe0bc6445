"""Cloud Billing Catalog SKUs -> a price book of GPU, core, RAM and TPU hourly prices.

Google prices a GPU machine as separate SKUs (GPU, vCPU core, GiB of RAM) joined only by
their description text, and TPUs per device or per chip depending on the generation. This
module reads SKUs in their JSON wire form (camelCase, ``units`` as an int64 string plus
``nanos``), keeps OnDemand, Preemptible/Spot and the resource-based commitments (Commit1Yr,
Commit3Yr: "Commitment v1: Nvidia L4 GPU in Americas for 1 Year", "... A2 Cpu ...", "... A2
Ram ..."), and files each price under what it prices and its tier. A commitment's SKU prices
one committed GPU, vCPU or GiB an hour, billed monthly over the term with nothing upfront,
so a machine's committed price is its parts' committed prices, as on demand. Anything
non-USD is rejected; an accelerator it cannot name is reported, not guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pricing.adapters.kit import Reason, SkipReport
from pricing.offer import PricingModel

COMPUTE_ENGINE = "services/6F81-5844-456A"
CLOUD_TPU = "services/E000-3F24-B8AA"

# usage type -> the tier it prices (a Preemptible SKU is spot)
USAGE_TYPES = {
    "OnDemand": PricingModel.ON_DEMAND,
    "Preemptible": PricingModel.SPOT,
    "Commit1Yr": PricingModel.RESERVED_1Y,
    "Commit3Yr": PricingModel.RESERVED_3Y,
}
# SKUs for sole tenancy, reservations, licences or special markets.
_SKIP_WORDS = ("Sole Tenancy", "Reserved", "Reservation", "Premium", "Custom",
               "Virtual Workstation", "DWS", "Flex", "Calendar", "suspended")  # fmt: skip
# "Commitment v1: <what> in <region group> for 1 Year" (also "for 3 Years"): <what> is named
# as on demand, its host parts as "<family> Cpu" and "<family> Ram".
_COMMITMENT = re.compile(
    r"^Commitment(?: v\d+)?:\s*(?P<what>.+?)(?: running)?(?: in .+?)? for \d+ Years?$"
)
_COMMITTED_HOST = re.compile(r"^(?P<family>[A-Z]\d\w*) (?P<part>Cpu|Ram)$")
_GPU = re.compile(r"^(?:Spot Preemptible )?Nvidia (?:Tesla )?(?P<gpu>.+?) GPU\b", re.I)
_HOST = re.compile(
    r"^(?:Spot Preemptible )?(?P<family>[A-Z]\d\w*(?: Predefined)?) Instance (?P<part>Core|Ram)\b"
)
_TPU = re.compile(r"\btpu[\s_-]*v?(?P<gen>\d+)\s*(?P<variant>lite|[a-z])?\b", re.I)
# Descriptions we could not name, and SKUs refused: reported, never priced.
UNKNOWN = Reason("unknown accelerator SKUs skipped", shown=False)
REJECTED = Reason("non-USD or malformed SKUs rejected", each=True, shown=False)


Key = tuple[str, str, PricingModel]  # what it prices, region, tier


class NonUsdPrice(ValueError):
    pass


def usd_per_hour(sku: Mapping[str, Any]) -> float:
    """The first tier's unit price, exactly: units (an int64 string) + nanos / 1e9."""
    info = sku["pricingInfo"][0]
    rate = info["pricingExpression"]["tieredRates"][-1]["unitPrice"]
    if rate.get("currencyCode") != "USD" or float(info.get("currencyConversionRate", 1)) != 1:
        raise NonUsdPrice(f"SKU {sku.get('skuId')} is priced in {rate.get('currencyCode')}")
    return float(Decimal(str(rate.get("units", "0"))) + Decimal(rate.get("nanos", 0)) / 10**9)


@dataclass
class PriceBook:
    """Hourly USD prices keyed by (what, region, tier); each value carries its SKU id."""

    gpu: dict[Key, tuple[float, str]] = field(default_factory=dict)
    core: dict[Key, tuple[float, str]] = field(default_factory=dict)
    ram: dict[Key, tuple[float, str]] = field(default_factory=dict)
    tpu: dict[Key, tuple[float, str]] = field(default_factory=dict)

    def read(self, skus: Iterable[Mapping[str, Any]], skipped: SkipReport) -> int:
        """File every SKU; returns how many were read, priced or not."""
        count = 0
        for sku in skus:
            self._read_one(sku, skipped)
            count += 1
        return count

    def _read_one(self, sku: Mapping[str, Any], skipped: SkipReport) -> None:
        category = sku.get("category", {})
        description = sku.get("description", "")
        usage = category.get("usageType", "")
        if usage not in USAGE_TYPES or any(word in description for word in _SKIP_WORDS):
            return
        tier = USAGE_TYPES[usage]
        if tier == PricingModel.ON_DEMAND and (
            "Preemptible" in description or "Spot" in description
        ):
            tier = PricingModel.SPOT
        committed = _COMMITMENT.match(description)
        if (tier in (PricingModel.RESERVED_1Y, PricingModel.RESERVED_3Y)) != (
            committed is not None
        ):
            return  # a commitment SKU named otherwise, or a "Commitment" one billed otherwise
        if committed is not None:
            description = _as_on_demand(committed["what"])
        try:
            # Checked on every SKU, used or not: one non-USD price means the answer is not
            # the USD catalog that was asked for, and it must never be stored unconverted.
            price = usd_per_hour(sku)
        except NonUsdPrice as exc:
            skipped.add(REJECTED, str(exc))
            return
        except (KeyError, IndexError, ValueError, ArithmeticError) as exc:
            skipped.add(REJECTED, f"SKU {sku.get('skuId')}: malformed price ({exc})")
            return
        target = self._classify(category.get("resourceGroup", ""), description, skipped)
        if target is None or price <= 0:
            return
        table, key = target
        for region in sku.get("serviceRegions", []):
            table[(key, region, tier)] = (price, sku.get("skuId", ""))

    def _classify(
        self, group: str, description: str, skipped: SkipReport
    ) -> tuple[dict[Key, tuple[float, str]], str] | None:
        if group == "GPU":
            match = _GPU.match(description)
            if match is None:
                skipped.add(UNKNOWN, description)
                return None
            return self.gpu, match["gpu"]
        if group == "TPU" or "tpu" in description.lower():
            match = _TPU.search(description)
            if match is None:
                skipped.add(UNKNOWN, description)
                return None
            variant = (match["variant"] or "").lower()
            version = f"v{match['gen']}{'e' if variant == 'lite' else variant}"
            if "pod" in description.lower() and version in ("v2", "v3"):
                return None  # v2/v3 pods are priced apart; the device is what one rents
            return self.tpu, version
        match = _HOST.match(description)
        if match is None:
            return None  # storage, network, other machine families: not our business
        table = self.core if match["part"] == "Core" else self.ram
        return table, match["family"]


def _as_on_demand(what: str) -> str:
    """A commitment's <what> as the on-demand SKU names it, so one classifier files both:
    "A2 Cpu" -> "A2 Instance Core", "Nvidia L4 GPU" stays."""
    host = _COMMITTED_HOST.match(what)
    if host is None:
        return what
    return f"{host['family']} Instance {'Core' if host['part'] == 'Cpu' else 'Ram'}"
