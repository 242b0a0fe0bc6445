"""HTTP for adapters that speak plain HTTPS: one requests session with retries and timeouts.

Throttling (429) and server errors (5xx) are retried with exponential backoff and jitter,
honouring Retry-After; anything else fails at once. A redirect is followed only within the
origin asked (scheme, host and port) and only as the same method: a source that answered
302 to another host would have the refresh fetch, and store, whatever that host serves
(a POST turned into a GET there). Adapters receive the session, so tests can hand them one
pointed at a local fake (the transport seam).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3 import BaseHTTPResponse
from urllib3.util.retry import Retry

from pricing.errors import AdapterError

RETRY_STATUSES = (429, 500, 502, 503, 504)
# The longest Retry-After honoured: a quota refusal can ask for hours (Vast.ai answers a
# used-up daily quota with one), which would hold a refresh until its deadline. Past this
# the retry waits this long, and a source still refusing fails the run, as it should.
MAX_RETRY_AFTER_SECONDS = 60.0
DEFAULT_PORTS = {"http": 80, "https": 443}


def same_origin(url: str, other: str) -> bool:
    """Scheme, host and port equal, default ports spelled or not (":443" == "")."""
    a, b = urlsplit(url), urlsplit(other)
    try:
        ports = (a.port or DEFAULT_PORTS.get(a.scheme), b.port or DEFAULT_PORTS.get(b.scheme))
    except ValueError:  # a port that is not a number
        return False
    return (
        bool(a.scheme and a.hostname)
        and (a.scheme.lower(), a.hostname) == (b.scheme.lower(), b.hostname)
        and ports[0] == ports[1]
    )


class RedirectRefused(requests.RequestException):
    """A redirect off the source's origin, or one that would change the method."""


class _SameOriginSession(requests.Session):
    def rebuild_method(
        self, prepared_request: requests.PreparedRequest, response: requests.Response
    ) -> None:
        """Called for each redirect before it is followed, its target resolved (a relative
        Location joined to the answer's URL): the one place to see both ends of it."""
        method = prepared_request.method
        target = prepared_request.url or ""
        if not same_origin(target, response.url):
            raise RedirectRefused(f"redirect to {target} refused: not the source's origin")
        super().rebuild_method(prepared_request, response)
        if prepared_request.method != method:
            raise RedirectRefused(
                f"redirect to {target} refused: HTTP {response.status_code} would send "
                f"the {method} as a {prepared_request.method}"
            )


class _CappedRetry(Retry):
    """urllib3's Retry, with Retry-After honoured up to MAX_RETRY_AFTER_SECONDS."""

    def get_retry_after(self, response: BaseHTTPResponse) -> float | None:
        seconds = super().get_retry_after(response)
        return None if seconds is None else min(seconds, MAX_RETRY_AFTER_SECONDS)


def make_session(retries: int = 3, backoff_seconds: float = 0.5) -> requests.Session:
    retry = _CappedRetry(
        total=retries,
        backoff_factor=backoff_seconds,
        backoff_jitter=backoff_seconds,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"GET", "POST"}),
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    session = _SameOriginSession()
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = "gpu-breakeven"
    return session


def get(
    http: requests.Session,
    url: str,
    timeout: float,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    context: str = "",
    refused: str = "",
    stream: bool = False,
) -> requests.Response:
    """GET a 200 answer; every failure is an AdapterError naming the URL and the cause.

    ``context`` prefixes messages ("page 2: "); ``refused`` explains a 401/403 (which key).
    """
    prefix = f"{context}GET {url}"
    try:
        response = http.get(url, params=params, headers=headers, timeout=timeout, stream=stream)
    except requests.RequestException as exc:
        raise _failed(prefix, exc) from exc
    if response.status_code == 200:
        return response
    response.close()
    if refused and response.status_code in (401, 403):
        raise AdapterError(f"{prefix}: HTTP {response.status_code}: {refused}")
    raise AdapterError(f"{prefix}: HTTP {response.status_code}")


def get_json(
    http: requests.Session,
    url: str,
    timeout: float,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    context: str = "",
    refused: str = "",
) -> Any:
    """GET a JSON document, with :func:`get`'s errors; a body that is not JSON is one too."""
    response = get(http, url, timeout, params, headers, context, refused)
    try:
        return response.json()
    except ValueError as exc:
        raise AdapterError(f"{context}GET {url}: answer is not JSON (truncated?)") from exc


def post_json(
    http: requests.Session,
    url: str,
    timeout: float,
    body: Mapping[str, Any] | None,
    headers: dict[str, str] | None = None,
    refused: str = "",
    explain: Callable[[int, Any], str | None] | None = None,
    form: Mapping[str, str] | None = None,
) -> Any:
    """POST a JSON body (or ``form``, URL-encoded: an OAuth token request) for the JSON of a
    200 answer, with :func:`get`'s errors.

    The session's retries (429, 5xx) apply to POST too. ``explain`` reads a failed answer's
    JSON (None if it has none) for its cause: a GraphQL error, or a key refused with a 404.
    """
    prefix = f"POST {url}"
    try:
        response = http.post(url, json=body, data=form, headers=headers, timeout=timeout)
    except requests.RequestException as exc:
        raise _failed(prefix, exc) from exc
    with response:
        status = response.status_code
        try:
            document = response.json()
        except (ValueError, requests.RequestException) as exc:
            if status == 200:
                raise AdapterError(f"{prefix}: answer is not JSON (truncated?)") from exc
            document = None
    if status == 200:
        return document
    if refused and status in (401, 403):
        raise AdapterError(f"{prefix}: HTTP {status}: {refused}")
    cause = explain(status, document) if explain is not None else None
    raise AdapterError(f"{prefix}: HTTP {status}" + (f": {cause}" if cause else ""))


@contextmanager
def get_chunks(
    http: requests.Session, url: str, timeout: float, chunk_bytes: int
) -> Iterator[Iterator[bytes]]:
    """GET a body too large to hold, as chunks; a connection lost mid-body is an AdapterError."""
    with get(http, url, timeout, stream=True) as response:
        yield _chunks(response, url, chunk_bytes)


def _chunks(response: requests.Response, url: str, chunk_bytes: int) -> Iterator[bytes]:
    try:
        yield from response.iter_content(chunk_bytes)
    except requests.RequestException as exc:
        raise _failed(f"GET {url}", exc) from exc


def _failed(prefix: str, exc: requests.RequestException) -> AdapterError:
    return AdapterError(f"{prefix}: {type(exc).__name__}: {exc}")
