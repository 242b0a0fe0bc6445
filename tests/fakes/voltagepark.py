"""A local fake of Voltage Park's public bare-metal locations list,
``GET /api/v1/bare-metal/locations``, in its wire format: a paged envelope of locations,
each with its node's GPUs and a price a GPU-hour on Ethernet and on InfiniBand (the sample
and what in it is real: tests/fakes/samples/README.md). No key: the list is public.

Tests hand the adapter ``fake.install(httpserver)`` as its base URL.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from werkzeug import Request, Response

from tests.fakes.aws import SAMPLES
from tests.fakes.faults import Faults

PATH = "/api/v1/bare-metal/locations"
SAMPLE = "voltagepark_bare_metal_locations_response.json"


def locations() -> list[dict[str, Any]]:
    return json.loads((SAMPLES / SAMPLE).read_text())["results"]


@dataclass
class VoltageParkFake:
    """What the fake serves, a page at a time, and what it was asked."""

    results: list[Any] = field(default_factory=locations)
    page_size: int = 100  # the most a page holds, whatever the client asks
    faults: Faults = field(default_factory=Faults)
    requests: list[dict[str, str]] = field(default_factory=list)

    def release(self) -> None:
        self.faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request(PATH).respond_with_handler(self._locations)
        return httpserver.url_for("/")

    def _locations(self, request: Request) -> Response:
        self.requests.append(dict(request.args))
        limit = min(int(request.args.get("limit", self.page_size)), self.page_size)
        offset = int(request.args.get("offset", 0))
        page = offset // limit + 1
        self.faults.stall()
        status = self.faults.error_status(page)
        if status is not None:
            return _json({"detail": f"fake HTTP {status}"}, status)
        chunk = self.results[offset : offset + limit]
        answer = {
            "results": chunk,
            "total_result_count": len(self.results),
            "has_previous": offset > 0,
            "has_next": offset + limit < len(self.results),
        }
        return Response(self.faults.body(page, json.dumps(answer)), content_type="application/json")


def _json(document: dict[str, Any], status: int) -> Response:
    return Response(json.dumps(document), status=status, content_type="application/json")
