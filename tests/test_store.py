"""The store on SQLite and on the real PostgreSQL: runs are atomic and current when complete."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError

from pricing.errors import StoreError
from pricing.offer import BUNDLED
from pricing.refresh import run_adapter
from pricing.snapshot import ensure_snapshot
from pricing.store import Store, price_changes, runs, utcnow
from tests.helpers import count_rows, offer, runs_of


def test_a_run_becomes_current_and_replaces_the_previous(store: Store) -> None:
    store.record_run("aws", [offer(provider="aws", usd_per_hour=3.0)], utcnow())
    second = store.record_run("aws", [offer(provider="aws", usd_per_hour=2.0)] * 2, utcnow())
    current = store.current_offers()
    assert [s.offer.usd_per_hour for s in current] == [2.0, 2.0]
    assert {s.run_id for s in current} == {second.id}
    assert store.catalog_version() == second.id
    # the older run stays as history
    assert [r.row_count for r in runs_of(store, "aws")] == [1, 2]


def test_offer_fields_round_trip(store: Store) -> None:
    original = offer(
        provider="gcp", zone="us-central1-a", memory_gb=40.0, host_included=False, notes="n"
    )
    store.record_run("gcp", [original], utcnow())
    (back,) = store.current_offers()
    assert back.offer == original
    assert back.fetched_at.tzinfo is not None


def test_a_failure_mid_write_leaves_nothing_and_the_previous_run_serving(store: Store) -> None:
    store.record_run("aws", [offer(provider="aws")], utcnow())
    runs_before, changes_before = count_rows(store, runs), count_rows(store, price_changes)
    broken = offer(provider="aws", product=None)  # NOT NULL violation on the second row
    with pytest.raises(StoreError) as refused:  # the store's error, the driver's as cause
        store.record_run("aws", [offer(provider="aws"), broken], utcnow())
    assert isinstance(refused.value.__cause__, IntegrityError)
    assert (count_rows(store, runs), count_rows(store, price_changes)) == (
        runs_before,
        changes_before,
    )
    assert len(store.current_offers()) == 1


def test_failed_runs_are_kept_but_never_current(store: Store) -> None:
    ok = store.record_run("aws", [offer(provider="aws")], utcnow())
    store.record_failure("aws", utcnow(), "ConnectionError: refused")
    (status,) = store.provider_status()
    assert status.current is not None and status.current.id == ok.id
    assert status.last_attempt.status == "failed"
    assert status.last_error == "ConnectionError: refused"
    assert store.catalog_version() == ok.id


def test_one_providers_run_never_touches_another(store: Store) -> None:
    store.record_run("aws", [offer(provider="aws")], utcnow())
    store.record_run("gcp", [offer(provider="gcp")], utcnow())
    store.record_failure("gcp", utcnow(), "boom")
    assert sorted(s.offer.provider for s in store.current_offers()) == ["aws", "gcp"]


def test_bundled_rows_stand_in_only_for_clouds_without_a_live_run(store: Store) -> None:
    store.record_run(BUNDLED, [offer(provider="aws"), offer(provider="gcp")], utcnow())
    assert sorted(s.offer.provider for s in store.current_offers()) == ["aws", "gcp"]
    store.record_run("aws", [offer(provider="aws", usd_per_hour=9.0)], utcnow())
    served = {(s.offer.provider, s.offer.usd_per_hour) for s in store.current_offers()}
    assert served == {("aws", 9.0), ("gcp", 1.0)}


def test_snapshot_loads_once_and_again_only_when_it_changes(store: Store, hardware) -> None:  # type: ignore[no-untyped-def]
    resolve = hardware.registry.canonical
    assert ensure_snapshot(store, resolve) is True
    assert ensure_snapshot(store, resolve) is False
    assert len(runs_of(store, BUNDLED)) == 1
    assert len(store.current_offers()) > 30


def test_an_adapter_that_raises_is_recorded_failed(store: Store) -> None:
    class Broken:
        name = "lambda"

        def fetch(self):  # type: ignore[no-untyped-def]
            raise TimeoutError("read timed out")

    result = run_adapter(store, Broken())
    assert result.status == "failed"
    (status,) = store.provider_status()
    assert "read timed out" in status.last_error and status.current is None


def test_sanity_checks_drop_impossible_prices(store: Store) -> None:
    class Odd:
        name = "azure"

        def fetch(self):  # type: ignore[no-untyped-def]
            from pricing.adapters import Batch

            prices = [1.0, 0.0, -2.0, float("nan"), float("inf")]
            return Batch([offer(provider="azure", usd_per_hour=p) for p in prices])

    result = run_adapter(store, Odd())
    assert (result.status, result.row_count, result.dropped) == ("ok", 1, 4)


def test_the_catalog_of_a_past_moment_on_both_backends(store: Store) -> None:
    """Each source's last ok run by the moment: before the first, between two, after a
    failed one; the other source's runs keep their own times."""
    import time

    first = store.record_run("aws", [offer(provider="aws", usd_per_hour=1.0)], utcnow())
    time.sleep(0.02)
    gcp = store.record_run("gcp", [offer(provider="gcp", product="g", usd_per_hour=5.0)], utcnow())
    time.sleep(0.02)
    second = store.record_run("aws", [offer(provider="aws", usd_per_hour=2.0)], utcnow())
    time.sleep(0.02)
    failed = store.record_failure("aws", utcnow(), "broke")

    def prices(at):  # type: ignore[no-untyped-def]
        return sorted(s.offer.usd_per_hour for s in store.current_offers(at=at))

    assert store.current_offers(at=first.finished_at - (gcp.finished_at - first.finished_at)) == []
    assert prices(first.finished_at) == [1.0]
    assert prices(gcp.finished_at) == [1.0, 5.0]
    assert prices(second.finished_at) == [2.0, 5.0]
    assert prices(failed.finished_at) == [2.0, 5.0] == prices(None)
    assert store.first_run_finished() == first.finished_at
