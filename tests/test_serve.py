"""`breakeven serve` as a user runs it: a real gunicorn on loopback, a fresh data dir."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from tests.servers import start_server, stop_server

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out


def test_serve_answers_breakeven_over_http(tmp_path: Path) -> None:
    server = start_server(tmp_path, workers=1)
    base = server.base
    try:
        response = requests.get(f"{base}/breakeven?detail=full&gpu=rtx3090&hours=500", timeout=10)
        assert response.status_code == 200
        assert response.json()["buy"]["gpu"] == "rtx3090"
        bad = requests.get(f"{base}/breakeven?detail=full&gpu=rtx3090&hours=-1", timeout=10)
        assert bad.status_code == 400
        assert bad.headers["Content-Type"] == "application/problem+json"
        assert (tmp_path / "breakeven.sqlite3").exists()
        # started quietly: gevent patched before ssl was imported (service/serve.py), and
        # no control socket in the home folder that every instance on the host would share
        log = server.log_text()
        assert "MonkeyPatchWarning" not in log and "Warning" not in log
        assert "Control socket" not in log
    finally:
        stop_server(server)
