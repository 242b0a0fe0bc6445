"""Retry a call on throttling and server errors: exponential backoff with full jitter.

Used where the SDK's own retry cannot be bounded by a count (google-api-core retries until
a deadline); plain HTTP uses urllib3's Retry with the same policy (pricing/http.py).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


def with_retries(
    call: Callable[[], T],
    retryable: Callable[[BaseException], bool],
    retries: int,
    backoff_seconds: float,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``call()``; on a retryable error wait up to backoff * 2**attempt seconds and try again."""
    attempt = 0
    while True:
        try:
            return call()
        except Exception as exc:
            if attempt >= retries or not retryable(exc):
                raise
            delay = random.uniform(0, backoff_seconds * 2**attempt)
            log.info("retrying in %.2fs after %s", delay, exc)
            sleep(delay)
            attempt += 1
