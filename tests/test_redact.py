"""A source's failure, shown: no credentials and no query values anywhere, and for callers
with no token only its kind (issue 58, the fault round's H2-2: a password in a source URL was
on the public /providers and in the CLI's output)."""

from __future__ import annotations

import logging

import pytest
from click.testing import CliRunner

from pricing.redact import public_error, redact
from service.cli import cli
from service.http.app import create_app
from service.settings import Settings

SECRET = "PWINURL_hostile"


@pytest.mark.parametrize(
    ("text", "shown", "hidden"),
    [
        ("GET http://u:pw1@10.0.0.7:9/a?key=k1&x=1: ConnectionError", "http://…@10.0.0.7", "pw1"),
        ("url: /v1/prices?api_key=k2 (Caused by ...)", "?api_key=…", "k2"),
        ("GET https://tok3@host/x: HTTP 503", "https://…@host", "tok3"),
        ("refused: a run losing 60 % of its offers", "60 %", "…"),
    ],
)
def test_redact_masks_userinfo_and_query_values(text: str, shown: str, hidden: str) -> None:
    masked = redact(text)
    assert shown in masked and hidden not in masked


def test_the_public_error_is_a_kind_and_a_class() -> None:
    said = public_error("AdapterError: GET http://10.0.0.7:9/a: HTTP 503 Service Unavailable")
    assert said == "AdapterError: HTTP 503 (details in the server's log)"
    gone = "AdapterError: GET http://db.internal:5432/x: ConnectionError: refused"
    assert public_error(gone) == "AdapterError: could not connect (details in the server's log)"
    assert public_error("") == ""


def test_a_password_in_a_source_url_is_never_shown(settings: Settings, caplog) -> None:  # type: ignore[no-untyped-def]
    """`BREAKEVEN_LAMBDA_URL=http://u:<password>@127.0.0.1:9` (a closed port): the refresh
    fails, and the password is in none of the CLI's output, the log and /providers, which
    names no host either."""
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_LAMBDA_URL": f"http://u:{SECRET}@127.0.0.1:9",
        "BREAKEVEN_LAMBDA_API_KEY": "lambda-key-not-shown",
        "BREAKEVEN_HTTP_RETRIES": "0",
    }
    with caplog.at_level(logging.INFO):
        result = CliRunner().invoke(cli, ["refresh", "--provider", "lambda", "--wide"], env=env)
    assert result.exit_code == 1 and "lambda: failed" in result.output
    assert SECRET not in result.output and "…@127.0.0.1" in result.output
    assert all(SECRET not in record.getMessage() for record in caplog.records)
    app = create_app(settings)
    (lam,) = [
        p
        for p in app.test_client().get("/providers").get_json()["providers"]
        if p["name"] == "lambda"
    ]
    assert lam["status"] == "failed" and SECRET not in lam["last_error"]
    assert "127.0.0.1" not in lam["last_error"] and "could not connect" in lam["last_error"]
    app.extensions["breakeven"].store.dispose()


@pytest.mark.system  # a real server's access log
def test_a_token_in_the_query_string_never_reaches_the_access_log(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The fault round's H2-3: `POST /refresh?token=...` is refused, and was written to the
    access log whole. Now its value is masked; the rest of a request line stays readable."""
    import requests

    from tests.servers import start_server, stop_server

    server = start_server(tmp_path, workers=1, BREAKEVEN_ADMIN_TOKEN="the-real-admin-token")
    try:
        refused = requests.post(f"{server.base}/refresh?token=AdminTok_hostile_0123", timeout=10)
        asked = requests.get(
            f"{server.base}/breakeven?gpu=rtx3090&hours=5&api_key=ApiKeyValue42", timeout=10
        )
        assert refused.status_code in (401, 403) and asked.status_code in (200, 400)
    finally:
        stop_server(server)
    log = server.log_text()
    assert "AdminTok_hostile_0123" not in log and "ApiKeyValue42" not in log
    assert "/refresh?token=\N{HORIZONTAL ELLIPSIS}" in log
    assert "/breakeven?gpu=rtx3090&hours=5&api_key=\N{HORIZONTAL ELLIPSIS}" in log


def test_a_store_outage_is_one_warning_line_a_minute(
    settings: Settings, caplog, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Issue 58, H2-4: while PostgreSQL was down every 503 logged its line (786 KB in 16 s
    with the tracebacks): now one WARNING a minute per worker, saying how many it held back,
    the rest at DEBUG; every request still gets its 503."""
    from pricing.errors import StoreUnavailable
    from service.http.routes import health
    from service.http.throttle import LineThrottle

    now = [1000.0]
    monkeypatch.setattr(health, "_OUTAGE_LINES", LineThrottle(clock=lambda: now[0]))
    app = create_app(settings)
    store = app.extensions["breakeven"].store

    def away() -> None:
        raise StoreUnavailable(OSError("connection refused"))

    monkeypatch.setattr(store, "check_readable", away)
    client = app.test_client()
    with caplog.at_level(logging.DEBUG, logger=health.log.name):
        statuses = [client.get("/ready").status_code for _ in range(5)]
        now[0] += 61  # a minute on: the next line says what it held back
        statuses.append(client.get("/ready").status_code)
    assert statuses == [503] * 6
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and "(and 4 more 503s since the last line)" in warnings[1]
    assert sum(r.levelno == logging.DEBUG for r in caplog.records) == 4
