"""HTTP for adapters that speak plain HTTPS: one requests session with retries and timeouts.

Throttling (429) and server errors (5xx) are retried with exponential backoff and jitter,
honouring Retry-After; anything else fails at once. Adapters receive the session, so tests
can hand them one pointed at a local fake (the transport seam).
"""

from __future__ import annotations

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

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
