"""The HTTP side: the app factory, one blueprint per resource, problems, limits, metrics.

Routes parse the query, ask :mod:`service.documents` for the answer and serialise it; a
domain error becomes a problem document here and nowhere else.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask, Response, current_app

from service.runtime import Runtime

EXTENSION = "breakeven"


def json_response(document: Any, status: int = 200) -> Response:
    """Serialise with orjson: the answers are plain dicts, and encoding them with the
    standard library cost a quarter of a /breakeven request."""
    return Response(orjson.dumps(document), status=status, mimetype="application/json")


def init_runtime(app: Flask, runtime: Runtime) -> None:
    app.extensions[EXTENSION] = runtime


def current_runtime() -> Runtime:
    return current_app.extensions[EXTENSION]
