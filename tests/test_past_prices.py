"""Prices from before the store's first run (pricing/past.py, pricing/data/history.csv), the
daily price series the runs write (pricing/store/series.py), and what `at=`,
`/offers/history` and `/offers/series` answer from them offline."""

from __future__ import annotations

import csv
import re
from datetime import UTC, date, datetime
from importlib import resources
from typing import Any

import pytest

from hardware import Hardware
from pricing.past import PAST_PRICE_HOLDS, PastPrices, load_past_prices
from pricing.store import Store, price_series
from service.http.schemas import Series
from tests.helpers import count_rows, downgrade, offer

HISTORY = resources.files("pricing") / "data" / "history.csv"


def _on(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def test_every_recorded_price_has_its_day_and_a_source_at_a_commit_or_page(
    hardware: Hardware,
) -> None:
    past = load_past_prices(hardware.registry.canonical)
    with HISTORY.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(past) == len(rows) >= 80
    for row in rows:
        date.fromisoformat(row["price_as_of"])  # a day, not a month or "before ..."
        assert re.search(r"@[0-9a-f]{7,40}|https?://", row["source"]), row["source"]
        assert row["notes"].startswith(("published", "reported")), row["notes"]
    providers = {row["provider"] for row in rows}
    assert providers >= {"aws", "gcp", "azure", "lambda", "runpod", "vast"}
    assert min(row["price_as_of"] for row in rows) < "2023-02-01"


def test_a_recorded_price_holds_until_the_next_record_and_not_for_ever() -> None:
    """a: 10 on 2024-01-01 and 10 again on 2025-06-01, so it held between (517 days); b: 5 on
    2023-01-01, then 4 on 2024-06-01: the 5 is not taken past 2024-01-01 (a year); c: once,
    on 2025-01-01, so until 2026-01-01."""
    records = [
        offer(product="a", usd_per_hour=10.0, price_as_of="2024-01-01"),
        offer(product="a", usd_per_hour=10.0, price_as_of="2025-06-01"),
        offer(product="b", usd_per_hour=5.0, price_as_of="2023-01-01"),
        offer(product="b", usd_per_hour=4.0, price_as_of="2024-06-01"),
        offer(product="c", usd_per_hour=7.0, price_as_of="2025-01-01"),
    ]
    past = PastPrices(records)

    def held(day: str) -> dict[str, float]:
        return {s.offer.product: s.offer.usd_per_hour for s in past.held_at(_on(day))}

    assert held("2023-06-01") == {"b": 5.0}
    assert held("2024-03-01") == {"a": 10.0}  # b's 5 lapsed on 2024-01-01, its 4 not yet
    assert held("2025-03-01") == {"a": 10.0, "b": 4.0, "c": 7.0}
    assert held("2025-12-31") == {"a": 10.0, "c": 7.0}  # b's 4 lapsed a year after it
    assert held("2026-05-31") == {"a": 10.0}  # the second a holds a year from 2025-06-01
    assert held("2026-06-01") == {}
    assert PAST_PRICE_HOLDS.days == 365
    assert held("2022-12-31") == {}
    # spans stop where the store takes over
    spans = past.spans(_on("2000-01-01"), ends_by=_on("2025-03-01"), region_prefix="")
    assert max(s.until for s in spans if s.until is not None) == _on("2025-03-01")


def test_at_before_the_first_run_answers_from_the_recorded_prices(client: Any) -> None:
    """AWS's p5.48xlarge in us-east-1 was 98.32 USD/h in the generated price table of
    2025-04-28 and 55.04 in that of 2025-06-23 (karpenter-provider-aws): the cut shows."""
    before = client.get("/offers?at=2025-06-01&accelerator=h100-sxm").get_json()
    assert before["total"] >= 3, before
    rows = {(o["provider"], o["product"]): o for o in before["offers"]}
    assert {p for p, _ in rows} >= {"aws", "gcp", "azure"}
    p5 = rows["aws", "p5.48xlarge"]
    assert (p5["usd_per_hour"], p5["price_as_of"]) == (98.32, "2025-04-28")
    after = client.get("/offers?at=2025-07-01&accelerator=h100-sxm&provider=aws").get_json()
    assert [(o["usd_per_hour"], o["price_as_of"]) for o in after["offers"]] == [
        (55.04, "2025-06-23")
    ]
    quote = client.get(
        "/breakeven?detail=full&gpu=h100-sxm&gpus=8&hours=2000&at=2025-06-01"
    ).get_json()
    assert quote["rent"] and all(r["price_as_of"] < "2025-06-02" for r in quote["rent"])
    refused = client.get("/offers?at=2020-01-01")
    assert refused.status_code == 422
    assert "the bundled history records prices from 2023-01-05" in refused.get_json()["detail"]


def test_the_series_spans_years_across_providers_with_the_cut_among_its_changes(
    client: Any,
) -> None:
    answer = client.get("/offers/series?accelerator=H100").get_json()
    Series.model_validate(answer)  # sent as built: the schema is checked here
    assert answer["accelerator"] == "h100-sxm"
    assert answer["since"] == min(x["days"][0] for x in answer["lines"])  # not a search floor
    spans: dict[str, tuple[str, str]] = {}
    for line in answer["lines"]:
        days = [d for d, o in zip(line["days"], line["origin"], strict=True) if o == "recorded"]
        if days:
            first, last = spans.get(line["provider"], (days[0], days[-1]))
            spans[line["provider"]] = (min(first, days[0]), max(last, days[-1]))
        assert line["days"] == sorted(line["days"])
    long = [
        p
        for p, (a, b) in spans.items()
        if (date.fromisoformat(b) - date.fromisoformat(a)).days >= 183
    ]
    assert len(long) >= 2, spans
    # 98.32 / 8 = 12.29 and 55.04 / 8 = 6.88 USD per H100-hour
    cut = [c for c in answer["changes"] if (c["provider"], c["day"]) == ("aws", "2025-06-23")]
    assert cut == [
        {
            "day": "2025-06-23",
            "provider": "aws",
            "pricing": "on_demand",
            "low_before": 12.29,
            "low": 6.88,
            "change": pytest.approx(6.88 / 12.29 - 1),
        }
    ]
    (aws,) = [x for x in answer["lines"] if (x["provider"], x["pricing"]) == ("aws", "on_demand")]
    assert aws["origin"][-1] == "stored" and aws["origin"][0] == "recorded"
    assert answer["count"] == sum(len(x["days"]) for x in answer["lines"])
    since = client.get("/offers/series?accelerator=h100-sxm&since=2026-01-01").get_json()
    assert min(d for x in since["lines"] for d in x["days"]) >= "2026-01-01"
    # a line starts at the level it had on since=, not at its next change: AWS's P5 was
    # still 98.32 / 8 on 2025-06-01, three weeks before the cut
    june = client.get("/offers/series?accelerator=h100-sxm&since=2025-06-01").get_json()
    (aws_june,) = [
        x for x in june["lines"] if (x["provider"], x["pricing"]) == ("aws", "on_demand")
    ]
    assert (aws_june["days"][:2], aws_june["low"][:2]) == (
        ["2025-06-01", "2025-06-23"],
        [12.29, 6.88],
    )
    rows = list(
        csv.DictReader(
            client.get("/offers/series?accelerator=h100-sxm&format=csv")
            .get_data(as_text=True)
            .splitlines()
        )
    )
    assert len(rows) == answer["count"] and rows[0].keys() >= {"day", "provider", "low"}
    unknown = client.get("/offers/series?accelerator=h1000")
    assert unknown.status_code == 404 and "accelerator" in unknown.get_data(as_text=True)
    assert client.get("/offers/series").status_code == 400  # accelerator is required


def test_history_pages_walk_the_recorded_prices_then_the_stored_ones(client: Any) -> None:
    """Five points a page, following `next` to the end: every recorded span once, then the
    store's, none twice, whatever the page boundaries."""
    url = "/offers/history?accelerator=h100-sxm&since=2023-01-01&limit=5"
    points: list[dict[str, Any]] = []
    while url:
        page = client.get(url).get_json()
        points += page["points"]
        url = page["next"]
    keys = [
        (p["provider"], p["product"], p["region"], p["pricing"], p["purchase_option"], p["at"])
        for p in points
    ]
    assert len(keys) == len(set(keys))
    origins = [p["run_id"] == 0 for p in points]
    assert origins == sorted(origins, reverse=True)  # recorded (run 0) first
    assert sum(origins) >= 20 and not all(origins)
    whole = client.get("/offers/history?accelerator=h100-sxm&since=2023-01-01").get_json()
    assert len(whole["points"]) == len(points)


def test_each_run_writes_its_days_low_and_median(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs on 2026-03-01 (the later replaces the earlier's day) and one on 2026-03-02:
    per accelerator-hour, 8 x H100 at 40 and 1 x H100 at 3 and 4 -> low 3, median 4."""
    from pricing.store import write

    def aws(product: str, usd: float, count: int = 1) -> Any:
        return offer(
            provider="aws", product=product, accelerator="h100-sxm", count=count, usd_per_hour=usd
        )

    monkeypatch.setattr(write, "utcnow", lambda: _on("2026-03-01T10:00:00"))
    store.record_run("aws", [aws("a", 100.0)], _on("2026-03-01T09:00:00"))
    store.record_run(
        "aws", [aws("a", 40.0, 8), aws("b", 3.0), aws("c", 4.0)], _on("2026-03-01T09:30:00")
    )
    monkeypatch.setattr(write, "utcnow", lambda: _on("2026-03-02T10:00:00"))
    store.record_run("aws", [aws("b", 2.5)], _on("2026-03-02T09:00:00"))
    (line,) = store.series("h100-sxm", date(2026, 1, 1))
    assert (line.provider, line.pricing) == ("aws", "on_demand")
    assert (line.days, line.low, line.median, line.offers) == (
        [date(2026, 3, 1), date(2026, 3, 2)],
        [3.0, 2.5],
        [4.0, 2.5],
        [3, 1],
    )
    assert store.series("h100-sxm", date(2026, 3, 2))[0].days == [date(2026, 3, 2)]
    assert store.series("a100-80gb", date(2026, 1, 1)) == []


def test_migration_0008_writes_the_current_catalog_as_its_sources_latest_day(
    store: Store,
) -> None:
    store.record_run(
        "aws", [offer(provider="aws", product="a", usd_per_hour=2.0)], _on("2026-03-01")
    )
    downgrade(store.engine, "0007")
    store.create_schema()
    assert count_rows(store, price_series) == 1
    (line,) = store.series(offer().accelerator, date(2000, 1, 1))
    assert (line.low, line.median, line.offers) == ([2.0], [2.0], [1])
