"""A local fake of RunPod's GraphQL ``POST /graphql`` ``gpuTypes`` query, in its wire format.

What is known, and from where (notes in /work/research/marketplaces/NOTES.md):

- Verbatim/confirmed: the endpoint, the POST body ``{"query": ...}``, the ``Authorization:
  Bearer`` key (runpod/runpod-python@07fc6e2b runpod/api/graphql.py); the answer
  ``{"data": {"gpuTypes": [...]}}`` and its field names and types (runpod/docs@a900806e
  references/gpu-types.mdx and sdks/graphql/manage-pods.mdx; dstackai/gpuhunt@35841515 and
  skypilot-org/skypilot@8c488dc5 fetch_runpod.py, which multiply per-GPU prices by the count);
  an error inside the body as ``{"errors": [{"message": ...}]}`` read from ``errors[0]``
  (runpod-python tests/test_api/test_ctl_commands.py); HTTP 401 for a bad key (runpod-python).
- Reconstructed: the 401 body (runpod-python never reads it; the standard GraphQL shape is
  used here), the 429 and 5xx bodies (no RunPod rate limit is documented), the 400 body for a
  request without a query (graphql-js wording), and in the sample every price but the A100's
  and every ``maxGpuCount`` but the A100's (see tests/fakes/samples/README.md).

Like a GraphQL server, the fake answers only the fields the query names (any word of the query
counts), so an adapter that forgets to ask for a field does not see it. Tests hand the adapter
``fake.install(httpserver)`` as its URL.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any

from werkzeug import Request, Response

from tests.fakes.aws import SAMPLES
from tests.fakes.faults import Faults

API_KEY = "rpa_FAKERUNPODKEY0123456789ABCDEFGHIJKLMNOP"
SAMPLE = "runpod_graphql_gpu_types_response.json"
PATH = "/graphql"
# Reconstructed: RunPod's 401 body is unknown; the standard GraphQL error shape.
UNAUTHORIZED = {"errors": [{"message": "Unauthorized"}]}
# Verbatim message (runpod/pulumi-runpod-native#18), in the shape runpod-python reads.
SOMETHING_WENT_WRONG = "Something went wrong. Please try again later or contact support."

_WORD = re.compile(r"[A-Za-z_]\w*")


def sample() -> dict[str, Any]:
    return json.loads((SAMPLES / SAMPLE).read_text())


def gpu_type(gpu_id: str, display_name: str, **fields: Any) -> dict[str, Any]:
    """One ``gpuTypes`` item in the sample's shape: no tier offered or priced unless given."""
    item: dict[str, Any] = {
        "id": gpu_id,
        "displayName": display_name,
        "memoryInGb": 24,
        "maxGpuCount": 1,
        "secureCloud": True,
        "communityCloud": True,
        "securePrice": None,
        "communityPrice": None,
        "secureSpotPrice": None,
        "communitySpotPrice": None,
        "lowestPrice": {"stockStatus": None},
    }
    item.update(fields)
    return item


def response(types: list[dict[str, Any]]) -> dict[str, Any]:
    return {"data": {"gpuTypes": copy.deepcopy(types)}}


def _asked(value: Any, words: set[str]) -> Any:
    """``value`` with only the object members the query names, as GraphQL answers."""
    if isinstance(value, dict):
        return {k: _asked(v, words) for k, v in value.items() if k in words}
    if isinstance(value, list):
        return [_asked(v, words) for v in value]
    return value


def _json(document: Any, status: int, headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(document), status=status, headers=headers, content_type="application/json"
    )


@dataclass
class RunPodFake:
    """State of the fake: what it serves and what it was asked."""

    types: list[dict[str, Any]] = field(default_factory=list)  # the gpuTypes items
    api_key: str = API_KEY
    throttle_first: int = 0  # answer this many calls with 429 first
    errors: list[dict[str, Any]] | None = None  # answer HTTP 200 {"errors": ..., "data": null}
    body: str | None = None  # serve this text verbatim instead (a malformed answer)
    status: int = 200
    faults: Faults = field(default_factory=Faults)  # statuses, stalls, the body verbatim or cut
    requests: list[dict[str, Any]] = field(default_factory=list)

    def release(self) -> None:
        self.faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request(PATH, method="POST").respond_with_handler(self._graphql)
        return httpserver.url_for(PATH)

    def _graphql(self, request: Request) -> Response:
        authorization = request.headers.get("Authorization", "")
        try:
            body = json.loads(request.get_data(as_text=True))
        except ValueError:
            body = None
        query = body.get("query") if isinstance(body, dict) else None
        self.requests.append(
            {
                "method": request.method,
                "path": request.path,
                "authorization": authorization,
                "content_type": request.headers.get("Content-Type", ""),
                "query": query,
            }
        )
        if authorization != f"Bearer {self.api_key}":
            return _json(UNAUTHORIZED, 401)
        if not isinstance(query, str) or not query.strip():
            return _json({"errors": [{"message": "Must provide query string."}]}, 400)
        if self.throttle_first > 0:
            self.throttle_first -= 1
            return _json({"errors": [{"message": "slow down"}]}, 429, {"Retry-After": "0"})
        self.faults.stall()
        status = self.faults.error_status()
        if status is not None:
            headers = {"Retry-After": "0"} if status == 429 else {}
            return _json({"errors": [{"message": f"fake HTTP {status}"}]}, status, headers)
        if self.body is not None:
            return Response(self.body, status=self.status, content_type="application/json")
        if self.errors is not None:
            return _json({"errors": self.errors, "data": None}, self.status)
        if "gpuTypes" not in query:
            return _json({"data": {}}, self.status)  # this fake answers gpuTypes only
        words = set(_WORD.findall(query))
        text = self.faults.body(1, json.dumps(_asked(response(self.types), words | {"data"})))
        return Response(text, status=self.status, content_type="application/json")
