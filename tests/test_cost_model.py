"""One cost model (issue 29): an offer's price per hour of the reference card's work is the
same figure on /breakeven, /rank and /offers, whatever the question, and the docs say what it
holds. It was not: an Azure spot VM cost 0.1473 USD per reference hour on /offers and 0.1620
on /breakeven and /rank, the spot allowance applied in two places of the four that priced it.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from pricing.offer import PricingModel
from pricing.store import utcnow
from tests.helpers import offer

# 20 rentals of five accelerators, on demand and spot (with and without a published
# interruption band), one to eight cards: cheap enough to lead every ranking they enter.
ACCELERATORS = ("rtx3090", "rtx4090", "a100-80gb", "h100-sxm", "l4")
BANDS = ("", "<5%", "10-15%", ">20%")


def _twenty() -> list:  # type: ignore[type-arg]
    """Ten pairs: the same accelerators, count and price on demand (unit-2j) and on spot
    (unit-2j+1), so a spot rate is its pair's times 1 + its interruption allowance."""
    rows = []
    for i in range(20):
        pair, spot = divmod(i, 2)
        rows.append(
            offer(
                product=f"unit-{i}",
                region=("us-east-1", "eu-west-1", "us-west-2")[pair % 3],
                accelerator=ACCELERATORS[pair % 5],
                count=(1, 2, 4, 8)[pair % 4],
                pricing=PricingModel.SPOT if spot else PricingModel.ON_DEMAND,
                interruption=BANDS[pair % 4] if spot else "",
                usd_per_hour=0.001 + 0.0007 * pair,
            )
        )
    return rows


# Five questions: reference card, workload class, and what else they ask.
QUESTIONS = (
    ("rtx3090", "transformer", {}),
    ("rtx4090", "cnn", {"hours": 4000}),
    ("a100-80gb", "transformer", {"gpus": 8}),  # sold in whole 8-card systems
    ("l4", "rnn", {"hours": 90}),
    ("h100-sxm", "transformer", {"gpus": 8, "hours": 100_000}),
)


@pytest.fixture
def twenty(app, client):  # type: ignore[no-untyped-def]
    app.extensions["breakeven"].store.record_run("custom", _twenty(), utcnow(), "twenty")
    return client


def _by_product(rows: list[dict]) -> dict[str, float]:  # type: ignore[type-arg]
    return {r["product"]: r["usd_per_reference_hour"] for r in rows if r["provider"] == "custom"}


@pytest.mark.parametrize(("gpu", "workload", "asked"), QUESTIONS)
def test_an_offer_costs_the_same_per_reference_hour_on_every_endpoint(
    twenty, gpu: str, workload: str, asked: dict[str, int]
) -> None:
    base = {"gpu": gpu, "workload": workload}
    offers = twenty.get("/offers", query_string={**base, "provider": "custom"}).get_json()
    listed = _by_product(offers["offers"])
    assert len(listed) == 20

    # pricing=any: spot offers are in the ranking and the headline, not only in `tiers`
    rank = twenty.get("/rank", query_string={**base, "top": 100, "pricing": "any"}).get_json()
    ranked = _by_product(rank["rent"])
    assert ranked, "the twenty cheap rentals lead the ranking"

    query = {**base, "hours": 500, **asked, "providers": "custom", "top": 100, "pricing": "any"}
    query["detail"] = "full"  # every listed rental
    answer = twenty.get("/breakeven", query_string=query).get_json()
    rented = _by_product(answer["rent"])
    assert rented, answer

    for name, rate in ranked.items():
        assert rate == listed[name], (name, "rank", rate, listed[name])
    for name, rate in rented.items():
        assert rate == pytest.approx(listed[name], rel=1e-12), (name, "breakeven")
    # the spot allowance is in the rate: a spot offer's is its on-demand pair's times 1 +
    # the overhead the answer's own interruption block states
    spot = [r for r in answer["rent"] if r["pricing"] == "spot" and r["provider"] == "custom"]
    assert spot
    for row in spot:
        pair = f"unit-{int(row['product'].split('-')[1]) - 1}"
        overhead = row["interruption"]["overhead"]
        assert overhead > 0
        assert row["usd_per_reference_hour"] == pytest.approx(
            listed[pair] * (1 + overhead), rel=1e-12
        )
        # and the job's total is that rate over its hours (no sessions here)
        assert row["total_usd"] == pytest.approx(
            row["usd_per_reference_hour"] * answer["hours"], rel=1e-12
        )


def test_the_docs_say_the_rate_includes_the_spot_allowance(client) -> None:  # type: ignore[no-untyped-def]
    spec = client.get("/openapi.json").get_json()
    texts = [
        schema["properties"]["usd_per_reference_hour"]["description"]
        for schema in spec["components"]["schemas"].values()
        if "usd_per_reference_hour" in schema.get("properties", {})
    ]
    assert len(texts) >= 3  # /breakeven's rentals, /rank's, /offers' rows
    for text in texts:
        assert "interruption allowance" in text and "spot" in text
        assert "/breakeven, /rank and /offers" in text


def test_why_buying_never_pays_off_names_the_case_the_crossing_met() -> None:
    """By hand: 1,000 USD of cards running at 0.10 USD an hour of work. A rental at 0.08 is
    under that running cost (each hour owned adds to buying's lead); at 0.11, 0.01 an hour
    saved is worth 0.01 / 2e-5 = 500 USD summed over all time at kappa = 2e-5, less than the
    1,000 paid (no crossing of present values); at 1.10, 1.00 an hour repays it."""
    from service.engine.costs import BuyModel, crossing_hours, never_reason

    model = BuyModel(
        capex_usd=1000.0,
        energy_usd_per_hour=0.06,
        site_usd_per_hour=0.04,
        resale_start_usd=0.0,
        resale_decay_per_hour=0.0,
        discount_per_calendar_hour=2e-5,
    )
    under, thin, wide = crossing_hours(model, [0.08, 0.11, 1.10]).tolist()
    assert math.isinf(under) and math.isinf(thin) and math.isfinite(wide)
    assert never_reason(model, 0.08) == "running"
    assert never_reason(model, 0.11) == "discounting"
    undiscounted = replace(model, discount_per_calendar_hour=0.0)
    assert crossing_hours(undiscounted, [0.11]).tolist() == [pytest.approx(1000 / 0.01)]
