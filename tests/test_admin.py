"""POST /refresh: off without a token, refused with a wrong one, never leaks it."""

from __future__ import annotations

import logging
import time

import pytest
from pydantic import SecretStr

from service.http.app import create_app

TOKEN = "s3cr3t-admin-token-for-tests"


@pytest.fixture
def admin_client(settings):  # type: ignore[no-untyped-def]
    app = create_app(settings.model_copy(update={"admin_token": SecretStr(TOKEN)}))
    yield app.test_client()
    app.extensions["breakeven"].store.dispose()


def test_without_a_configured_token_admin_is_disabled(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/refresh", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 403
    assert response.get_json()["type"].endswith("admin-disabled")


@pytest.mark.parametrize(
    "header",
    [None, "Bearer", "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}"],
)
def test_missing_or_wrong_tokens_are_refused(admin_client, header) -> None:  # type: ignore[no-untyped-def]
    headers = {"Authorization": header} if header else {}
    response = admin_client.post("/refresh?provider=bundled&wait=true", headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert response.mimetype == "application/problem+json"


def test_right_token_refreshes_and_waits(admin_client) -> None:  # type: ignore[no-untyped-def]
    auth = {"Authorization": f"Bearer {TOKEN}"}
    before = admin_client.get("/providers").get_json()["providers"][0]["current_run"]["id"]
    response = admin_client.post("/refresh?provider=bundled&wait=true&force=true", headers=auth)
    assert response.status_code == 200
    (result,) = response.get_json()["results"]
    assert result["provider"] == "bundled" and result["status"] == "ok"
    after = admin_client.get("/providers").get_json()["providers"][0]["current_run"]["id"]
    assert after > before


def test_background_refresh_returns_202_and_lands(admin_client) -> None:  # type: ignore[no-untyped-def]
    auth = {"Authorization": f"Bearer {TOKEN}"}
    before = admin_client.get("/providers").get_json()["providers"][0]["current_run"]["id"]
    response = admin_client.post("/refresh?provider=bundled", headers=auth)
    assert response.status_code == 202 and response.get_json()["providers"] == ["bundled"]
    deadline = time.monotonic() + 10
    while admin_client.get("/providers").get_json()["providers"][0]["current_run"]["id"] == before:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_unknown_provider_is_404(admin_client) -> None:  # type: ignore[no-untyped-def]
    response = admin_client.post(
        "/refresh?provider=nowhere", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert response.status_code == 404 and "known:" in response.get_json()["detail"]


def test_the_token_never_reaches_logs_or_answers(admin_client, caplog, capsys) -> None:  # type: ignore[no-untyped-def]
    caplog.set_level(logging.DEBUG)
    bodies = []
    for header in (f"Bearer {TOKEN}", f"Bearer {TOKEN}-wrong", TOKEN):
        response = admin_client.post(
            "/refresh?provider=bundled&wait=true&force=true", headers={"Authorization": header}
        )
        bodies.append(response.get_data(as_text=True))
    captured = capsys.readouterr()
    for text in (caplog.text, captured.out, captured.err, *bodies):
        assert TOKEN not in text
