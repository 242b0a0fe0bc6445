"""Scale-out: compose and Dockerfile as far as this machine can check them (no Docker
engine here), and the real thing on PostgreSQL: two web instances and two schedulers on one
database."""

from __future__ import annotations

import itertools
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest
import requests
import yaml

from pricing.store import Store
from service.settings import Settings
from tests.helpers import runs_of

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "scale-out-test-token"


def _setting_names() -> set[str]:
    return {f"BREAKEVEN_{name.upper()}" for name in Settings.model_fields}


def test_compose_services_commands_and_healthchecks() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "migrate", "web", "proxy", "scheduler"}
    assert services["migrate"]["command"] == ["breakeven", "db", "upgrade"]
    assert services["web"]["command"] == ["breakeven", "serve"]
    assert services["scheduler"]["command"] == ["breakeven", "scheduler"]
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    assert "/health" in " ".join(services["web"]["healthcheck"]["test"])
    assert "ports" not in services["web"]  # scalable: --scale web=N must not clash on a port
    for name in ("web", "scheduler"):
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "pgdata" in compose["volumes"]
    # the buffering proxy in front, with the config tests/test_proxy.py runs
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:")
    assert proxy["volumes"] == ["./deploy/nginx.conf:/etc/nginx/nginx.conf:ro"]
    assert proxy["depends_on"]["web"]["condition"] == "service_healthy"
    web = services["web"]["environment"]
    assert web["BREAKEVEN_WEB_TRUSTED_PROXIES"] == "1"
    assert web["BREAKEVEN_WEB_CONNECTIONS_PER_CLIENT"] == "0"  # nginx caps each client


def test_every_environment_name_is_a_setting_the_code_reads() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    names = {
        key
        for service in compose["services"].values()
        for key in service.get("environment", {})
        if key.startswith("BREAKEVEN_")
    }
    example = (ROOT / ".env.example").read_text()
    names |= set(re.findall(r"^(BREAKEVEN_\w+)=", example, flags=re.MULTILINE))
    dockerfile = (ROOT / "Dockerfile").read_text()
    names |= set(re.findall(r"(BREAKEVEN_\w+)=", dockerfile))
    assert names and names <= _setting_names(), names - _setting_names()
    assert "BREAKEVEN_DATABASE_URL" in names


def test_dockerfile_is_slim_non_root_and_checks_health() -> None:
    text = (ROOT / "Dockerfile").read_text()
    stages = re.split(r"^FROM ", text, flags=re.MULTILINE)[1:]
    assert len(stages) == 2 and all(s.startswith("python:3.11-slim") for s in stages)
    final = stages[-1]
    assert re.search(r"^USER (?!root)\w+", final, flags=re.MULTILINE)
    assert "apt-get" not in final and "gcc" not in final  # no build tools in the final image
    assert "HEALTHCHECK" in final and "/health" in final
    assert 'CMD ["breakeven", "serve"]' in final


def test_readme_says_how_to_run_the_team_deployment() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "docker compose up" in readme and "--scale web=" in readme


# -- two web instances and two schedulers on the real PostgreSQL ----------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(condition: Callable[[], object], seconds: float, what: str) -> object:
    deadline = time.monotonic() + seconds
    while True:
        try:
            value = condition()
        except (requests.ConnectionError, requests.Timeout):
            value = None  # not listening yet, or too busy starting to answer within 1 s
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {seconds}s waiting for {what}"
        time.sleep(0.1)


@pytest.fixture
def cluster(postgres_url: str, tmp_path: Path) -> Iterator[dict]:  # type: ignore[type-arg]
    from tests.conftest import reset_postgres

    reset_postgres(postgres_url)
    env = {
        **os.environ,
        "BREAKEVEN_DATA_DIR": str(tmp_path),
        "BREAKEVEN_DATABASE_URL": postgres_url,
        "BREAKEVEN_ADMIN_TOKEN": TOKEN,
        "BREAKEVEN_CATALOG_CHECK_SECONDS": "1",
        "BREAKEVEN_REFRESH_CRON": "*/2 * * * * *",
        "BREAKEVEN_REFRESH_JITTER_SECONDS": "0",
        "BREAKEVEN_REFRESH_PROVIDERS": "colab",
        "BREAKEVEN_SCHEDULER_POLL_SECONDS": "0.5",
        # a worker still finishing a request may otherwise hold the stop for gunicorn's 30 s
        "BREAKEVEN_WEB_GRACEFUL_TIMEOUT_SECONDS": "5",
        "NO_PROXY": "127.0.0.1",
    }
    logs: list[IO[bytes]] = []

    def start(*args: str) -> subprocess.Popen:  # type: ignore[type-arg]
        log = (tmp_path / f"{args[0]}-{len(logs)}.log").open("wb")
        logs.append(log)
        return subprocess.Popen(
            [sys.executable, "-m", "service", *args], env=env, stdout=log, stderr=log
        )

    ports = [_free_port(), _free_port()]
    processes = [start("serve", "--port", str(port), "--workers", "2") for port in ports]
    schedulers = [start("scheduler") for _ in range(2)]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    # stopped however the setup ends: a cluster left running after a failed start would hold
    # the scheduler role on the shared database and stall the next test's schedulers
    store = Store(postgres_url)
    try:
        for url in urls:
            _wait(lambda u=url: requests.get(f"{u}/health", timeout=1).ok, 60, f"{url} to start")
        yield {"urls": urls, "schedulers": schedulers, "store": store}
    finally:
        store.dispose()
        for process in [*processes, *schedulers]:
            process.send_signal(signal.SIGTERM)
        for process in [*processes, *schedulers]:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                # reaped here, not by the garbage collector in some later test (CI's stop 61:
                # "subprocess ... is still running" raised in the next test's setup)
                process.wait(timeout=20)
        for log in logs:
            log.close()
        reset_postgres(postgres_url)


def test_a_refresh_through_one_instance_is_served_by_both(cluster) -> None:  # type: ignore[no-untyped-def]
    first, second = cluster["urls"]
    answer = requests.post(
        f"{first}/refresh?provider=bundled&force=true&wait=true",
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=30,
    )
    assert answer.status_code == 200 and answer.json()["results"][0]["status"] == "ok"
    new_run = cluster["store"].current_runs()["bundled"].id
    started = time.monotonic()

    def serves_new_run(url: str) -> bool:
        offers = requests.get(f"{url}/offers?provider=aws", timeout=5).json()["offers"]
        return bool(offers) and all(o["run_id"] == new_run for o in offers)

    for url in (first, second):
        _wait(lambda u=url: serves_new_run(u), 5 - (time.monotonic() - started), f"{url} to see it")


def test_two_schedulers_one_refresh_per_tick(cluster) -> None:  # type: ignore[no-untyped-def]
    store: Store = cluster["store"]
    _wait(lambda: len(runs_of(store, "colab")) >= 4, 30, "four scheduled ticks")
    runs = runs_of(store, "colab")
    pids = {run.worker.rsplit(":", 1)[1] for run in runs}
    scheduler_pids = {str(p.pid) for p in cluster["schedulers"]}
    assert len(pids) == 1 and pids <= scheduler_pids, (pids, scheduler_pids)
    starts = [run.started_at for run in runs]
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(starts)]
    assert min(gaps) > 1, f"two refreshes in one tick: {gaps}"
