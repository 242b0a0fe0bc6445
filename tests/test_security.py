"""Security rules: no stack traces or secrets in answers, bounded requests, headers, and SQL
only through SQLAlchemy parameters. (Admin tokens: tests/test_admin.py; secrets in logs:
the session-wide scan in tests/conftest.py.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECRET = "sk-live-do-not-leak-0123456789"


def test_an_internal_error_is_a_plain_500_problem_without_trace_or_message(app, client) -> None:  # type: ignore[no-untyped-def]
    catalog = app.extensions["breakeven"].catalog

    def explode():  # type: ignore[no-untyped-def]
        raise RuntimeError(f"database password is {SECRET}")

    catalog.table = explode
    response = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500")
    assert response.status_code == 500 and response.mimetype == "application/problem+json"
    text = response.get_data(as_text=True)
    assert SECRET not in text and "Traceback" not in text and "RuntimeError" not in text


def test_oversized_query_and_body_are_refused(client) -> None:  # type: ignore[no-untyped-def]
    long_query = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&region=" + "u" * 5000)
    assert long_query.status_code == 414 and long_query.mimetype == "application/problem+json"
    big_body = client.post("/refresh", data=b"x" * (65 * 1024))
    assert big_body.status_code == 413 and big_body.mimetype == "application/problem+json"


@pytest.mark.parametrize(
    "path", ["/", "/health", "/breakeven?detail=full&gpu=rtx3090&hours=500", "/nope"]
)
def test_every_answer_carries_the_security_headers(client, path: str) -> None:  # type: ignore[no-untyped-def]
    headers = client.get(path).headers
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"


def test_the_dashboard_allows_only_its_own_origin(client) -> None:  # type: ignore[no-untyped-def]
    policy = client.get("/").headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'self'" and directives["script-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"


def _sql_strings_built_at_runtime(path: Path) -> list[str]:
    """Calls of sqlalchemy text() or a DB-API execute() whose SQL is not a literal."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        sql = node.args[0]
        if name == "text" and not isinstance(sql, ast.Constant):
            found.append(f"{path.name}:{node.lineno} text({ast.unparse(sql)})")
        if name in {"execute", "exec_driver_sql"} and isinstance(sql, ast.JoinedStr | ast.BinOp):
            found.append(f"{path.name}:{node.lineno} {name}({ast.unparse(sql)})")
    return found


def test_sql_is_built_only_through_sqlalchemy_parameters() -> None:
    sources = [p for pkg in ("hardware", "pricing", "service") for p in (ROOT / pkg).rglob("*.py")]
    assert len(sources) > 30
    offenders = [hit for path in sources for hit in _sql_strings_built_at_runtime(path)]
    assert offenders == []


def test_the_sql_scan_does_catch_string_built_sql(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("conn.execute(f\"SELECT * FROM runs WHERE adapter = '{name}'\")\ntext(sql)\n")
    assert len(_sql_strings_built_at_runtime(bad)) == 2


@pytest.mark.parametrize(("trusted", "seen"), [(0, "10.0.0.2"), (1, "203.0.113.7")])
def test_a_client_is_named_by_x_forwarded_for_only_behind_a_trusted_proxy(
    settings, trusted: int, seen: str
) -> None:  # type: ignore[no-untyped-def]
    """Behind the compose stack's nginx (BREAKEVEN_WEB_TRUSTED_PROXIES=1) every connection
    is the proxy's: the per-client heavy-read slots (service/http/budget.py) must see the
    client it names. Without a trusted proxy the header is the client's own word, ignored."""
    from flask import request

    from service.http.app import create_app

    app = create_app(settings.model_copy(update={"web_trusted_proxies": trusted}))

    @app.get("/client-address")
    def client_address() -> dict[str, str | None]:
        return {"client": request.remote_addr}

    answer = app.test_client().get(
        "/client-address",
        headers={"X-Forwarded-For": "203.0.113.7"},
        environ_base={"REMOTE_ADDR": "10.0.0.2"},
    )
    assert answer.get_json() == {"client": seen}
