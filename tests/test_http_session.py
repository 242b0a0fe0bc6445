"""The adapters' HTTP session: retries on throttling honour Retry-After, up to a cap."""

from __future__ import annotations

import time

import pytest
from werkzeug import Response

from pricing import http


def test_a_retry_after_of_hours_waits_only_the_cap(httpserver, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Vast.ai answers a used-up quota with a Retry-After of hours: honoured whole it would
    hold a refresh until its deadline. Capped (0.2 s here), the retry comes after the cap."""
    monkeypatch.setattr(http, "MAX_RETRY_AFTER_SECONDS", 0.2)
    # 30 s stands in for hours: without the cap the test fails after 30 s, not 3 hours
    answers = [Response("quota", status=429, headers={"Retry-After": "30"}), Response("ok")]
    httpserver.expect_request("/q").respond_with_handler(lambda _request: answers.pop(0))
    started = time.monotonic()
    response = http.get(
        http.make_session(retries=1, backoff_seconds=0), httpserver.url_for("/q"), 5
    )
    waited = time.monotonic() - started
    assert response.text == "ok" and answers == []
    assert 0.2 <= waited < 5


def test_a_short_retry_after_is_honoured_as_given(httpserver) -> None:  # type: ignore[no-untyped-def]
    answers = [Response("slow", status=429, headers={"Retry-After": "1"}), Response("ok")]
    httpserver.expect_request("/q").respond_with_handler(lambda _request: answers.pop(0))
    started = time.monotonic()
    http.get(http.make_session(retries=1, backoff_seconds=0), httpserver.url_for("/q"), 5)
    assert time.monotonic() - started == pytest.approx(1.0, abs=0.5)
