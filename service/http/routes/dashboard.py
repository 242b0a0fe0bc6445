"""The pricing dashboard at ``/``: one page over the same REST API, every asset local.

A strict Content Security Policy allows only this origin: no CDN, no inline script or
style, so the page works with no network and nothing on it can talk to a third party.
"""

from __future__ import annotations

from apiflask import APIBlueprint
from flask import Response, render_template

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
    response = Response(render_template("index.html"), mimetype="text/html")
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY  # the rest: security.py
    return response
