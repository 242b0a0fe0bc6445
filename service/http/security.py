"""Limits and headers every response gets, whatever the route.

Bodies and query strings are bounded so a client cannot make a worker buffer megabytes;
a chunked body (no Content-Length) is bounded as it is read. A parameter given twice is
refused on every route, and an unknown one on every API route, by the query models' own
rule (documents/queries.py) whether or not the route takes a query; an admin route checks
its token before either.
Redirects never name a host, so a forged Host header cannot send a client elsewhere.
Every answer tells browsers not to sniff types or embed it.
"""

from __future__ import annotations

import io
from urllib.parse import urlsplit, urlunsplit

from apiflask import APIFlask
from flask import Response, current_app, redirect, request
from pydantic import ValidationError
from werkzeug.routing import RequestRedirect

from service.documents.queries import Query
from service.http.problems import Problem, document_everywhere, invalid_parameters

MAX_BODY_BYTES = 64 * 1024  # no endpoint takes a body larger than a few hundred bytes
MAX_QUERY_BYTES = 4 * 1024  # the longest real /breakeven query is a few hundred bytes


# Blueprints that authorize a caller first: they refuse repeated parameters themselves, after
# the token check, so a caller without the token learns nothing about the parameters.
CHECKS_AFTER_AUTHORIZATION = frozenset({"admin"})
REPEATED = "given more than once"
# Pages, not API routes: the dashboard keeps its view state in its own query string
# (static/dashboard.js reads it), which is no question to the API.
PAGES = frozenset({"dashboard", "static"})


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


def refuse_unknown_parameters() -> None:
    """The query models' rule (an unknown parameter is a 400 naming it: a typo must not
    pass unseen) on the API routes that take no query too: /gpus, /health, /metrics,
    /openapi.json. Checked by the same model, Query with no fields; routes with a query
    model apply it as they validate their query."""
    view = current_app.view_functions.get(request.endpoint or "")
    if not request.args or view is None or (request.blueprint or request.endpoint) in PAGES:
        return  # no parameters, no route (a 404 or 405 follows), or a page
    # APIFlask's record of a view's @input models: (model, location) pairs
    if any(location == "query" for _, location in getattr(view, "_spec", {}).get("args", [])):
        return
    try:
        Query.model_validate(request.args.to_dict())
    except ValidationError as error:
        raise invalid_parameters(error) from None


def init_app(app: APIFlask) -> None:
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    document_everywhere(app, 400, "Invalid parameters")  # an unknown one, on any operation
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
            refuse_unknown_parameters()
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
