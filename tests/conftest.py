"""Shared fixtures: settings on a temp SQLite file, the app, a client, and PostgreSQL.

PostgreSQL tests run against the server on 127.0.0.1:5432 (BREAKEVEN_TEST_POSTGRES_URL);
each test session gets its own throwaway database. They fail, never skip, when it is down.
"""

from __future__ import annotations

import importlib
import logging
import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from playwright.sync_api import Browser, sync_playwright
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from hardware import Hardware, load_hardware
from pricing.store import Store
from service.http.app import create_app
from service.settings import Settings
from tests.servers import start_server, stop_server

POSTGRES_URL = os.environ.get(
    "BREAKEVEN_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@pytest.fixture(scope="session")
def hardware() -> Hardware:
    return load_hardware()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, catalog_check_seconds=0)


SQLITE_FILE = "breakeven.sqlite3"  # Settings' default database in data_dir


def default_sqlite_file(settings: Settings) -> Path | None:
    """The SQLite file ``settings`` uses by default, or None when it names another database."""
    path = settings.data_dir / SQLITE_FILE
    return path if settings.resolved_database_url() == f"sqlite:///{path}" else None


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file as a first ``create_app`` leaves it: migrated, the bundled snapshot loaded.

    Built once a session; the ``app`` fixture copies it instead of migrating and loading the
    2,484 bundled offers again for every test (about 0.2 s each).
    """
    with pytest.MonkeyPatch.context() as env:  # whatever the first test to ask has set
        for name in [name for name in os.environ if name.startswith("BREAKEVEN_")]:
            env.delenv(name)
        settings = Settings(data_dir=tmp_path_factory.mktemp("migrated"), catalog_check_seconds=0)
        path = default_sqlite_file(settings)
        assert path is not None, settings.resolved_database_url()
        create_app(settings).extensions["breakeven"].store.dispose()
    # One self-contained file: the WAL folded in, no -wal or -shm left to copy or to miss.
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    leftovers = [path.with_name(path.name + end) for end in ("-wal", "-shm")]
    assert not any(p.exists() for p in leftovers), leftovers
    return path


@pytest.fixture
def app(settings: Settings, migrated_sqlite: Path):  # type: ignore[no-untyped-def]
    # A test that points settings at another database, or prepared the file itself, gets
    # create_app's own first start; every other starts from the migrated copy.
    target = default_sqlite_file(settings)
    if target is not None and target.parent.is_dir() and not target.exists():
        shutil.copyfile(migrated_sqlite, target)
    app = create_app(settings)
    app.config["TESTING"] = True
    yield app
    app.extensions["breakeven"].store.dispose()


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh database on the local server for this session, dropped afterwards."""
    url = make_url(POSTGRES_URL)
    name = f"breakeven_test_{uuid.uuid4().hex[:10]}"
    admin = url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Both backends the store supports; PostgreSQL tables are emptied per test."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite3'}"
        return
    url = request.getfixturevalue("postgres_url")
    yield url
    reset_postgres(url)


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    """A migrated store on each backend."""
    store = Store(database_url)
    store.create_schema()
    yield store
    store.dispose()


def reset_postgres(url: str) -> None:
    """Drop everything, Alembic's version table included, so the next test migrates anew."""
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(autouse=True)
def _no_real_cloud_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test may find a developer's cloud credentials or ask an instance metadata service."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    # AWS's public spot and Savings Plans files need no credentials: unless a test serves
    # them, point them at a closed local port (discard, 9), so no AWS refresh in a test
    # reaches the internet.
    monkeypatch.setenv("BREAKEVEN_AWS_SPOT_PRICES_URL", "http://127.0.0.1:9/spot.json")
    monkeypatch.setenv("BREAKEVEN_AWS_SPOT_ADVISOR_URL", "http://127.0.0.1:9/advisor.json")
    monkeypatch.setenv("BREAKEVEN_AWS_SAVINGS_PLANS_URL", "http://127.0.0.1:9/region_index.json")
    # Voltage Park's, Oracle's, Verda's and Hyperbolic's public lists likewise: refreshed by
    # default, no key.
    monkeypatch.setenv("BREAKEVEN_VOLTAGEPARK_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("BREAKEVEN_OCI_PRICES_URL", "http://127.0.0.1:9/products/")
    monkeypatch.setenv("BREAKEVEN_VERDA_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("BREAKEVEN_HYPERBOLIC_URL", "http://127.0.0.1:9")
    # The ECB's rates likewise: a scheduler a test starts runs the rates job too.
    monkeypatch.setenv("BREAKEVEN_ECB_RATES_URL", "http://127.0.0.1:9/eurofxref-hist-90d.xml")
    # Azure's eviction bands need credentials a developer may have set: none in a test
    # unless it gives them, and the endpoints on the closed port.
    for name in ("TENANT_ID", "CLIENT_ID", "CLIENT_SECRET"):
        monkeypatch.delenv(f"BREAKEVEN_AZURE_{name}", raising=False)
    monkeypatch.setenv("BREAKEVEN_AZURE_LOGIN_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("BREAKEVEN_AZURE_RESOURCE_GRAPH_URL", "http://127.0.0.1:9/graph")
    # Google: no Application Default Credentials and never probe the GCE metadata server.
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "no-gcp-credentials"))
    monkeypatch.setenv("NO_GCE_CHECK", "True")
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "no-gcloud"))


# -- a real server and a browser, for the tests that drive them ---------------------------

CHROMIUM = os.environ.get("BREAKEVEN_CHROMIUM", "/usr/bin/chromium")  # `make test` installs it
# Flags for a sandboxed root CI machine with no network: no first-run or background traffic.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `breakeven serve` (gunicorn, one worker) for the module's tests."""
    server = start_server(tmp_path_factory.mktemp("served"), workers=1)
    yield server.base
    stop_server(server)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


# -- secrets never reach the logs ------------------------------------------------------------
# Every log record of the whole run, at INFO and above (the level a deployment runs at),
# is kept and scanned at the end for the admin tokens and cloud credentials the tests use.
# Each is imported by name, so a run of any subset scans for all of them.
SECRET_SOURCES = [
    ("tests.test_admin", "TOKEN"),
    ("tests.test_deployment", "TOKEN"),
    ("tests.test_hostile_server", "TOKEN"),
    ("tests.test_load_faults", "TOKEN"),
    ("tests.test_aws", "AWS_SECRET"),
    ("tests.fakes.azure", "API_KEY"),
    ("tests.fakes.azure", "ACCESS_TOKEN"),
    ("tests.fakes.gcp", "API_KEY"),
    ("tests.fakes.lambda_cloud", "API_KEY"),
    ("tests.fakes.runpod", "API_KEY"),
    ("tests.fakes.vast", "API_KEY"),
]
_records: list[str] = []


def scanned_secrets() -> list[str]:
    """SECRET_SOURCES' values, each module imported whether or not this run collected it."""
    secrets = [getattr(importlib.import_module(m), name) for m, name in SECRET_SOURCES]
    assert all(isinstance(s, str) and len(s) >= 8 for s in secrets), secrets  # "" matches all
    return secrets


class _KeepRecords(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        _records.append(self.format(record))


def pytest_configure(config: pytest.Config) -> None:
    handler = _KeepRecords(level=logging.INFO)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(min(root.level, logging.INFO))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    secrets = scanned_secrets()
    leaks = [line for line in _records for secret in secrets if secret in line]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(
            f"log scan: {len(_records)} log records checked for {len(secrets)} secrets, "
            f"{len(leaks)} leaks"
        )
    if leaks:
        if reporter is not None:
            for line in leaks[:5]:
                reporter.write_line(f"SECRET IN LOG: {line[:200]}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
