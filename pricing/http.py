"""HTTP for adapters that speak plain HTTPS: one requests session with retries and timeouts.

Throttling (429) and server errors (5xx) are retried with exponential backoff and jitter,
honouring Retry-After; anything else fails at once. Adapters receive the session, so tests
can hand them one pointed at a local fake (the transport seam).
"""

from __future__ import annotations

from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from pricing.errors import AdapterError

RETRY_STATUSES = (429, 500, 502, 503, 504)


def make_session(retries: int = 3, backoff_seconds: float = 0.5) -> requests.Session:
    retry = Retry(
        total=retries,
        backoff_factor=backoff_seconds,
        backoff_jitter=backoff_seconds,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"GET", "POST"}),
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = "gpu-breakeven"
    return session


def get_json(
    http: requests.Session,
    url: str,
    timeout: float,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    context: str = "",
    refused: str = "",
) -> Any:
    """GET a JSON document; every failure is an AdapterError naming the URL and the cause.

    ``context`` prefixes messages ("page 2: "); ``refused`` explains a 401/403 (which key).
    """
    prefix = f"{context}GET {url}"
    try:
        response = http.get(url, params=params, headers=headers, timeout=timeout)
    except requests.RequestException as exc:
        raise AdapterError(f"{prefix}: {type(exc).__name__}: {exc}") from exc
    if refused and response.status_code in (401, 403):
        raise AdapterError(f"{prefix}: HTTP {response.status_code}: {refused}")
    if response.status_code != 200:
        raise AdapterError(f"{prefix}: HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError as exc:
        raise AdapterError(f"{prefix}: answer is not JSON (truncated?)") from exc
