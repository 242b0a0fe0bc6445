"""A local fake of Oracle's public price list, ``GET /pls/apex/cetools/api/v1/products/``,
in its wire format: one document, ``{"lastUpdated": ..., "items": [...]}``, each part with
its metric and its prices per currency (the sample and what in it is real:
tests/fakes/samples/README.md). No key: the list is public.

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

PATH = "/pls/apex/cetools/api/v1/products/"
SAMPLE = "oci_price_list_products_usd.json"


def sample() -> dict[str, Any]:
    return json.loads((SAMPLES / SAMPLE).read_text())


def part(number: str, **fields: Any) -> dict[str, Any]:
    """The sample's item ``number``, a copy with ``fields`` changed."""
    found = next(i for i in sample()["items"] if i["partNumber"] == number)
    return {**copy.deepcopy(found), **fields}


@dataclass
class OciFake:
    """What the fake serves and what it was asked."""

    document: dict[str, Any] = field(default_factory=sample)
    faults: Faults = field(default_factory=Faults)
    requests: list[dict[str, str]] = field(default_factory=list)

    def release(self) -> None:
        self.faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request(PATH).respond_with_handler(self._products)
        return httpserver.url_for(PATH)

    def _products(self, request: Request) -> Response:
        self.requests.append(dict(request.args))
        self.faults.stall()
        status = self.faults.error_status()
        if status is not None:
            return Response(f"fake HTTP {status}", status=status, content_type="text/plain")
        text = self.faults.body(1, json.dumps(self.document))
        return Response(text, content_type="application/json")
