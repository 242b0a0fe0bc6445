"""Limits and headers every response gets, whatever the route.

Bodies and query strings are bounded so a client cannot make a worker buffer megabytes;
a chunked body (no Content-Length) is bounded as it is read. (A repeated parameter is
refused where the query is validated, after an admin route's token check: documents/queries.py.)
Redirects never name a host, so a forged Host header cannot send a client elsewhere.
Every answer tells browsers not to sniff types or embed it.
"""

from __future__ import annotations

import io
from urllib.parse import urlsplit, urlunsplit

from apiflask import APIFlask
from flask import Response, redirect, request
from werkzeug.routing import RequestRedirect

from service.http.problems import Problem, document_everywhere

MAX_BODY_BYTES = 64 * 1024  # no endpoint takes a body larger than a few hundred bytes
MAX_QUERY_BYTES = 4 * 1024  # the longest real /breakeven query is a few hundred bytes


# Blueprints that authorize a caller first: they refuse repeated parameters themselves, after
# the token check, so a caller without the token learns nothing about the parameters.
CHECKS_AFTER_AUTHORIZATION = frozenset({"admin"})
REPEATED = "given more than once"


def refuse_repeated_parameters() -> None:
    """Each parameter once: `hours=1&hours=2` would quietly answer for the first value."""
    repeated = sorted({name for name in request.args if len(request.args.getlist(name)) > 1})
    if repeated:
        raise Problem(
            400,
            "invalid-parameters",
            "; ".join(f"{name}: {REPEATED}" for name in repeated),
            errors=[{"parameter": name, "reason": REPEATED} for name in repeated],
        )


def init_app(app: APIFlask) -> None:
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    document_everywhere(app, 413, f"Request body over {MAX_BODY_BYTES} bytes")
    document_everywhere(app, 414, f"Query string over {MAX_QUERY_BYTES} bytes")

    @app.before_request
    def _bounded_request() -> Response | None:
        if len(request.query_string) > MAX_QUERY_BYTES:
            raise Problem(414, "query-too-long", f"query string over {MAX_QUERY_BYTES} bytes")
        if (request.content_length or 0) > MAX_BODY_BYTES:
            raise _body_too_large()
        if request.content_length is None and "chunked" in _transfer_encoding():
            _read_bounded_body()
        if isinstance(request.routing_exception, RequestRedirect):
            return _relative_redirect(request.routing_exception)
        if request.blueprint not in CHECKS_AFTER_AUTHORIZATION:
            refuse_repeated_parameters()
        return None

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response


def _body_too_large() -> Problem:
    return Problem(413, "body-too-large", f"request body over {MAX_BODY_BYTES} bytes")


def _transfer_encoding() -> str:
    return request.headers.get("Transfer-Encoding", "").lower()


def _read_bounded_body() -> None:
    """A chunked body states no length, so the Content-Length check cannot see it (and a
    view that takes no body never reads it): read at most one byte past the limit now, refuse
    a longer body (413), and hand the view what was read."""
    body = request.environ["wsgi.input"].read(MAX_BODY_BYTES + 1)
    if len(body) > MAX_BODY_BYTES:
        raise _body_too_large()
    request.environ["wsgi.input"] = io.BytesIO(body)


def _relative_redirect(routed: RequestRedirect) -> Response:
    """Werkzeug's own redirects (`/static//x` to `/static/x`, a missing trailing slash) are
    absolute URLs built from the Host header, which a client controls: answer the same
    redirect with only the path and query, so it stays on whatever host the client used."""
    parts = urlsplit(routed.new_url)
    path = "/" + parts.path.lstrip("/")  # one slash: `//host/x` would be another host
    return redirect(urlunsplit(("", "", path, parts.query, "")), routed.code)
