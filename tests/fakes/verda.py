"""A local fake of Verda's two public lists, ``GET /v1/instance-types`` and
``GET /v1/long-term/periods/instances``, in their wire format: JSON lists, prices as decimal strings
(the samples and what in them is real: tests/fakes/samples/README.md). No key: both are
public.

Tests hand the adapter ``fake.install(httpserver)`` as its base URL.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from werkzeug import Request, Response

from tests.fakes.aws import SAMPLES
from tests.fakes.faults import Faults

TYPES_PATH = "/v1/instance-types"
PERIODS_PATH = "/v1/long-term/periods/instances"


def instance_types() -> list[dict[str, Any]]:
    return json.loads((SAMPLES / "verda_instance_types_response.json").read_text())


def periods() -> list[dict[str, Any]]:
    return json.loads((SAMPLES / "verda_long_term_periods_response.json").read_text())


@dataclass
class VerdaFake:
    """What the fake serves and what it was asked; faults apply to the instance types
    (page 1) and the periods (page 2)."""

    types: list[Any] = field(default_factory=instance_types)
    periods: list[Any] = field(default_factory=periods)
    faults: Faults = field(default_factory=Faults)
    requests: list[str] = field(default_factory=list)

    def release(self) -> None:
        self.faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request(TYPES_PATH).respond_with_handler(self._types)
        httpserver.expect_request(PERIODS_PATH).respond_with_handler(self._periods)
        return httpserver.url_for("/")

    def _types(self, request: Request) -> Response:
        return self._answer(request, 1, self.types)

    def _periods(self, request: Request) -> Response:
        return self._answer(request, 2, self.periods)

    def _answer(self, request: Request, page: int, document: list[Any]) -> Response:
        self.requests.append(request.path)
        self.faults.stall()
        status = self.faults.error_status(page)
        if status is not None:
            return Response(
                json.dumps({"code": "server_error", "message": f"fake HTTP {status}"}),
                status=status,
                content_type="application/json",
            )
        return Response(
            self.faults.body(page, json.dumps(document)), content_type="application/json"
        )
