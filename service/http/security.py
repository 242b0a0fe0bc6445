"""Limits and headers every response gets, whatever the route.

Bodies and query strings are bounded so a client cannot make a worker buffer megabytes;
every answer tells browsers not to sniff types or embed it.
"""

from __future__ import annotations

from apiflask import APIFlask
from flask import Response, request

from service.http.problems import Problem, document_everywhere

MAX_BODY_BYTES = 64 * 1024  # no endpoint takes a body larger than a few hundred bytes
MAX_QUERY_BYTES = 4 * 1024  # the longest real /breakeven query is a few hundred bytes


def init_app(app: APIFlask) -> None:
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    document_everywhere(app, 413, f"Request body over {MAX_BODY_BYTES} bytes")
    document_everywhere(app, 414, f"Query string over {MAX_QUERY_BYTES} bytes")

    @app.before_request
    def _bounded_request() -> None:
        if len(request.query_string) > MAX_QUERY_BYTES:
            raise Problem(414, "query-too-long", f"query string over {MAX_QUERY_BYTES} bytes")
        if (request.content_length or 0) > MAX_BODY_BYTES:
            raise Problem(413, "body-too-large", f"request body over {MAX_BODY_BYTES} bytes")

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response
