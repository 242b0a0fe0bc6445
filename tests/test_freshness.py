"""History, staleness in answers, /providers ages, and /metrics."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.documents.freshness import freshness, price_age
from tests.helpers import offer, runs_of, stored

NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)


def test_price_age_is_the_older_of_fetch_time_and_price_date() -> None:
    (fresh,) = stored(offer(price_as_of="2026-11-29"))
    fresh = fresh.__class__(fresh.offer, 1, NOW - timedelta(hours=1))
    assert price_age(fresh, NOW) == 3600  # fetched an hour ago, dated today
    (old,) = stored(offer(price_as_of="2024-04-10"))
    assert price_age(old, NOW) > 2 * 365 * 86400
    (undated,) = stored(offer(price_as_of="undated (catalog)"))
    assert price_age(undated, NOW) is None


def test_freshness_per_provider_and_overall() -> None:
    rows = stored(
        offer(provider="aws", price_as_of="2026-11-29"),
        offer(provider="gcp", price_as_of="undated"),
    )
    rows = [r.__class__(r.offer, 1, NOW - timedelta(hours=2)) for r in rows]
    result = freshness(rows, stale_after_hours=24, now=NOW)
    assert result["providers"]["aws"] == {"age_seconds": 7200, "stale": False}
    assert result["providers"]["gcp"] == {"age_seconds": None, "stale": True}
    assert result["stale"] is True and result["age_seconds"] is None
    only_aws = freshness(rows[:1], stale_after_hours=1, now=NOW)
    assert only_aws["stale"] is True and only_aws["age_seconds"] == 7200


def test_answers_carry_the_age_of_their_prices(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()
    prices = answer["prices"]
    assert prices["stale"] is True  # the bundled snapshot is months old
    assert set(prices["providers"]) == {r["provider"] for r in answer["rent"]}
    offers = client.get("/offers?provider=aws").get_json()
    assert offers["prices"]["stale"] is True and set(offers["prices"]["providers"]) == {"aws"}


def test_providers_show_age_and_staleness(client) -> None:  # type: ignore[no-untyped-def]
    """The bundled catalog was loaded a moment ago, but its prices are old: stale, with its
    dates (freshness is the age of the prices, not of the load)."""
    (bundled,) = client.get("/providers").get_json()["providers"]
    assert 0 <= bundled["age_seconds"] < 600
    prices = bundled["prices"]
    assert bundled["stale"] is True and prices["stale"] is True
    # AWS reserved instances as published on 2022-07-07 (pricing/data/committed.csv), the
    # oldest dated; then the Colab V100 burn rate of 2024-04-10
    assert prices["oldest_as_of"] == "2022-07-07"
    assert prices["newest_as_of"] == "before 2026-11-30"
    # the rows read from the public catalogs that no dated source replaced
    assert prices["unknown_age"] == _undated_bundled_rows() > 1000


def test_a_live_run_with_todays_prices_is_fresh(app, client) -> None:  # type: ignore[no-untyped-def]
    store = app.extensions["breakeven"].store
    today = datetime.now(UTC).date().isoformat()
    store.record_run(
        "aws",
        [offer(provider="aws", accelerator="h100-sxm", count=8, price_as_of=today)],
        datetime.now(UTC),
    )
    providers = {p["name"]: p for p in client.get("/providers").get_json()["providers"]}
    assert providers["aws"]["stale"] is False
    assert providers["aws"]["prices"]["oldest_as_of"] == today


def test_history_returns_each_price_once_with_its_span(app, client) -> None:  # type: ignore[no-untyped-def]
    store = app.extensions["breakeven"].store
    for price in (10.0, 8.0, 8.0, 9.0):  # the third run repeats the second's price
        store.record_run(
            "aws",
            [
                offer(
                    provider="aws",
                    region="eu-west-3",
                    accelerator="h100-sxm",
                    count=8,
                    usd_per_hour=price,
                )
            ],
            datetime.now(UTC),
        )
    body = client.get("/offers/history?accelerator=H100&provider=aws&region=eu-west-3").get_json()
    # three prices in order, 8.0 once for two runs (the bundled catalog has no AWS H100 in
    # eu-west-3); each span ends when the next begins, the last holds still
    points = body["points"]
    assert [p["usd_per_hour"] for p in points] == [10.0, 8.0, 9.0]
    assert points[0]["usd_per_accelerator_hour"] == 1.25
    assert [p["until"] for p in points] == [points[1]["at"], points[2]["at"], None]
    runs = runs_of(store, "aws")
    assert [p["run_id"] for p in points] == [runs[0].id, runs[1].id, runs[3].id]
    future = client.get("/offers/history?accelerator=h100-sxm&since=2100-01-01").get_json()
    assert future["count"] == 0
    csv_text = client.get(
        "/offers/history?accelerator=h100-sxm&region=eu-west-3&format=csv"
    ).get_data(as_text=True)
    assert csv_text.startswith("at,until,provider") and csv_text.count("\n") == 1 + body["count"]
    assert client.get("/offers/history?since=yesterday").status_code == 400
    assert client.get("/offers/history?accelerator=h999").status_code == 404


def test_metrics_expose_refresh_and_request_figures(client) -> None:  # type: ignore[no-untyped-def]
    client.get("/health")
    text = client.get("/metrics").get_data(as_text=True)
    assert 'breakeven_refresh_runs{provider="bundled",status="ok"} 1.0' in text
    assert 'breakeven_offers{provider="bundled"}' in text
    assert "breakeven_last_success_timestamp_seconds" in text
    assert 'breakeven_http_requests_total{endpoint="/health",method="GET",status="200"}' in text


def _undated_bundled_rows() -> int:
    import csv
    from importlib import resources

    from pricing.offer import price_date

    snapshot = resources.files("pricing") / "data" / "snapshot.csv"
    with snapshot.open(newline="", encoding="utf-8") as handle:
        return sum(price_date(row["price_as_of"]) is None for row in csv.DictReader(handle))
