"""Refresh runs: deadlines, refusals, forcing, retention, and the schema they write into."""

from __future__ import annotations

import threading
from datetime import timedelta

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from click.testing import CliRunner

from pricing.adapters import Batch
from pricing.refresh import RefreshPolicy, run_adapter
from pricing.store import Store, metadata, utcnow
from service.cli import cli
from tests.helpers import offer, runs_of
from tests.test_migrations import HEAD


class Static:
    def __init__(self, name: str, offers: list) -> None:  # type: ignore[type-arg]
        self.name = name
        self.offers = offers

    def fetch(self) -> Batch:
        return Batch(self.offers, "static")


def test_migrations_build_exactly_the_schema_the_code_uses(store: Store) -> None:
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []


def test_upgrading_twice_is_harmless(store: Store) -> None:
    store.create_schema()
    store.record_run("aws", [offer(provider="aws")], utcnow())
    assert len(store.current_offers()) == 1


def test_a_provider_that_hangs_fails_at_the_deadline(store: Store) -> None:
    release = threading.Event()

    class Hung:
        name = "lambda"

        def fetch(self) -> Batch:
            release.wait(10)
            return Batch([offer()])

    result = run_adapter(store, Hung(), RefreshPolicy(timeout_seconds=0.2))
    release.set()
    assert result.status == "failed" and "timed out after 0.2 s" in result.error
    assert store.provider_status()[0].current is None


def test_a_refused_run_is_kept_as_failed_and_force_accepts_it(store: Store) -> None:
    full = [offer(provider="aws", product=f"p{i}") for i in range(10)]
    assert run_adapter(store, Static("aws", full)).status == "ok"
    shrunk = Static("aws", full[:2])
    refused = run_adapter(store, shrunk)
    assert refused.status == "failed" and "refused: would drop 8 of 10" in refused.error
    assert len(store.current_offers("aws")) == 10
    assert run_adapter(store, shrunk, force=True).status == "ok"
    assert len(store.current_offers("aws")) == 2


def test_runs_past_the_retention_are_pruned_but_never_the_current(store: Store) -> None:
    for price in (1.0, 2.0, 3.0):
        store.record_run("aws", [offer(provider="aws", usd_per_hour=price)], utcnow())
    current = store.current_runs()["aws"]
    assert store.prune("aws", keep_after=utcnow() + timedelta(days=1)) == 2
    assert [r.id for r in runs_of(store, "aws")] == [current.id]
    assert store.prune("aws", keep_after=utcnow() + timedelta(days=1)) == 0


def test_runs_record_which_process_ran_them(store: Store) -> None:
    run = store.record_run("aws", [], utcnow())
    assert ":" in run.worker and runs_of(store, "aws")[0].worker == run.worker


def test_db_upgrade_command(settings) -> None:  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(
        cli, ["db", "upgrade"], env={"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    )
    assert result.exit_code == 0 and f"schema at revision {HEAD}" in result.output


class _Overtaken:
    """A slow fetch: while it reads the provider, another refresh of the same source (a
    frozen scheduler's, one outside every lock) starts later and lands first."""

    name = "slow"

    def __init__(self, store: Store) -> None:
        self.store = store

    def fetch(self) -> Batch:
        self.store.record_run(self.name, [offer(provider="slow", usd_per_hour=2.0)], utcnow())
        return Batch([offer(provider="slow", usd_per_hour=1.0)], "older")


def test_a_run_started_before_the_current_one_is_never_made_current(store: Store) -> None:
    result = run_adapter(store, _Overtaken(store))
    assert result.status == "failed"
    assert "RunSuperseded" in result.error and "older prices are not made current" in result.error
    ok, failed = runs_of(store, "slow")
    assert (ok.status, failed.status) == ("ok", "failed") and failed.started_at < ok.started_at
    assert store.current_runs()["slow"].id == ok.id
    assert [o.offer.usd_per_hour for o in store.current_offers("slow")] == [2.0]


def test_two_processes_loading_one_snapshot_both_land(store: Store) -> None:
    """The web replicas and the scheduler start together and each loads the new bundled
    snapshot: the one that started first and lands last reads the same source version, so
    it is no older price and lands too (RunSuperseded had crashed every process but one)."""
    earlier = utcnow()
    store.record_run("bundled", [offer(provider="aws", usd_per_hour=2.0)], utcnow(), "sha256:1")
    late = store.record_run(
        "bundled", [offer(provider="aws", usd_per_hour=2.0)], earlier, "sha256:1"
    )
    assert late.status == "ok" and store.current_runs()["bundled"].id == late.id
