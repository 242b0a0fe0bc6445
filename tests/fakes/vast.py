"""A local fake of Vast.ai's offer search, ``POST /api/v0/bundles/``, in its real wire format.

What is real and what is made up (sources in tests/fakes/samples/README.md and the research
notes it cites):

- Verbatim: the RTX 4090 offer (id 11684738) in the sample, a real ``vastai search offers
  --raw`` row from 2024 found in a public script; its field set matches the offer example of
  Vast's OpenAPI spec (vast-ai/docs ``api-reference/openapi/yaml/search_offers.yaml``).
- Documented, reproduced here: the endpoint and method, ``Authorization: Bearer`` (vast-ai/docs
  authentication.mdx, vast-cli ``vastai/api/client.py``), the query body's ``{field: {op:
  value}}`` filters, the answer ``{"offers": [...]}``, HTTP 404 with ``"msg": "Invalid user
  key"`` for a bad key (the OpenAPI spec), 429 with the plain-text body ``API requests too
  frequent`` and no Retry-After (rate-limits-and-errors.mdx).
- Reconstructed: the other six sample offers, five from the research notes and one RTX 3090
  in Florida added here so that one group holds two offers (ids, prices, hosts, benchmarks
  are illustrative; derived fields follow the arithmetic of the real rows: ``dph_total =
  dph_base + storage_cost * 5 / 720``); the ``error`` code of the 404 (only ``msg`` is
  documented); the 5xx bodies.

The fake serves the offers it is given as they are, applying none of the query's filters: a
test wants to see what the adapter does with whatever Vast returns.

Tests hand the adapter ``fake.install(httpserver)`` as its URL.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from werkzeug import Request, Response

from tests.fakes.aws import SAMPLES
from tests.fakes.faults import Faults

API_KEY = "fake-vast-key-0123456789abcdef0123456789abcdef0123456789abcdef01234567"
PATH = "/api/v0/bundles/"
SAMPLE = "vast_bundles_offers_response.json"
VERBATIM_ID = 11684738  # the sample's real offer (RTX 4090, Guangxi, CN)
INVALID_KEY = {"error": "invalid_user_key", "msg": "Invalid user key"}
THROTTLED = "API requests too frequent"


def sample() -> dict[str, Any]:
    return json.loads((SAMPLES / SAMPLE).read_text())


def offer(offer_id: int, gpu_name: str = "RTX 4090", **fields: Any) -> dict[str, Any]:
    """An offer shaped like the verbatim row, with a new id, ``gpu_name`` and ``fields``.

    A field given as ``None`` is left out of the row (``geolocation=None`` sends no key); to
    send JSON null use ``null=["geolocation"]``.
    """
    real = next(o for o in sample()["offers"] if o["id"] == VERBATIM_ID)
    row = copy.deepcopy(real)
    row.update({"id": offer_id, "ask_contract_id": offer_id, "gpu_name": gpu_name})
    nulls = fields.pop("null", [])
    for key, value in fields.items():
        if value is None:
            row.pop(key, None)
        else:
            row[key] = value
    for key in nulls:
        row[key] = None
    return row


def response(offers: list[Any], truncated: bool | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {"offers": offers}
    if truncated is not None:
        answer["truncated"] = truncated
    return answer


@dataclass
class VastFake:
    """State of the fake: what it serves and what it was asked."""

    offers: list[Any] = field(default_factory=list)
    api_key: str = API_KEY
    refuse_status: int = 404  # Vast's documented answer to a bad key (401 and 403 are seen too)
    throttle_first: int = 0  # answer this many calls with 429 first
    body: str | None = None  # serve this text verbatim instead (a malformed answer)
    status: int = 200
    faults: Faults = field(default_factory=Faults)  # statuses, stalls, the answer verbatim or cut
    requests: list[dict[str, Any]] = field(default_factory=list)

    def release(self) -> None:
        self.faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request(PATH).respond_with_handler(self._search)
        return httpserver.url_for(PATH)

    def _search(self, request: Request) -> Response:
        authorization = request.headers.get("Authorization", "")
        try:
            query = json.loads(request.get_data(as_text=True))
        except ValueError:
            query = None
        self.requests.append(
            {
                "method": request.method,
                "path": request.path,
                "authorization": authorization,
                "content_type": request.headers.get("Content-Type", ""),
                "query": query,
            }
        )
        if request.method != "POST":  # the old GET ?q= form is not what the adapter speaks
            return _json({"error": "method_not_allowed", "msg": request.method}, 405)
        if authorization != f"Bearer {self.api_key}":
            return _json(INVALID_KEY, self.refuse_status)
        if not isinstance(query, dict):
            return _json({"error": "invalid_request", "msg": "Invalid json body"}, 400)
        if self.throttle_first > 0:
            self.throttle_first -= 1
            return Response(THROTTLED, status=429, content_type="text/plain")
        self.faults.stall()
        status = self.faults.error_status()
        if status is not None:
            if status == 429:
                return Response(THROTTLED, status=429, content_type="text/plain")
            return _json({"error": "server_error", "msg": f"fake HTTP {status}"}, status)
        if self.body is not None:
            return Response(self.body, status=self.status, content_type="application/json")
        text = self.faults.body(1, json.dumps(response(self.offers)))
        return Response(text, status=self.status, content_type="application/json")


def _json(document: dict[str, Any], status: int) -> Response:
    return Response(json.dumps(document), status=status, content_type="application/json")
