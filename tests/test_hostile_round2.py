"""Findings of the hostile black-box run of 2026-12-01 (shared/reviews/hostile-run-2026-12-01.md),
each reproduced as it was found: /metrics grown by odd methods (#8), 503 bodies naming the
database server and role (#13), price sources redirected elsewhere (#14), parameter rules
that differ by endpoint (#15), a remembered answer echoing another client's -0 (#16) and
/ready blind to the listings table (#17).
"""

from __future__ import annotations

import logging
import math
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from werkzeug import Response

from pricing import http
from pricing.adapters.vast import VastAdapter, VastConfig
from pricing.errors import AdapterError, StoreUnavailable
from pricing.store import utcnow
from service.http.app import create_app
from service.http.routes.metrics import METHODS, OTHER_METHOD
from service.settings import Settings
from tests.fakes.vast import API_KEY
from tests.helpers import offer

# -- #8 odd methods --------------------------------------------------------------------------

REQUESTS_TOTAL = "breakeven_http_requests_total{"


def _series(client: Any) -> list[str]:
    """The labelled request counters /metrics exposes, one line each."""
    body = client.get("/metrics").get_data(as_text=True)
    return [line for line in body.splitlines() if line.startswith(REQUESTS_TOTAL)]


def _token(number: int) -> str:
    """A distinct upper-case method token per number, as gunicorn accepts any: YAAAB ..."""
    letters = ""
    for _ in range(5):
        number, digit = divmod(number, 26)
        letters = string.ascii_uppercase[digit] + letters
    return "Y" + letters


def test_odd_methods_are_counted_under_one_label(client) -> None:  # type: ignore[no-untyped-def]
    before = _series(client)
    for number in range(1_000):
        assert client.open("/health", method=_token(number)).status_code == 405
    after = _series(client)
    odd = [line for line in after if f'method="{OTHER_METHOD}"' in line]
    assert len(odd) == 1 and odd[0].endswith(" 1000.0"), odd
    assert len(after) - len(before) <= 2, len(after) - len(before)  # "other", and /metrics
    named = {line.split('method="')[1].split('"')[0] for line in after}
    assert named <= METHODS | {OTHER_METHOD}, named
    assert client.open("/health", method="OPTIONS").status_code == 200
    assert any('method="OPTIONS"' in line for line in _series(client))


# -- #13 what a 503 tells a client ----------------------------------------------------------

ROLE = "hostile3_app"
DRIVER_SAYS = (
    'connection failed: connection to server at "127.0.0.1", port 5432 failed: '
    f'FATAL:  role "{ROLE}" is not permitted to log in'
)
# The driver's words: where the server is ("port 5432", not a price's digits such as
# 3772.2469349543235), the role, the exception.
LEAKS = ("127.0.0.1", "port 5432", ":5432", ROLE, "OperationalError", "FATAL")


def _role_refused(*_args: Any, **_kwargs: Any) -> Any:
    raise OperationalError("SELECT 1", {}, Exception(DRIVER_SAYS))


def _write_refused(*_args: Any, **_kwargs: Any) -> Any:
    """What the store's write raises when its connection is refused: its own error."""
    refused = OperationalError("SELECT 1", {}, Exception(DRIVER_SAYS))
    raise StoreUnavailable(refused) from refused


@pytest.fixture
def nologin(app, client, monkeypatch: pytest.MonkeyPatch) -> Any:  # type: ignore[no-untyped-def]
    """The store's role made NOLOGIN once the catalog is loaded: every connection refused."""
    assert client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").status_code == 200
    engine = app.extensions["breakeven"].store.engine
    monkeypatch.setattr(engine, "connect", _role_refused)
    monkeypatch.setattr(engine, "begin", _role_refused)
    return client


@pytest.mark.parametrize("path", ["/providers", "/ready", "/offers/history"])
def test_a_503_names_no_server_port_or_role(nologin, caplog, monkeypatch, path: str) -> None:  # type: ignore[no-untyped-def]
    from service.http.routes import health
    from service.http.throttle import LineThrottle

    # an outage's first 503 is its WARNING line (the rest of the minute's go to DEBUG)
    monkeypatch.setattr(health, "_OUTAGE_LINES", LineThrottle())
    caplog.set_level(logging.WARNING, logger="service.http.routes.health")
    response = nologin.get(path)
    assert response.status_code == 503 and response.mimetype == "application/problem+json"
    assert response.json["detail"] == "the price store is not answering; retry later"
    body = response.get_data(as_text=True)
    assert [leak for leak in LEAKS if leak in body] == []
    logged = [r for r in caplog.records if r.name == "service.http.routes.health"]
    assert len(logged) == 1 and logged[0].levelno == logging.WARNING
    assert ROLE in logged[0].getMessage() and path in logged[0].getMessage()


def test_an_answer_served_from_memory_says_since_when_but_not_the_driver(nologin, caplog) -> None:  # type: ignore[no-untyped-def]
    caplog.set_level(logging.WARNING)
    response = nologin.get("/breakeven?detail=full&gpu=rtx3090&hours=500")
    assert response.status_code == 200
    marker = response.json["served_without_database"]
    assert marker["since"] and marker["reason"] == "the price store is not answering"
    assert [leak for leak in LEAKS if leak in response.get_data(as_text=True)] == []
    assert any(ROLE in record.getMessage() for record in caplog.records)  # the log has it


def test_a_refresh_the_store_fails_shows_no_driver_message_in_providers(
    app, client, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:  # type: ignore[no-untyped-def]
    """A run's error is public (/providers' last_error): a write the database refused
    recorded the driver's message, server, port and role with it."""
    from pricing.adapters import Batch
    from pricing.refresh import run_adapter

    store = app.extensions["breakeven"].store

    class Source:
        name = "custom"

        def fetch(self) -> Batch:
            return Batch(offers=[offer(product="p")], source_version="test")

    monkeypatch.setattr(store, "record_run", _write_refused)
    caplog.set_level(logging.WARNING, logger="pricing.refresh")
    result = run_adapter(store, Source())  # type: ignore[arg-type]
    assert result.status == "failed"
    providers = client.get("/providers").get_data(as_text=True)
    assert "the price store failed while writing the run" in providers
    assert [leak for leak in LEAKS if leak in providers and leak != "OperationalError"] == []
    assert any(ROLE in record.getMessage() for record in caplog.records)  # the log has it


# -- #14 redirects ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def _two_servers() -> Iterator[tuple[HTTPServer, HTTPServer]]:
    """A source and another service, on two ports of one host."""
    servers = (HTTPServer(host="127.0.0.1"), HTTPServer(host="127.0.0.1"))
    for server in servers:
        server.start()
    yield servers
    for server in servers:
        server.clear()
        server.stop()


@pytest.fixture
def servers(_two_servers: tuple[HTTPServer, HTTPServer]) -> Iterator[tuple[HTTPServer, HTTPServer]]:
    yield _two_servers
    for server in _two_servers:
        server.clear()


def _redirect(location: str, status: int = 302) -> Response:
    return Response("", status=status, headers={"Location": location})


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_port_is_refused_unfollowed(servers, status: int) -> None:  # type: ignore[no-untyped-def]
    source, other = servers
    elsewhere = other.url_for("/offers?limit=1")
    source.expect_request("/prices").respond_with_response(_redirect(elsewhere, status))
    other.expect_request("/offers").respond_with_json({"Items": []})
    session = http.make_session(retries=0)
    with pytest.raises(AdapterError) as get_refused:
        http.get_json(session, source.url_for("/prices"), 5)
    with pytest.raises(AdapterError) as post_refused:
        http.post_json(session, source.url_for("/prices"), 5, {"q": 1})
    for refused in (get_refused, post_refused):
        message = str(refused.value)
        assert f"redirect to {elsewhere} refused: not the source's origin" in message, message
    assert other.log == []  # never asked


def test_vast_redirected_elsewhere_fails_the_run(servers) -> None:  # type: ignore[no-untyped-def]
    """As found: Vast's POST became a GET on the other port, whose answer was read as
    Vast's (an empty one was recorded as `vast: ok, 0 offers`)."""
    source, other = servers
    source.expect_request("/api/v0/bundles/").respond_with_response(
        _redirect(other.url_for("/offers?limit=1"))
    )
    other.expect_request("/offers").respond_with_json({"offers": []})
    config = VastConfig(url=source.url_for("/api/v0/bundles/"), api_key=API_KEY)
    adapter = VastAdapter(config, lambda name: None, http=http.make_session(0, 0.01))
    with pytest.raises(AdapterError, match="refused: not the source's origin"):
        adapter.fetch()
    assert other.log == []


@pytest.mark.parametrize("status", [301, 302, 303])
def test_a_redirect_within_the_origin_is_followed_but_a_post_never_becomes_a_get(  # type: ignore[no-untyped-def]
    servers, status: int
) -> None:
    source, _ = servers
    source.expect_request("/old").respond_with_response(_redirect("/new", status))
    source.expect_request("/new", method="GET").respond_with_json({"ok": 1})
    source.expect_request("/post-old").respond_with_response(_redirect("/post-new", 307))
    source.expect_request("/post-new", method="POST", json={"q": 1}).respond_with_json({"ok": 2})
    source.expect_request("/search", method="POST").respond_with_response(
        _redirect("/results", status)
    )
    source.expect_request("/results").respond_with_json({"offers": []})
    session = http.make_session(retries=0)
    assert http.get_json(session, source.url_for("/old"), 5) == {"ok": 1}
    assert http.post_json(session, source.url_for("/post-old"), 5, {"q": 1}) == {"ok": 2}
    with pytest.raises(AdapterError, match=rf"HTTP {status} would send the POST as a GET"):
        http.post_json(session, source.url_for("/search"), 5, {"q": 1})
    asked = [entry[0].path for entry in source.log]
    assert asked == ["/old", "/new", "/post-old", "/post-new", "/search"], asked


def test_same_origin_is_scheme_host_and_port() -> None:
    assert http.same_origin("http://127.0.0.1:80/a", "http://127.0.0.1/b")
    assert http.same_origin("HTTPS://Example.com/x", "https://example.com:443/y")
    assert not http.same_origin("http://127.0.0.1:8001/", "http://127.0.0.1:8000/")
    assert not http.same_origin("http://example.com/", "https://example.com/")
    assert not http.same_origin("https://example.com.evil.example/", "https://example.com/")
    assert not http.same_origin("http://127.0.0.1:port/", "http://127.0.0.1/")


# -- #15 one rule for parameters --------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/gpus?x=1",
        "/gpus/rtx3090?x=1",
        "/providers?x=1",
        "/health?x=1",
        "/ready?x=1",
        "/metrics?x=1",
        "/openapi.json?x=1",
    ],
)
def test_an_unknown_parameter_is_refused_by_name_everywhere(client, url: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(url)
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    as_breakeven = client.get("/breakeven?detail=full&gpu=rtx3090&hours=5&x=1").json  # the one rule
    assert response.json["errors"] == as_breakeven["errors"]
    assert response.json["errors"] == [
        {"parameter": "x", "reason": "Extra inputs are not permitted"}
    ]
    assert response.json["type"] == as_breakeven["type"]


@pytest.mark.parametrize(
    "url", ["/breakeven?detail=full&gpu=rtx3090&hours=5&=5", "/health?=5", "/gpus?="]
)
def test_the_empty_parameter_name_is_named_empty(client, url: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(url)
    assert response.status_code == 400
    assert [e["parameter"] for e in response.json["errors"]] == [""]
    assert response.json["detail"] == '"": Extra inputs are not permitted'


def test_the_spec_documents_the_400_everywhere(client) -> None:  # type: ignore[no-untyped-def]
    spec = client.get("/openapi.json").json
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            assert "400" in operation["responses"], (method, path)


def test_pages_keep_their_view_state_while_the_api_refuses_it(client) -> None:  # type: ignore[no-untyped-def]
    for page in (
        "/?view=rank&r_workload=cnn&r_memory=16&r_budget=2000",
        "/?view=prices&provider=gcp&pricing=spot",
        "/docs?x=1",
        "/static/dashboard.js?v=1",
    ):
        with client.get(page) as response:  # a static file's handle closes with it
            assert response.status_code == 200, page
    assert client.get("/gpus?view=prices").status_code == 400


# -- #16 the answer memo and -0 ---------------------------------------------------------------


def test_minus_zero_is_zero_so_no_answer_echoes_another_spelling(app, client) -> None:  # type: ignore[no-untyped-def]
    spellings = ["-0", "-0"] * 2 + ["0", "0"] * 2 + ["-0.0", "-1e-400", "0e5"]
    echoed = []
    for zero in spellings:
        answer = client.get(
            f"/breakeven?detail=full&gpu=rtx3090&hours=77&spot_overhead={zero}&resale={zero}"
        ).json
        echoed += [answer["assumptions"]["spot_overhead"], answer["assumptions"]["resale"]]
    assert echoed == [0.0] * len(echoed)
    assert [math.copysign(1, value) for value in echoed] == [1.0] * len(echoed)
    assert len(app.extensions["breakeven"].answers) == 1  # one question, however spelt


# -- #17 readiness reads what the answers read -----------------------------------------------


@pytest.mark.parametrize("table", ["listings", "price_changes", "price_packs"])
def test_ready_fails_while_a_table_the_answers_read_is_away(  # type: ignore[no-untyped-def]
    database_url: str, tmp_path: Path, table: str
) -> None:
    settings = Settings(data_dir=tmp_path, database_url=database_url, catalog_check_seconds=0)
    app = create_app(settings)
    store = app.extensions["breakeven"].store
    try:
        store.record_run("custom", [offer(accelerator="rtx3090")], utcnow(), "test")
        client = app.test_client()
        assert client.get("/ready").status_code == 200
        with store.engine.begin() as conn:
            conn.execute(text(f"ALTER TABLE {table} RENAME TO {table}_x"))
        away = client.get("/ready")
        assert away.status_code == 503, away.get_data(as_text=True)
        assert away.json["type"].endswith(":database-unavailable")
        assert away.headers["Retry-After"]
        with store.engine.begin() as conn:
            conn.execute(text(f"ALTER TABLE {table}_x RENAME TO {table}"))
        assert client.get("/ready").status_code == 200
    finally:
        store.dispose()
