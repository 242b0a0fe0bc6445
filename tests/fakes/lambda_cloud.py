"""A local fake of Lambda Cloud's ``GET /api/v1/instance-types``, in its real wire format.

Answers are ``{"data": {name: {"instance_type": ..., "regions_with_capacity_available": ...}}}``
as in the sample from Lambda's OpenAPI spec; a missing or wrong Bearer key gets Lambda's
documented error document with HTTP 401. Tests hand the adapter ``fake.install(httpserver)``
as its URL.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from werkzeug import Request, Response

from tests.fakes.aws import SAMPLES
from tests.fakes.faults import Faults

API_KEY = "secret_fake-lambda-key_0123456789abcdef"
SAMPLE = "lambda_cloud_instance_types_response.json"
INVALID_KEY = {
    "error": {
        "code": "global/invalid-api-key",
        "message": "API key was invalid, expired, or deleted.",
    }
}


def sample() -> dict[str, Any]:
    return json.loads((SAMPLES / SAMPLE).read_text())


def instance_type(
    name: str,
    description: str,
    cents: int | str,
    regions: list[str] | None = None,
    gpus: int | None = None,
    gpu_description: str | None = None,
    vcpus: int = 30,
    memory_gib: int = 200,
    storage_gib: int = 1400,
) -> dict[str, Any]:
    """One value of ``data``: the sample's shape, with gpus and gpu_description when given."""
    entry = copy.deepcopy(next(iter(sample()["data"].values())))
    item = entry["instance_type"]
    item.update({"name": name, "description": description, "price_cents_per_hour": cents})
    if gpu_description is not None:
        item["gpu_description"] = gpu_description
    item["specs"] = {"vcpus": vcpus, "memory_gib": memory_gib, "storage_gib": storage_gib}
    if gpus is not None:
        item["specs"]["gpus"] = gpus
    entry["regions_with_capacity_available"] = [
        {"name": region, "description": f"{region} data center"} for region in regions or []
    ]
    return entry


def response(types: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"data": types}


@dataclass
class LambdaFake:
    """State of the fake: what it serves and what it was asked."""

    types: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> data value
    api_key: str = API_KEY
    throttle_first: int = 0  # answer this many calls with 429 first
    body: str | None = None  # serve this text verbatim instead (a malformed answer)
    status: int = 200
    faults: Faults = field(default_factory=Faults)  # statuses, stalls, page 1 verbatim or cut
    requests: list[dict[str, Any]] = field(default_factory=list)

    def release(self) -> None:
        self.faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request("/api/v1/instance-types", method="GET").respond_with_handler(
            self._instance_types
        )
        return httpserver.url_for("/").rstrip("/")

    def _instance_types(self, request: Request) -> Response:
        authorization = request.headers.get("Authorization", "")
        self.requests.append({"path": request.path, "authorization": authorization})
        if authorization != f"Bearer {self.api_key}":
            return Response(json.dumps(INVALID_KEY), status=401, content_type="application/json")
        if self.throttle_first > 0:
            self.throttle_first -= 1
            return Response(
                json.dumps({"error": {"code": "global/quota-exceeded", "message": "slow down"}}),
                status=429,
                headers={"Retry-After": "0"},
                content_type="application/json",
            )
        self.faults.stall()
        status = self.faults.error_status()
        if status is not None:
            error = {"error": {"code": "global/unknown", "message": f"fake HTTP {status}"}}
            headers = {"Retry-After": "0"} if status == 429 else {}
            return Response(
                json.dumps(error), status=status, headers=headers, content_type="application/json"
            )
        if self.body is not None:
            return Response(self.body, status=self.status, content_type="application/json")
        text = self.faults.body(1, json.dumps(response(self.types)))
        return Response(text, status=self.status, content_type="application/json")
