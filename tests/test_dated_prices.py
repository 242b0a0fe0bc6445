"""A dated price outranks an undated one (pricing/dated.py): where a provider dates a price
of the same accelerator, terms and market, an undated row more than 10 % away from it is
rented by no answer, and /offers marks it, naming the dated row."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from pricing.changes import READ_ON_RUN_DAY
from pricing.dated import NONE, SUPERSEDE_GAP, dated_rows, superseded_by

UNDATED = "before 2026-11-30"


def _rule(*rows: tuple[str, str, float, str]) -> list[int]:
    """rows: (product, region, USD per accelerator-hour, as of); one provider and kind."""
    n = len(rows)
    found = superseded_by(
        ["lambda"] * n,
        ["h100-sxm"] * n,
        ["on_demand"] * n,
        ["cloud"] * n,
        [r[0] for r in rows],
        [r[1] for r in rows],
        np.array([r[2] for r in rows]),
        dated_rows([r[3] for r in rows]),
    )
    return found.tolist()


def test_an_undated_row_far_from_a_dated_one_of_its_kind_is_superseded() -> None:
    # the audit's case: 4 x H100 undated at 3.09 per GPU-hour, 8 x H100 dated at 3.99
    assert _rule(
        ("gpu_8x_h100_sxm5", "us-east-1", 3.99, "2026-09-25"),
        ("gpu_4x_h100_sxm5", "us-east-1", 3.09, UNDATED),
    ) == [NONE, 0]
    # within the gap it keeps its place; dearer in the same region it is superseded too
    close = 3.99 * (1 - SUPERSEDE_GAP / 2)
    assert _rule(("a", "r", 3.99, "2026-09-25"), ("b", "r", close, UNDATED)) == [NONE, NONE]
    assert _rule(("a", "r", 3.99, "2026-09-25"), ("b", "r", 5.0, UNDATED)) == [NONE, 0]


def test_in_another_region_only_a_cheaper_undated_row_is_superseded() -> None:
    """Clouds price by region: a dated price in us-east-1 does not contradict a dearer
    undated one in Mumbai, but an undated one cheaper than every dated price is suspect."""
    dated = ("p5.48xlarge", "us-east-1", 4.0, "2026-10-01")
    assert _rule(dated, ("p5.48xlarge", "ap-south-1", 5.2, UNDATED)) == [NONE, NONE]
    assert _rule(dated, ("p5.48xlarge", "ap-south-1", 3.0, UNDATED)) == [NONE, 0]
    # the same product's dated price is compared first, in the row's own region first
    assert _rule(
        ("big", "r", 2.0, "2026-10-01"),
        ("small", "r", 3.0, "2026-10-01"),
        ("small", "r", 3.1, UNDATED),
    ) == [NONE, NONE, NONE]


def test_a_live_runs_price_is_dated_by_its_run() -> None:
    assert _rule(("a", "r", 4.0, READ_ON_RUN_DAY), ("b", "r", 3.0, UNDATED)) == [NONE, 0]
    assert _rule(("a", "r", 4.0, UNDATED), ("b", "r", 3.0, UNDATED)) == [NONE, NONE]


def test_no_answer_rents_a_superseded_row_and_offers_marks_each(client, app) -> None:  # type: ignore[no-untyped-def]
    """Over the bundled catalog: every provider, accelerator and pricing with a superseded
    row is asked for; no rent line or tier is one of them, and /offers names its dated row."""
    table = app.extensions["breakeven"].catalog.table()
    superseded = np.flatnonzero(table.superseded)
    assert superseded.size, "the bundled catalog has undated rows its own dated ones contradict"
    groups: dict[tuple[str, str, str], set[tuple[str, str, float]]] = defaultdict(set)
    for i in superseded.tolist():
        o = table.rows[i].offer
        groups[(o.provider, o.accelerator, str(o.pricing))].add(
            (o.product, o.region, o.usd_per_hour)
        )
    for (provider, accelerator, pricing), rows in groups.items():
        query = (
            f"/breakeven?detail=full&gpu={accelerator}&hours=500&providers={provider}&pricing={pricing}"
            f"&rent_gpu={accelerator}&platforms=all&top=100"
        )
        body = client.get(query).get_json()
        if "rent" not in body:
            # every offer of the kind superseded or gated: nothing rents them
            continue
        lines = [*body["rent"], *(t["best"] for t in body["tiers"] if t["best"])]
        rented = {(r["product"], r["region"], r["usd_per_hour"]) for r in lines}
        assert not rented & rows, query
        listed = client.get(
            f"/offers?provider={provider}&accelerator={accelerator}&pricing={pricing}&limit=10000"
        ).get_json()["offers"]
        marked = [r for r in listed if (r["product"], r["region"], r["usd_per_hour"]) in rows]
        assert marked, (provider, accelerator, pricing)
        for row in marked:
            assert row["superseded_by"] is not None, row
            assert f"{provider} " in row["superseded_by"] and "as of 20" in row["superseded_by"]
        assert all(
            r["superseded_by"] is None for r in listed if not r["price_as_of"].startswith("before")
        )


def test_lambdas_h100_headline_is_its_dated_price(client) -> None:
    """The audit's 8-card question: Lambda's headline H100 price is its own dated one
    (3.99 USD per GPU-hour of 2026-09-25, pricing/data/dated_prices.csv), not the undated
    4 x H100 row at 3.09."""
    body = client.get(
        "/breakeven?detail=full&gpu=h100-sxm&gpus=8&for_hours=500&providers=lambda&pricing=on_demand"
    ).get_json()
    head = body["rent"][0]
    assert head["usd_per_hour"] / head["count"] == pytest.approx(3.99, rel=SUPERSEDE_GAP)
    assert not head["price_as_of"].startswith("before")
    assert f"Its price is of {head['price_as_of']}" in body["summary"]


def test_a_tie_goes_to_the_askers_country(client) -> None:  # type: ignore[no-untyped-def]
    """Vast.ai hosts in CN, DE and the US ask the same 0.80 USD/h for two RTX 5090s (the
    catalog's undated median asks): the same cost, so the headline is the asker's country's
    host where it is one of them, and the money is the same either way."""
    plain = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()["rent"][0]
    for country in ("DE", "US"):  # (CN admits its own clouds, which rent for less)
        head = client.get(
            f"/breakeven?detail=full&gpu=rtx3090&hours=500&country={country}&currency=USD"
        )
        line = head.get_json()["rent"][0]
        assert line["region"] == country.lower(), country
        assert line["usd_per_hour"] == plain["usd_per_hour"]
        assert line["product"] == plain["product"]


def test_a_tie_goes_to_a_dated_price_before_an_undated_one() -> None:
    """Equal cost, equal hours: the dated row first, whatever the catalog's order."""
    from service.engine.cheapest import cheapest
    from service.engine.costs import JobCost

    n = 3
    ones = np.ones(n)
    job = JobCost(
        hours=ones,
        sessions=ones,
        total_usd=ones,
        instances=np.ones(n, dtype=np.int64),
        rate=ones,
        paid_hours=ones,
        floor_usd=ones,
        present_usd=ones,
        tie=np.array([3, 2, 3], dtype=np.int8),  # row 1 dated, elsewhere
    )
    assert cheapest(np.arange(n), job, 3).tolist() == [1, 0, 2]


def test_a_tie_goes_to_the_askers_country_on_rank_without_work(client) -> None:  # type: ignore[no-untyped-def]
    """/rank with no work ranks rentals by price per reference hour alone: the same Vast.ai
    hosts tie there, and the first is the asker's country's (the US by default), not
    whichever host the catalog lists first (CN)."""
    plain = client.get("/rank").get_json()["rent"]
    assert plain[0]["region"] == "us"
    for country in ("DE", "US"):
        rent = client.get(f"/rank?country={country}&currency=USD").get_json()["rent"]
        assert rent[0]["region"] == country.lower(), country
        assert rent[0]["usd_per_reference_hour"] == plain[0]["usd_per_reference_hour"]
    # the tie is a tie: the rest of the top are the same prices in the same order
    other = client.get("/rank?country=DE&currency=USD").get_json()["rent"]
    assert [r["usd_per_reference_hour"] for r in other] == [
        r["usd_per_reference_hour"] for r in plain
    ]


def test_ranks_summary_dates_its_headline_rental(client) -> None:  # type: ignore[no-untyped-def]
    """/rank's sentence, like /breakeven's: the cheapest rental's price date, and where that
    price is undated, the cheapest dated one in the same sentence, with its date."""
    body = client.get("/rank?hours=500").get_json()
    head = body["rent"][0]
    assert head["price_as_of"].startswith("before") and "confidence" in head
    dated = next(r for r in body["rent"] if not r["price_as_of"].startswith("before"))
    assert (
        f"Its price is undated ({head['price_as_of']}): the cheapest rental with a dated price "
        f"is {dated['name']} ({dated['pricing']}, {dated['price_as_of']})"
    ) in body["summary"]
    committed = client.get(
        "/rank?gpu=h100-sxm&hours_per_month=46720&months=36&pricing=reserved_3y"
    ).get_json()
    first = committed["rent"][0]
    assert not first["price_as_of"].startswith("before")
    assert f"Its price is of {first['price_as_of']}." in committed["summary"]
