"""Which card? /rank on toy hardware with hand-computed rankings, and over HTTP."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hardware import Accelerator, Hardware, Registry, Throughput, Workload
from pricing.offer import PricingModel
from service.engine.assumptions import Assumptions
from service.engine.offer_table import OfferTable
from service.engine.ranking import RankRequest, rank
from tests.helpers import offer, source_of, stored, toy_card, toy_hardware

FREE_POWER = Assumptions(electricity=0.0, host_cost=0.0, host_watts=0.0, resale=0.0)


def _hardware() -> Hardware:
    """Three buyable cards: a ($1,000, speed 1.0, 24 GB), b ($3,000, 2.5, 48 GB), c ($500,
    0.4, 8 GB). Per $1,000: a 1.0, b 0.833, c 0.8."""
    base = toy_hardware()
    accelerators = [
        Accelerator("a", "Card A", "gpu", 24, 300, 100, 1000, "pcie", "toy"),
        Accelerator("b", "Card B", "gpu", 48, 450, 250, 2000, "pcie", "toy"),
        Accelerator("c", "Card C", "gpu", 8, 150, 40, 400, "pcie", "toy"),
    ]
    speeds = {"a": 1.0, "b": 2.5, "c": 0.4}
    throughput = {
        (acc, k): Throughput(acc, k, value, "measured", "toy")
        for acc, value in speeds.items()
        for k in Workload
    }
    cards = {
        acc: toy_card(acc, price) for acc, price in {"a": 1000.0, "b": 3000.0, "c": 500.0}.items()
    }
    return replace(base, registry=Registry(accelerators), cards=cards, throughput=throughput)


HW = _hardware()
TABLE = OfferTable(
    stored(
        offer(accelerator="a", usd_per_hour=0.50, product="rent-a"),
        offer(accelerator="b", usd_per_hour=1.00, product="rent-b"),
        offer(accelerator="b", usd_per_hour=0.80, product="spot-b", pricing=PricingModel.SPOT),
        offer(accelerator="c", usd_per_hour=0.05, product="rent-c"),
    ),
    HW,
)


def _rank(**fields: object):  # type: ignore[no-untyped-def]
    values = {"workload": Workload.CNN, "reference": "a", "assumptions": FREE_POWER, **fields}
    return rank(HW, TABLE, RankRequest(**values))  # type: ignore[arg-type]


def test_cards_rank_by_throughput_per_purchase_dollar() -> None:
    ranking = _rank()
    assert [c.accelerator.id for c in ranking.cards] == ["a", "b", "c"]
    assert [round(c.throughput_per_1000_usd, 4) for c in ranking.cards] == [1.0, 0.8333, 0.8]
    assert ranking.too_small == []


def test_cards_below_the_memory_need_are_listed_apart() -> None:
    ranking = _rank(memory_gb=16.0)
    assert [c.accelerator.id for c in ranking.cards] == ["a", "b"]
    assert [(c.accelerator.id, c.fits) for c in ranking.too_small] == [("c", False)]


def test_cards_over_budget_are_marked_and_ranked_after() -> None:
    ranking = _rank(budget_usd=2000.0)
    assert [(c.accelerator.id, c.within_budget) for c in ranking.cards] == [
        ("a", True),
        ("c", True),
        ("b", False),
    ]


def test_with_hours_cards_rank_by_work_per_dollar_of_ownership() -> None:
    # 10,000 h of card-a work. No power cost: TCO = price. a: 10000/1000 = 10 h/$;
    # b: 10000/3000 = 3.33; c: 10000/500 = 20 h/$ (slow, but cheap and never idle-priced)
    ranking = _rank(hours=10_000.0, assumptions=replace(FREE_POWER, lifetime_years=15.0))
    assert [c.accelerator.id for c in ranking.cards] == ["c", "a", "b"]
    assert [round(c.reference_hours_per_usd, 3) for c in ranking.cards] == [20.0, 10.0, 3.333]
    # with electricity the slow card burns power for longer: 0.20 $/kWh, load 1, PUE 1
    powered = replace(FREE_POWER, electricity=0.2, lifetime_years=15.0)
    ranking = _rank(hours=10_000.0, assumptions=powered)
    tco = {c.accelerator.id: c.tco_usd for c in ranking.cards}
    assert tco["a"] == pytest.approx(1000 + 10_000 * 0.300 * 0.2)  # 1,600
    assert tco["b"] == pytest.approx(3000 + 10_000 / 2.5 * 0.450 * 0.2)  # 3,360
    assert tco["c"] == pytest.approx(500 + 10_000 / 0.4 * 0.150 * 0.2)  # 1,250


def test_each_card_is_bought_in_the_count_that_finishes_in_time_and_replaced_as_it_ages() -> None:
    """30,000 h of card-a work at utilization 0.5. One c (speed 0.4) would take 150,000 h,
    17.1 years: past the longest time a question spans (15 years), so two are bought, which
    take 75,000 h (8.6 years): a 4-year life ends twice, so three sets of two c at 500 USD,
    no resale, no power: 3,000 USD. One a takes 60,000 h (6.8 years): two sets, 2,000 USD."""
    ranking = _rank(hours=30_000.0, assumptions=replace(FREE_POWER, utilization=0.5))
    got = {c.accelerator.id: (c.cards, c.replacements, c.tco_usd) for c in ranking.cards}
    assert got["c"] == (2, 2, pytest.approx(3_000.0))
    assert got["a"] == (1, 1, pytest.approx(2_000.0))
    assert all(c.within_deadline for c in ranking.cards)


def test_work_stated_ranks_by_work_however_little() -> None:
    """0 h read as "no work stated": ranked by throughput, every total cost dropped (hostile
    review 2026-12-01, #5). The API keeps stated work at MIN_HOURS or more; the engine does
    not lean on it."""
    ranking = _rank(hours=0.0)
    assert all(c.tco_usd == pytest.approx(c.card.purchase_usd) for c in ranking.cards)
    assert [c.reference_hours_per_usd for c in ranking.cards] == [0.0, 0.0, 0.0]


def test_rentals_are_priced_per_hour_of_the_reference_cards_work() -> None:
    ranking = _rank()
    per_hour = {r.stored.offer.product: round(r.usd_per_reference_hour, 4) for r in ranking.rent}
    # rent-a 0.50 / 1.0; rent-b 1.00 / 2.5 = 0.40; spot-b 0.80 x 1.1 / 2.5 = 0.352;
    # rent-c 0.05 / 0.4 = 0.125
    assert per_hour == {"rent-c": 0.125, "spot-b": 0.352, "rent-b": 0.4, "rent-a": 0.5}
    assert ranking.rent[0].stored.offer.product == "rent-c"
    assert _rank(memory_gb=16.0).rent[0].stored.offer.product == "spot-b"  # c is too small


def test_rank_over_http_uses_current_offers_and_their_ages(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/rank?workload=transformer&memory=24&budget=2000&hours=2000").get_json()
    assert body["ranked_by"] == "reference_hours_per_usd"
    ids = [c["id"] for c in body["cards"]]
    assert "rtx4090" in ids and all(c["memory_gb"] >= 24 for c in body["cards"])
    assert all(not c["fits"] for c in body["too_small"]) and body["too_small"]
    within = [c["within_budget"] for c in body["cards"]]
    assert within == sorted(within, reverse=True)  # in budget first
    assert all(c["price_source"] and source_of(body, c["throughput"]) for c in body["cards"])
    rent = body["rent"]
    costs = [r["usd_per_reference_hour"] for r in rent]
    assert rent and costs == sorted(costs)
    assert body["prices"]["stale"] is True and body["prices"]["providers"]
    assert client.get("/rank?workload=gan").status_code == 400
