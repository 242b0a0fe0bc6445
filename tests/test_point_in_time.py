"""The catalog as it was: `at=` answers from each source's last ok run by that moment,
before the first run (refused), between two runs, and after a failed one (unchanged)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import numpy as np
import pytest

from pricing.offer import Offer, PricingModel
from pricing.store import utcnow
from service.engine.offer_table import OfferTable
from service.http.app import create_app
from service.settings import Settings

PRODUCT = "pit-1x3090"


def _offer(usd: float) -> Offer:
    return Offer(
        provider="custom",
        product=PRODUCT,
        region="us-test-1",
        accelerator="rtx3090",
        count=1,
        pricing=PricingModel.ON_DEMAND,
        usd_per_hour=usd,
        price_as_of="2026-11-30",
        source="test",
    )


def _iso(moment: datetime) -> str:
    return quote(moment.isoformat())


@pytest.fixture
def history(app):  # type: ignore[no-untyped-def]
    """Run A at 1.00 USD/h, run B at 2.00, then a failed run: the three moments after each."""
    client = app.test_client()
    client.get("/health")
    store = app.extensions["breakeven"].store
    first = store.record_run("custom", [_offer(1.0)], utcnow(), "A")
    time.sleep(0.05)
    second = store.record_run("custom", [_offer(2.0)], utcnow(), "B")
    time.sleep(0.05)
    failed = store.record_failure("custom", utcnow(), "the source broke")
    return client, first.finished_at, second.finished_at, failed.finished_at


def _price(client, at: datetime | None) -> float:  # type: ignore[no-untyped-def]
    path = "/offers?provider=custom" + (f"&at={_iso(at)}" if at else "")
    (row,) = [o for o in client.get(path).get_json()["offers"] if o["product"] == PRODUCT]
    return row["usd_per_hour"]


def test_between_two_runs_the_earlier_answers(history) -> None:  # type: ignore[no-untyped-def]
    client, a, b, failed = history
    assert _price(client, a + (b - a) / 2) == 1.0
    assert _price(client, a) == 1.0  # a run counts from the moment it finished
    assert _price(client, b + (failed - b) / 2) == 2.0
    assert _price(client, None) == 2.0


def test_a_failed_run_changes_nothing(history) -> None:  # type: ignore[no-untyped-def]
    client, _, _, failed = history
    assert _price(client, failed + timedelta(milliseconds=1)) == 2.0


def test_the_quote_of_a_past_moment_uses_its_prices(history) -> None:  # type: ignore[no-untyped-def]
    client, a, b, _ = history
    base = "/breakeven?detail=full&gpu=rtx3090&hours=500&providers=custom"
    then = client.get(f"{base}&at={_iso(a + (b - a) / 2)}").get_json()
    now = client.get(base).get_json()
    assert then["rent"][0]["usd_per_hour"] == 1.0 and now["rent"][0]["usd_per_hour"] == 2.0
    assert then["rent"][0]["total_usd"] == pytest.approx(now["rent"][0]["total_usd"] / 2)


def test_before_the_first_run_is_a_422_naming_at(history) -> None:  # type: ignore[no-untyped-def]
    client = history[0]
    for path in (
        "/offers?at=2020-01-01",
        "/breakeven?detail=full&gpu=rtx3090&hours=500&at=2020-01-01",
    ):
        response = client.get(path)
        assert response.status_code == 422, path
        problem = response.get_json()
        assert problem["errors"][0]["parameter"] == "at"
        assert "oldest stored run finished" in problem["detail"]


@pytest.mark.parametrize("value", ["2999-01-01", "yesterday", "2026-13-01", "1700000000"])
def test_a_future_or_malformed_moment_is_a_400(client, value: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/offers?at={value}")
    assert response.status_code == 400, value
    assert response.get_json()["errors"][0]["parameter"] == "at"


def test_a_naive_moment_is_utc(history) -> None:  # type: ignore[no-untyped-def]
    client, a, b, _ = history
    middle = (a + (b - a) / 2).astimezone(UTC).replace(tzinfo=None)
    assert _price(client, middle) == 1.0


def test_an_accelerators_past_catalog_reads_only_its_listings(history) -> None:  # type: ignore[no-untyped-def]
    """/offers?at=&accelerator= reads that accelerator's listings only, and answers as the
    whole past catalog filtered would."""
    client, a, b, _ = history
    middle = _iso(a + (b - a) / 2)
    narrow = client.get(f"/offers?at={middle}&accelerator=rtx3090&limit=10000").get_json()
    whole = client.get(f"/offers?at={middle}&limit=10000").get_json()
    assert narrow["offers"] == [o for o in whole["offers"] if o["accelerator"] == "rtx3090"]
    assert any(o["product"] == PRODUCT and o["usd_per_hour"] == 1.0 for o in narrow["offers"])


def test_a_moment_before_the_kept_history_is_a_422_naming_at(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """With BREAKEVEN_HISTORY_DAYS set, prices before the cutoff are forgotten: a moment
    before it is refused, one after it answered."""
    app = create_app(Settings(data_dir=tmp_path, catalog_check_seconds=0, history_days=1))
    client = app.test_client()
    app.extensions["breakeven"].store.record_run("custom", [_offer(1.0)], utcnow(), "A")
    two_days_ago = _iso(datetime.now(UTC) - timedelta(days=2))
    response = client.get(f"/offers?at={two_days_ago}")
    assert response.status_code == 422
    problem = response.get_json()
    assert problem["errors"][0]["parameter"] == "at"
    assert "BREAKEVEN_HISTORY_DAYS is 1" in problem["detail"]
    assert client.get(f"/offers?at={_iso(datetime.now(UTC))}").status_code == 200
    app.extensions["breakeven"].store.dispose()


def test_a_past_catalog_read_as_listings_is_the_catalog_of_built_offers(history) -> None:  # type: ignore[no-untyped-def]
    """The past table reads listings as columns and builds an offer only when one is shown
    (pricing/listed.py): row for row and column for column it is the table built from every
    offer, bundled rows that live sources replace left out in both."""
    client, a, b, _ = history
    runtime = client.application.extensions["breakeven"]
    store, hardware = runtime.store, runtime.hardware
    for moment in (a + (b - a) / 2, b + timedelta(seconds=0.01)):
        runs = store.current_runs(at=moment)
        listed = store.current_listed(at=moment, runs_then=runs)
        built = store.current_offers(at=moment, runs_then=runs)
        assert list(listed) == built and len(listed) == len(built) > 1
        assert listed[1:3] == built[1:3]
        lazy, eager = OfferTable(listed, hardware), OfferTable(built, hardware)
        assert list(lazy.rows) == list(eager.rows) and lazy.as_of == eager.as_of
        assert lazy.unrated == eager.unrated
        for name in ("price", "memory", "total_memory", "interruptible", "band_overhead"):
            assert np.array_equal(getattr(lazy, name), getattr(eager, name), equal_nan=True)
        for name in ("interruption_class", "session_bound", "fabric_code", "accelerator_code"):
            assert getattr(lazy, name).tolist() == getattr(eager, name).tolist(), name
        assert (lazy.providers, lazy.regions, lazy.pricings, lazy.markets) == (
            eager.providers,
            eager.regions,
            eager.pricings,
            eager.markets,
        )


def test_a_new_moment_in_a_remembered_window_takes_no_heavy_read_slot(app) -> None:  # type: ignore[no-untyped-def]
    """Issue 58, N1: past catalogs are remembered by the runs they hold, so a new moment in
    a known window is read in place, in milliseconds, even while other clients hold every
    heavy-read slot building theirs; only a window not in memory needs a slot (503 then)."""
    from service.http.budget import HEAVY_READS_PER_WORKER, heavy_read
    from service.http.routes.offers import LARGE_PAGE

    client = app.test_client()
    store = app.extensions["breakeven"].store
    runs = []
    for usd in (1.0, 2.0, 3.0):  # windows [A, B) and [B, C) are past; C is current
        runs.append(store.record_run("custom", [_offer(usd)], utcnow(), str(usd)).finished_at)
        time.sleep(0.05)
    in_a, in_b = runs[0] + timedelta(milliseconds=10), runs[1] + timedelta(milliseconds=10)
    assert _price(client, in_a) == 1.0  # window A built, in a slot
    answers = []

    def hold(depth: int) -> None:
        if depth:
            heavy_read(lambda: hold(depth - 1))
            return
        later_in_a = _iso(in_a + timedelta(milliseconds=5))
        answers.append(client.get(f"/offers?provider=custom&at={later_in_a}").status_code)
        answers.append(client.get(f"/offers?provider=custom&at={_iso(in_b)}").status_code)

    hold(HEAVY_READS_PER_WORKER)
    assert answers == [200, 503]
    # a large page of a window not in memory: one slot, the window built within it
    page = client.get(f"/offers?limit={LARGE_PAGE + 1}&provider=custom&at={_iso(in_b)}")
    assert page.status_code == 200
    assert _price(client, in_b) == 2.0
