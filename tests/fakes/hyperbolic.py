"""A local fake of Hyperbolic's public rental options, ``GET
/v2/alpha/on-demand/rental-options``, in its wire format: a bare JSON list of options, each
priced in cents an hour for the whole option (the sample and what in it is real:
tests/fakes/samples/README.md). No key: the list is public.

Tests hand the adapter ``fake.install(httpserver)`` as its base URL.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from werkzeug import Request, Response

from tests.fakes.aws import SAMPLES
from tests.fakes.faults import Faults

PATH = "/v2/alpha/on-demand/rental-options"
SAMPLE = "hyperbolic_rental_options_response.json"


def options() -> list[dict[str, Any]]:
    return json.loads((SAMPLES / SAMPLE).read_text())


@dataclass
class HyperbolicFake:
    """What the fake serves and how often it was asked."""

    options: list[Any] = field(default_factory=options)
    faults: Faults = field(default_factory=Faults)
    requests: int = 0

    def release(self) -> None:
        self.faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request(PATH).respond_with_handler(self._options)
        return httpserver.url_for("/")

    def _options(self, request: Request) -> Response:
        self.requests += 1
        self.faults.stall()
        status = self.faults.error_status(1)
        if status is not None:
            return Response(
                json.dumps({"detail": f"fake HTTP {status}"}),
                status=status,
                content_type="application/json",
            )
        return Response(
            self.faults.body(1, json.dumps(self.options)), content_type="application/json"
        )
