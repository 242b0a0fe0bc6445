"""The pricing dashboard at ``/`` and the API browser at ``/docs``: pages over the same REST
API, every asset local (Chart.js and Swagger UI are vendored under static/vendor/).

A strict Content Security Policy allows only this origin: no CDN, no inline script or
style, so the pages work with no network and nothing on them can talk to a third party.
"""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import Response, render_template

from service.http import current_runtime

bp = APIBlueprint("dashboard", __name__, enable_openapi=False)

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


@bp.get("/")
def index() -> Response:
    """The dashboard; its "describe the job" form offers the model table's models."""
    models = current_runtime().hardware.models.values()
    return _page(
        "index.html",
        transformers=sorted(m.id for m in models if m.family == "transformer"),
        vision_models=sorted(m.id for m in models if m.family == "vision"),
    )


@bp.get("/docs")
def docs() -> Response:
    """Swagger UI over /openapi.json, in place of APIFlask's page (a CDN and inline script)."""
    return _page("docs.html")


def _page(template: str, **context: Any) -> Response:
    response = Response(render_template(template, **context), mimetype="text/html")
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY  # the rest: security.py
    return response
