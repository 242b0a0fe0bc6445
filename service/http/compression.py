"""gzip for what the service sends that compresses: JSON, CSV, the dashboard's page and
script. A 10,000-row /offers page is 1.7 MB as JSON and about 45 KB gzipped; the server's
CPU is cheaper than every client's wait. Brotli would save a little more, but needs a
dependency; every HTTP client speaks gzip."""

from __future__ import annotations

import gzip

from flask import Flask, Response, request

# Below this an answer fits a packet or two either way: not worth the CPU.
MIN_BYTES = 1024
# zlib's level 6 (its default) gives most of level 9's size at a fraction of its time.
LEVEL = 6
COMPRESSIBLE = (
    "application/json",
    "application/problem+json",
    "text/csv",
    "text/html",
    "text/css",
    "text/javascript",
    "application/javascript",
)


def init_app(app: Flask) -> None:
    @app.after_request
    def _compress(response: Response) -> Response:
        response.vary.add("Accept-Encoding")
        return compress(response, accepts_gzip())


def accepts_gzip() -> bool:
    """Whether this request takes a gzipped answer: read in the request, so a heavy read can
    compress its answer off the event loop, where the request is not at hand."""
    return request.method == "GET" and request.accept_encodings["gzip"] > 0  # gzip;q=0: no


def compress(response: Response, accepted: bool) -> Response:
    """``response`` gzipped where it is worth it and ``accepted``; once: a response that
    already says its encoding is left as it is (a heavy read's, compressed in its thread,
    meets the after-request hook too)."""
    if not accepted or not _compressible(response):
        return response
    response.direct_passthrough = False  # a static file: read it to compress it
    source = response.response
    body = response.get_data()  # the body now held as bytes, the file read through
    if hasattr(source, "close"):
        source.close()  # the file's handle: replaced, it was never closed (one per request)
    if len(body) < MIN_BYTES:
        return response
    response.set_data(gzip.compress(body, compresslevel=LEVEL, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    tag, weak = response.get_etag()
    if tag is not None and not weak:  # a static file's: these bytes are another entity
        response.set_etag(f"{tag}-gzip")
    return response


def _compressible(response: Response) -> bool:
    return (
        response.status_code == 200
        and "Content-Encoding" not in response.headers
        and response.mimetype in COMPRESSIBLE
        and (response.direct_passthrough or not response.is_streamed)  # a file, or bytes
    )
