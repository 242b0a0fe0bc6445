"""What an integrator wires in (issue 36): gzip for JSON, CSV and the dashboard's assets,
and an ETag tied to the catalog and the question, answered with a 304 before any work."""

from __future__ import annotations

import gzip
import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from pricing.store import utcnow
from tests.helpers import offer

QUESTION = "/breakeven?detail=full&gpu=rtx3090&hours=500"


def test_json_and_csv_come_gzipped_when_asked_and_plain_when_not(client) -> None:  # type: ignore[no-untyped-def]
    plain = client.get("/offers?limit=10000")
    zipped = client.get("/offers?limit=10000", headers={"Accept-Encoding": "gzip, br"})
    assert plain.headers.get("Content-Encoding") is None
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["Vary"]
    unzipped, body = json.loads(gzip.decompress(zipped.data)), json.loads(plain.data)
    unzipped.pop("prices"), body.pop("prices")  # price ages: a second may pass between the two
    assert unzipped == body
    assert len(zipped.data) < len(plain.data) / 10  # the 10,000-row page: tens of KB
    csv = client.get("/offers?format=csv&limit=500", headers={"Accept-Encoding": "gzip"})
    assert csv.headers["Content-Encoding"] == "gzip" and csv.mimetype == "text/csv"
    refused = client.get(QUESTION, headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert refused.headers.get("Content-Encoding") is None
    small = client.get("/health", headers={"Accept-Encoding": "gzip"})
    assert small.headers.get("Content-Encoding") is None  # under a packet: not worth it


def test_the_dashboards_assets_come_gzipped(client) -> None:  # type: ignore[no-untyped-def]
    chart = client.get(
        "/static/vendor/chartjs/chart.umd.min.js", headers={"Accept-Encoding": "gzip"}
    )
    assert chart.headers["Content-Encoding"] == "gzip"
    assert chart.headers["ETag"].endswith('-gzip"')  # another entity than the plain file
    page = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip"
    assert b"gpu-breakeven" in gzip.decompress(page.data)


@pytest.fixture
def clock(monkeypatch):  # type: ignore[no-untyped-def]
    """The answer clock, held at a minute a test moves on by hand."""
    import service.http.caching as caching

    held = {"now": datetime(2026, 12, 6, 12, 0, tzinfo=UTC)}
    monkeypatch.setattr(caching, "answer_clock", lambda: held["now"])
    return held


def test_the_same_question_on_the_same_catalog_is_a_304(client, clock) -> None:  # type: ignore[no-untyped-def]
    first = client.get(QUESTION)
    tag = first.headers["ETag"]
    assert tag.startswith('W/"') and first.headers["Cache-Control"].startswith("max-age=")
    again = client.get(QUESTION, headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == tag
    # the order of the parameters is not the question
    assert client.get("/breakeven?detail=full&hours=500&gpu=rtx3090").headers["ETag"] == tag
    # another question, another tag
    assert client.get(QUESTION + "&workload=cnn").headers["ETag"] != tag
    assert client.get(QUESTION, headers={"If-None-Match": 'W/"other"'}).status_code == 200


def test_a_new_run_changes_the_tag(client, app) -> None:  # type: ignore[no-untyped-def]
    from service.http import EXTENSION

    runtime = app.extensions[EXTENSION]
    tag = client.get(QUESTION).headers["ETag"]
    cheap = offer(product="cheap-3090", accelerator="rtx3090", usd_per_hour=0.01)
    runtime.store.record_run("custom", [cheap], utcnow())
    runtime.catalog._checked_at = float("-inf")  # the next request checks the store now
    fresh = client.get(QUESTION, headers={"If-None-Match": tag})
    assert fresh.status_code == 200 and fresh.headers["ETag"] != tag
    assert fresh.get_json()["rent"][0]["product"] == "cheap-3090"


@pytest.mark.parametrize("path", ["/providers", "/health", "/metrics"])
def test_live_state_is_not_tagged(client, path: str) -> None:  # type: ignore[no-untyped-def]
    assert "ETag" not in client.get(path).headers


def test_a_refusal_is_neither_tagged_nor_cached(client) -> None:  # type: ignore[no-untyped-def]
    bad = client.get("/breakeven?detail=full&gpu=rtx3090&hours=-1")
    assert bad.status_code == 400 and "ETag" not in bad.headers


def test_every_operation_is_named_and_the_models_are_listed(client) -> None:  # type: ignore[no-untyped-def]
    spec = client.get("/openapi.json").get_json()
    ids = [op["operationId"] for ops in spec["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids)) >= 13 and "get_breakeven" in ids and "list_models" in ids
    models = client.get("/models").get_json()
    assert models["count"] == len(models["models"]) >= 10
    named = {m["id"] for m in models["models"]}
    assert {"llama-3-8b", "resnet50"} <= named
    assert {m["name"] for m in models["methods"]} == {"full", "lora", "qlora"}
    # what it lists is what a job may name
    for model in sorted(named)[:3]:
        family = next(m["family"] for m in models["models"] if m["id"] == model)
        work = "tokens=1e9" if family == "transformer" else "images=1000000&epochs=1"
        assert (
            client.get(f"/breakeven?detail=full&gpu=h100-sxm&model={model}&{work}").status_code
            == 200
        )


def test_an_answer_opens_with_its_summary_and_verdict(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.get(QUESTION).get_json()
    assert list(answer)[:2] == ["summary", "verdict"]
    cheapest, buy = answer["rent"][0], answer["buy"]
    assert answer["summary"].startswith(f"{answer['verdict'].capitalize()}: ")
    assert f"{cheapest['present_usd']:,.2f} USD" in answer["summary"]
    assert f"{buy['present_usd']:,.2f} USD" in answer["summary"]
    yuan = client.get(QUESTION + "&currency=CNY").get_json()
    assert f"{yuan['buy']['present_cny']:,.2f} CNY" in yuan["summary"]
    ranked = client.get("/rank?hours=500").get_json()
    assert next(iter(ranked)) == "summary" and ranked["cards"][0]["id"] in ranked["summary"]


def test_the_tag_covers_the_ages_the_body_shows(client, clock) -> None:  # type: ignore[no-untyped-def]
    """An answer's price ages count to the answer clock's minute, which its tag names: the
    same minute, the same body and a 304; the next minute, ages a minute older and a new tag
    (the issue-57 review: ages moved under one tag)."""
    page = "/offers?provider=colab"
    first = client.get(page)
    ages = first.get_json()["prices"]["providers"]["colab"]["age_seconds"]
    assert ages is not None
    again = client.get(page)
    assert again.data == first.data and again.headers["ETag"] == first.headers["ETag"]
    assert client.get(page, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    clock["now"] += timedelta(minutes=1)
    later = client.get(page, headers={"If-None-Match": first.headers["ETag"]})
    assert later.status_code == 200 and later.headers["ETag"] != first.headers["ETag"]
    assert later.get_json()["prices"]["providers"]["colab"]["age_seconds"] == ages + 60


def test_max_age_ends_at_the_next_minute_or_the_next_scheduled_refresh() -> None:
    from service.http.caching import max_age

    clock = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    now = clock + timedelta(seconds=10)
    assert max_age(clock, now, "0 */6 * * *") == 50  # the next refresh is hours away
    assert max_age(clock, now, "15 0 12 * * *") == 5  # a refresh at 12:00:15 comes first
    assert max_age(clock, clock + timedelta(seconds=61), "0 */6 * * *") == 0


def test_the_next_refresh_moves_on_once_it_has_passed() -> None:
    """The next scheduled refresh is worked out once and kept until it passes: a refresh
    every minute at :30, asked at 12:00:10, 12:00:20 (the same one, 12:00:30, both times),
    then at 12:00:40, past it: 12:01:30, not the kept 12:00:30."""
    from service.http.caching import max_age

    clock = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    every_minute = "30 * * * * *"
    assert max_age(clock, clock + timedelta(seconds=10), every_minute) == 20
    assert max_age(clock, clock + timedelta(seconds=20), every_minute) == 10
    later = clock + timedelta(minutes=1)
    assert max_age(later, later - timedelta(seconds=20), every_minute) == 50  # 12:01:30 next
    assert max_age(clock, clock + timedelta(seconds=5), every_minute) == 25  # back again


def test_answers_carry_max_age(client, clock) -> None:  # type: ignore[no-untyped-def]
    for path in (QUESTION, "/breakeven?gpu=rtx3090&hours=500", "/offers?limit=1", "/rank"):
        header = client.get(path).headers["Cache-Control"]
        assert re.fullmatch(r"max-age=\d+", header) and int(header[8:]) <= 60, (path, header)
