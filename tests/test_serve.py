"""`breakeven serve` as a user runs it: a real gunicorn on loopback, a fresh data dir."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

START_TIMEOUT_S = 60  # generous for a loaded CI machine; the budget itself is a benchmark


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serve_answers_breakeven_over_http(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "BREAKEVEN_DATA_DIR": str(tmp_path), "NO_PROXY": "127.0.0.1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "service", "serve", "--port", str(port), "--workers", "1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert server.poll() is None, server.stderr.read().decode()  # type: ignore[union-attr]
            try:
                if requests.get(f"{base}/health", timeout=1).ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.1)
        response = requests.get(f"{base}/breakeven?gpu=rtx3090&hours=500", timeout=10)
        assert response.status_code == 200
        assert response.json()["buy"]["gpu"] == "rtx3090"
        bad = requests.get(f"{base}/breakeven?gpu=rtx3090&hours=-1", timeout=10)
        assert bad.status_code == 400
        assert bad.headers["Content-Type"] == "application/problem+json"
        assert (tmp_path / "breakeven.sqlite3").exists()
    finally:
        server.terminate()
        server.wait(timeout=30)
