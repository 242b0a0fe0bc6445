"""A local fake of the Azure Retail Prices API (``GET /api/retail/prices``), in its wire format.

A page is ``{"BillingCurrency", "CustomerEntityId", "CustomerEntityType", "Items",
"NextPageLink", "Count"}`` as in the assembled sample; ``NextPageLink`` is an absolute URL
carrying the same ``api-version`` and ``$filter`` plus ``$skip``, as Azure's does, and null
on the last page. Faults on demand: throttling (429, Retry-After: 0), a page that always
answers 500, a page cut off mid-body, a verbatim body, a NextPageLink on another origin and
one that leads back to the first page. Tests hand the adapter ``fake.install(httpserver)``.
"""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from werkzeug import Request, Response

from tests.fakes.aws import SAMPLES
from tests.fakes.faults import Faults

SAMPLE = "azure_retail_prices_gpu_vm_items.json"
PATH = "/api/retail/prices"


def sample() -> dict[str, Any]:
    return json.loads((SAMPLES / SAMPLE).read_text())


def item(
    arm_sku_name: str,
    usd: float,
    region: str = "eastus",
    suffix: str = "",
    kind: str = "Consumption",
    currency: str = "USD",
    product_name: str | None = None,
    start: str = "2026-07-01T00:00:00Z",
    **fields: Any,
) -> dict[str, Any]:
    """One item in the sample's shape: a Linux meter of ``arm_sku_name``.

    ``suffix`` (" Spot", " Low Priority") ends skuName and meterName as Azure's do;
    ``kind`` is the item ``type`` (Consumption, DevTestConsumption, Reservation); keyword
    fields override any key by its wire name (unitOfMeasure="1/Month").
    """
    entry = copy.deepcopy(sample()["Items"][0])
    name = arm_sku_name.removeprefix("Standard_").replace("_", " ")  # "NC4as T4 v3"
    meter = uuid.uuid5(uuid.NAMESPACE_URL, repr((arm_sku_name, region, suffix, kind, currency)))
    entry.update(
        {
            "currencyCode": currency,
            "retailPrice": usd,
            "unitPrice": usd,
            "armRegionName": region,
            "location": region,
            "effectiveStartDate": start,
            "meterId": str(meter),
            "meterName": name + suffix,
            "skuId": f"{entry['productId']}/{str(meter)[:4].upper()}",
            "productName": product_name or f"Virtual Machines {name} Series",
            "skuName": name + suffix,
            "type": kind,
            "armSkuName": arm_sku_name,
        }
    )
    if kind == "Reservation":
        entry["reservationTerm"] = "1 Year"
    entry.update(fields)
    return entry


@dataclass
class AzureFake:
    """State of the fake: what it serves and what it was asked."""

    items: list[dict[str, Any]] = field(default_factory=list)
    page_size: int = 2
    throttle_first: int = 0  # answer this many calls with 429 (Retry-After: 0) first
    fail_page: int | None = None  # 1-based page that always answers HTTP 500
    truncate_page: int | None = None  # 1-based page whose body is cut off halfway
    bodies: dict[int, str] = field(default_factory=dict)  # page -> serve this text verbatim
    next_link_origin: str | None = None  # NextPageLinks on this origin instead of ours
    loop_page: int | None = None  # this page's NextPageLink leads back to page 1
    faults: Faults = field(default_factory=Faults)  # statuses, stalls, empty pages ...
    requests: list[dict[str, Any]] = field(default_factory=list)

    def release(self) -> None:
        self.faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request(PATH, method="GET").respond_with_handler(self._prices)
        return httpserver.url_for(PATH)

    def pages_asked(self) -> list[int]:
        return [r["page"] for r in self.requests]

    def _prices(self, request: Request) -> Response:
        skip = int(request.args.get("$skip") or 0)
        page = skip // self.page_size + 1
        self.requests.append(
            {
                "page": page,
                "api-version": request.args.get("api-version"),
                "filter": request.args.get("$filter"),
                "skip": skip,
            }
        )
        if self.throttle_first > 0:
            self.throttle_first -= 1
            return Response("Too Many Requests", status=429, headers={"Retry-After": "0"})
        if self.fail_page == page:
            error = {"Error": {"Code": "InternalServerError", "Message": "backend error"}}
            return Response(json.dumps(error), status=500, content_type="application/json")
        if page in self.bodies:
            return Response(self.bodies[page], content_type="application/json")
        self.faults.stall()
        status = self.faults.error_status(page)
        if status is not None:
            error = {"Error": {"Code": f"Fake{status}", "Message": "fake fault"}}
            headers = {"Retry-After": "0"} if status == 429 else {}
            return Response(
                json.dumps(error), status=status, headers=headers, content_type="application/json"
            )
        low, high, more = self.faults.window(len(self.items), self.page_size, page)
        chunk = self.items[low:high]
        link = None
        if more:
            following = 0 if self.loop_page == page else page * self.page_size
            origin = self.next_link_origin or request.host_url.rstrip("/")
            query = urlencode(
                {
                    "api-version": request.args.get("api-version", ""),
                    "$filter": request.args.get("$filter", ""),
                    "$skip": following,
                },
                quote_via=quote,
                safe="$",
            )
            link = f"{origin}{PATH}?{query}"
        body = {
            "BillingCurrency": "USD",
            "CustomerEntityId": "Default",
            "CustomerEntityType": "Retail",
            "Items": chunk,
            "NextPageLink": link,
            "Count": len(chunk),
        }
        text = self.faults.body(page, json.dumps(body))
        if self.truncate_page == page:
            text = text[: len(text) // 2]  # the connection died mid-body
        return Response(text, content_type="application/json")


# Resource Graph (spot eviction bands) and the identity platform's token endpoint.
EVICTION_SAMPLE = "azure_resource_graph_spot_eviction_rates.json"
GRAPH_PATH = "/providers/Microsoft.ResourceGraph/resources"
TENANT = "00000000-0000-4000-8000-00000000a2e5"
LOGIN_PATH = f"/{TENANT}/oauth2/v2.0/token"
CLIENT_ID = "11111111-1111-4111-8111-111111111111"
API_KEY = "fake-azure-client-secret-7Q~s3cr3t"  # the client secret
ACCESS_TOKEN = "fake-azure-access-token-eyJ0eXAi"


def eviction_rows() -> list[dict[str, Any]]:
    return json.loads((SAMPLES / EVICTION_SAMPLE).read_text())["data"]


@dataclass
class ResourceGraphFake:
    """Resource Graph's query endpoint and the token endpoint, in their wire formats.

    A token answer is the identity platform's ``{"token_type", "expires_in",
    "ext_expires_in", "access_token"}``; a refused secret its 401 ``{"error":
    "invalid_client", "error_description": "AADSTS7000215: ..."}``. A query answer is
    ``{"totalRecords", "count", "data", "facets", "resultTruncated"}``, with ``$skipToken``
    while rows remain; a query without the token is Resource Graph's 401. Faults: a page
    that answers 500, a token that leads back to the first page, a verbatim body."""

    rows: list[dict[str, Any]] = field(default_factory=eviction_rows)
    page_size: int = 2
    refuse_secret: bool = False
    fail_page: int | None = None
    loop: bool = False  # every page's $skipToken is the first one's
    bodies: dict[int, str] = field(default_factory=dict)  # page -> serve this text verbatim
    token_requests: list[dict[str, str]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)

    def install(self, httpserver) -> tuple[str, str]:  # type: ignore[no-untyped-def]
        """(login URL, Resource Graph URL) for the adapter's settings."""
        httpserver.expect_request(LOGIN_PATH, method="POST").respond_with_handler(self._token)
        httpserver.expect_request(GRAPH_PATH, method="POST").respond_with_handler(self._query)
        login = httpserver.url_for("/").rstrip("/")
        return login, httpserver.url_for(GRAPH_PATH) + "?api-version=2021-03-01"

    def _token(self, request: Request) -> Response:
        form = request.form.to_dict()
        self.token_requests.append(form)
        if self.refuse_secret or form.get("client_secret") != API_KEY:
            error = {
                "error": "invalid_client",
                "error_description": "AADSTS7000215: Invalid client secret provided.",
                "error_codes": [7000215],
            }
            return Response(json.dumps(error), status=401, content_type="application/json")
        token = {
            "token_type": "Bearer",
            "expires_in": 3599,
            "ext_expires_in": 3599,
            "access_token": ACCESS_TOKEN,
        }
        return Response(json.dumps(token), content_type="application/json")

    def _query(self, request: Request) -> Response:
        body = json.loads(request.get_data(as_text=True) or "{}")
        self.queries.append(body)
        page = len(self.queries)
        if request.headers.get("Authorization") != f"Bearer {ACCESS_TOKEN}":
            error = {"error": {"code": "AuthenticationFailed", "message": "no valid token"}}
            return Response(json.dumps(error), status=401, content_type="application/json")
        if self.fail_page == page:
            error = {"error": {"code": "InternalServerError", "message": "backend error"}}
            return Response(json.dumps(error), status=500, content_type="application/json")
        if page in self.bodies:
            return Response(self.bodies[page], content_type="application/json")
        skip = (body.get("options") or {}).get("$skipToken")
        start = 0 if self.loop or not skip else int(skip.removeprefix("page-"))
        chunk = self.rows[start : start + self.page_size]
        answer: dict[str, Any] = {
            "totalRecords": len(self.rows),
            "count": len(chunk),
            "data": chunk,
            "facets": [],
            "resultTruncated": "false",
        }
        if start + self.page_size < len(self.rows):
            answer["$skipToken"] = f"page-{self.page_size if self.loop else start + self.page_size}"
        return Response(json.dumps(answer), content_type="application/json")
