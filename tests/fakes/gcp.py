"""A local fake of the Cloud Billing Catalog and Compute Engine REST APIs.

SKUs are built in the wire shape of the verbatim sample (camelCase, ``units`` as a string,
``nanos``); pages follow ``pageToken``/``nextPageToken``; errors are Google's JSON error
documents. Tests point the adapter at it with BREAKEVEN_GCP_BILLING_ENDPOINT and
BREAKEVEN_GCP_COMPUTE_ENDPOINT.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from werkzeug import Request, Response

from tests.fakes.aws import SAMPLES
from tests.fakes.faults import Faults

API_KEY = "fake-api-key"
# Cloud TPU SKUs a third party captured from the live catalog on 2026-06-14 (samples/README.md):
# the source of the bundled TPU commitments, and a real-format payload for the parser.
TPU_CAPTURE = SAMPLES / "gcp_billing_catalog_skus_tpu_captured_2026-06-14.json"


def captured_tpu_skus() -> list[dict[str, Any]]:
    return json.loads(TPU_CAPTURE.read_text())["skus"]


def sku(
    description: str,
    usd: float,
    regions: list[str],
    usage: str = "OnDemand",
    group: str = "GPU",
    currency: str = "USD",
    unit: str = "h",
) -> dict[str, Any]:
    sample = json.loads(
        (SAMPLES / "gcp_billing_catalog_skus_compute_engine_verbatim.json").read_text()
    )
    item = copy.deepcopy(sample["skus"][0])
    sku_id = f"{abs(hash((description, usage, tuple(regions)))) % 10**12:012d}"
    sku_id = f"{sku_id[:4]}-{sku_id[4:8]}-{sku_id[8:]}"
    item.update({"name": f"services/6F81-5844-456A/skus/{sku_id}", "skuId": sku_id})
    item["description"] = description
    item["category"].update({"resourceGroup": group, "usageType": usage})
    item["serviceRegions"] = regions
    item["geoTaxonomy"] = {"type": "MULTI_REGIONAL", "regions": regions}
    price = Decimal(str(usd))
    units = int(price)
    rate = item["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]
    rate.update(
        {"currencyCode": currency, "units": str(units), "nanos": int((price - units) * 10**9)}
    )
    item["pricingInfo"][0]["pricingExpression"]["usageUnit"] = unit
    return item


def accelerator_zone(names_and_cards: dict[str, int]) -> dict[str, Any]:
    return {
        "acceleratorTypes": [
            {"kind": "compute#acceleratorType", "name": name, "maximumCardsPerInstance": cards}
            for name, cards in names_and_cards.items()
        ]
    }


@dataclass
class GcpFake:
    skus: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # service id -> SKUs
    zones: dict[str, dict[str, Any]] = field(default_factory=dict)  # "zones/x" -> scoped list
    page_size: int = 3
    throttle_first: int = 0
    fail_page: int | None = None  # 1-based page of the Compute Engine SKU list that errors
    faults: Faults = field(default_factory=Faults)  # on the Compute Engine SKU list
    requests: list[dict[str, Any]] = field(default_factory=list)

    def release(self) -> None:
        self.faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request(re.compile(r"^/v1/services/[^/]+/skus$")).respond_with_handler(
            self._skus
        )
        httpserver.expect_request(
            re.compile(r"^/compute/v1/projects/[^/]+/aggregated/acceleratorTypes$")
        ).respond_with_handler(self._accelerator_types)
        return httpserver.url_for("/").rstrip("/")

    def _error(self, code: int, status: str, message: str) -> Response:
        body = {"error": {"code": code, "message": message, "status": status}}
        return Response(json.dumps(body), status=code, content_type="application/json")

    def _guard(self, request: Request) -> Response | None:
        if request.headers.get("x-goog-api-key") != API_KEY:
            return self._error(403, "PERMISSION_DENIED", "API key not valid")
        if self.throttle_first > 0:
            self.throttle_first -= 1
            return self._error(429, "RESOURCE_EXHAUSTED", "Quota exceeded")
        return None

    def _skus(self, request: Request) -> Response:
        service = request.path.split("/")[3]
        self.requests.append({"api": "skus", "service": service, **request.args})
        refused = self._guard(request)
        if refused is not None:
            return refused
        if request.args.get("currencyCode") != "USD":
            return self._error(400, "INVALID_ARGUMENT", "currency_code must be set")
        start = int(request.args.get("pageToken") or 0)
        page = start // self.page_size + 1
        compute = service == "6F81-5844-456A"
        if self.fail_page == page and compute:
            return self._error(500, "INTERNAL", "backend error")
        faults = self.faults if compute else Faults()
        faults.stall()
        status = faults.error_status(page)
        if status is not None:
            name = {429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}.get(status, "INTERNAL")
            return self._error(status, name, f"fake HTTP {status}")
        items = self.skus.get(service, [])
        low, high, more = faults.window(len(items), self.page_size, page)
        body: dict[str, Any] = {"skus": items[low:high]} if high > low else {}
        if more:
            body["nextPageToken"] = str(page * self.page_size)
        text = faults.body(page, json.dumps(body))
        return Response(text, content_type="application/json")

    def _accelerator_types(self, request: Request) -> Response:
        self.requests.append({"api": "acceleratorTypes", **request.args})
        refused = self._guard(request)
        if refused is not None:
            return refused
        zones = sorted(self.zones.items())
        start = int(request.args.get("pageToken") or 0)
        body: dict[str, Any] = {
            "kind": "compute#acceleratorTypeAggregatedList",
            "items": dict(zones[start : start + 2]),
        }
        if start + 2 < len(zones):
            body["nextPageToken"] = str(start + 2)
        return Response(json.dumps(body), content_type="application/json")
