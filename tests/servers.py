"""A real `breakeven serve` for the tests that need one: gunicorn, its workers, its log."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from service.http.server import WORKER_READY

START_TIMEOUT_S = 60  # a loaded 2-core machine starts gunicorn in a few seconds
STOP_TIMEOUT_S = 40  # gunicorn's graceful stop may wait 30 s for a worker still booting


@dataclass
class Server:
    base: str
    process: subprocess.Popen[bytes]
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data_dir: Path, workers: int = 2, **env: str) -> Server:
    """`breakeven serve` on a free port, its log in ``data_dir``; returns once every worker
    has booted with its catalog in memory and the server answers."""
    port = free_port()
    log = data_dir / "server.log"
    environment = {
        **os.environ,
        "BREAKEVEN_DATA_DIR": str(data_dir),
        "NO_PROXY": "127.0.0.1",
        **env,
    }
    command = [sys.executable, "-m", "service", "serve", "--port", str(port)]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [*command, "--workers", str(workers)],
            env=environment,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    server = Server(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:  # every worker booted with its catalog in memory, and answering
        assert process.poll() is None, server.log_text()
        try:
            ready = server.log_text().count(WORKER_READY) >= workers
            if ready and requests.get(f"{server.base}/health", timeout=1).ok:
                return server
        except requests.RequestException:  # not listening yet
            pass
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.1)


def stop_server(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
