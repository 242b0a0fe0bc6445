"""The compose stack's proxy (deploy/nginx.conf) as shipped, its upstream pointed at a real
`breakeven serve`: `nginx -t` accepts it, and behind it /health keeps its budget while 20
addresses hold thousands of idle sockets and half-sent bodies. The replicas behind it believe
its X-Forwarded-For (BREAKEVEN_WEB_TRUSTED_PROXIES=1) and cap no address of their own."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from bench.flood import Flood, addresses, health_under
from tests.servers import Server, free_port, start_server, stop_server

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "nginx.conf"
UPSTREAM, LISTEN = "server web:8000;", "listen 8080;"
FLOOD_SECONDS = 20
P99_BUDGET_S = 0.25


def _nginx() -> str:
    found = os.environ.get("BREAKEVEN_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
    assert Path(found).exists(), "nginx not found: `make test` installs Debian's nginx-light"
    return found


def _config(folder: Path, upstream_port: int, port: int) -> Path:
    """deploy/nginx.conf with only its upstream and its port moved onto the loopback."""
    shipped = CONFIG.read_text()
    assert shipped.count(UPSTREAM) == 1 and shipped.count(LISTEN) == 1
    local = shipped.replace(UPSTREAM, f"server 127.0.0.1:{upstream_port};").replace(
        LISTEN, f"listen 127.0.0.1:{port};"
    )
    path = folder / "nginx.conf"
    path.write_text(local)
    return path


def _command(folder: Path, config: Path, *args: str) -> list[str]:
    main = f"pid {folder / 'nginx.pid'}; daemon off;"
    where = ["-p", str(folder), "-e", str(folder / "error.log"), "-c", str(config)]
    return [_nginx(), *where, "-g", main, *args]


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(
        tmp_path_factory.mktemp("behind-proxy"),
        BREAKEVEN_WEB_CONNECTIONS_PER_CLIENT="0",
        BREAKEVEN_WEB_TRUSTED_PROXIES="1",
        BREAKEVEN_WEB_KEEPALIVE_SECONDS="2",
    )
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def proxy(upstream: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("nginx")
    port = free_port()
    config = _config(folder, int(upstream.base.rsplit(":", 1)[1]), port)
    checked = subprocess.run(_command(folder, config, "-t"), capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    log = (folder / "nginx.out").open("w")
    process = subprocess.Popen(_command(folder, config), stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        assert process.poll() is None, (folder / "error.log").read_text()
        try:
            if requests.get(base + "/health", timeout=1).ok:
                break
        except requests.RequestException:
            pass
        assert time.monotonic() < deadline, "nginx did not start"
        time.sleep(0.1)
    yield base
    process.send_signal(signal.SIGQUIT)  # nginx's graceful stop
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    log.close()


def test_the_shipped_config_passes_nginx_t(tmp_path: Path) -> None:
    config = _config(tmp_path, free_port(), free_port())
    checked = subprocess.run(_command(tmp_path, config, "-t"), capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    assert "syntax is ok" in checked.stderr and "test is successful" in checked.stderr


def test_health_keeps_its_budget_behind_the_proxy_under_a_slow_socket_flood(
    proxy: str, upstream: Server
) -> None:
    port = int(proxy.rsplit(":", 1)[1])
    sources = addresses(20)
    flood = Flood(port, sources, idle=2_000, half_sent=2_000)
    flood.fill()
    try:
        probed = health_under(proxy, flood, FLOOD_SECONDS)
    finally:
        flood.close()
    p99 = probed.quantile(0.99)
    print(
        f"behind nginx: 2,000 idle and 2,000 half-sent from {len(sources)} addresses, "
        f"{flood.opened:,} opened; {probed.said()}"
    )
    assert probed.failures == []
    assert p99 < P99_BUDGET_S, p99
    # nginx read no half-sent body to its end, so none reached a worker: no 408 there
    assert " 408 " not in upstream.log_text()
