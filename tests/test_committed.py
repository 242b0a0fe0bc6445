"""Committed capacity: a term is paid whole, used or not, and every answer shows each tier.

Hand-computed cases, worked in the docstrings; the parsers' committed rows are tested with
their adapters (tests/test_aws.py, tests/test_gcp.py, tests/test_azure.py).
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardware import Workload, load_hardware
from pricing.offer import TERM_MONTHS, PricingModel
from pricing.tiers import TIER_NAMES
from service.cli import cli
from service.engine.assumptions import Assumptions
from service.engine.breakeven import QuoteError, QuoteRequest, quote
from service.engine.cheapest import cheapest, job_on
from service.engine.costs import Limits, bought_speed
from service.engine.offer_table import OfferTable
from tests.helpers import a3_highgpu_8g, offer, stored, toy_hardware

TOY = toy_hardware()
REAL = load_hardware()
PLAIN = Assumptions(electricity=0.0, host_cost=0.0, host_watts=0.0, utilization=1.0)
YEAR, THREE_YEARS = 8760.0, 26280.0


def _tiers(result):  # type: ignore[no-untyped-def]
    return {t.tier.name: t.best for t in result.tiers}


def test_a_hundred_hours_on_a_one_year_term_costs_the_whole_year() -> None:
    """ref at 1.00 USD/h on demand, 0.50 USD/h on a 1-year term (the rate with any upfront fee
    spread over 8,760 h). 100 h of ref's work: on demand 100 x 1.00 = 100 USD; the term is
    paid whole, 8,760 x 0.50 = 4,380 USD, for 100 h used. The headline (pricing=dependable)
    rents on demand; the tier shows the term, its 8,760 h paid and 100 h used."""
    offers = [
        offer(product="od", usd_per_hour=1.0),
        offer(
            product="term",
            pricing=PricingModel.RESERVED_1Y,
            usd_per_hour=0.5,
            purchase_option="no_upfront",
            upfront_share=0.0,
        ),
    ]
    table = OfferTable(stored(*offers), TOY)
    request = QuoteRequest(reference="ref", hours=100.0, assumptions=PLAIN, pricing="dependable")
    result = quote(table, TOY, request)
    assert result.rent[0].stored.offer.product == "od"
    assert result.rent[0].total_usd == pytest.approx(100.0)
    term = _tiers(result)["reserved_1y"]
    assert term.total_usd == pytest.approx(YEAR * 0.5)  # 4,380: the year, not 100 h
    assert (term.hours, term.paid_hours) == (pytest.approx(100.0), YEAR)
    # its rate is still the hourly one: what an hour of work costs when every hour is used
    assert term.usd_per_reference_hour == pytest.approx(0.5)
    # over a year of work the term is the cheaper: 8,760 h cost 4,380 against 8,760
    year = quote(table, TOY, QuoteRequest(reference="ref", hours=YEAR, assumptions=PLAIN))
    assert year.rent[0].stored.offer.product == "term"
    assert year.rent[0].total_usd == pytest.approx(4380.0)
    # a year and an hour takes a second term: 2 x 4,380
    more = quote(table, TOY, QuoteRequest(reference="ref", hours=YEAR + 1, assumptions=PLAIN))
    assert _tiers(more)["reserved_1y"].total_usd == pytest.approx(2 * 4380.0)


def test_two_years_of_eight_h100s_on_each_tier_and_bought() -> None:
    """Two years of steady work on 8 x H100 SXM, every hour of both years (deadline 17,520
    h, utilization 1): the work is 17,520 h of the 8 cards, which an 8 x H100 machine of the
    same speed does in 17,520 h. Prices: Google Cloud a3-highgpu-8g, us-central1 (Cyclenerd
    pricing.yml@fd66b26, 2026-07-30): on demand 88.490, 1-year 61.384, 3-year 38.864 USD/h.

    - on demand: 17,520 h x 88.490 = 1,550,344.80 USD;
    - a 1-year term, renewed once: 2 x 8,760 h x 61.384 = 1,075,447.68 USD, all hours used;
    - a 3-year term: 26,280 h x 38.864 = 1,021,345.92 USD, 8,760 h of it unused;
    - bought (price 30,000 a card given, a 20,000 USD host of 1,000 W, 700 W a card at full
      load, PUE 1, 0.10 USD/kWh, no resale, site costs or discounting): 8 x 30,000 +
      20,000 + (8 x 700 + 1,000) / 1,000 x 0.10 x 17,520 h = 260,000 + 11,563.20 =
      271,563.20 USD.
    """
    gpus, hours_span = 8, 2 * YEAR
    local = bought_speed(REAL, "h100-sxm", Workload.TRANSFORMER, gpus)
    work = local * hours_span  # reference-card hours the 8 cards do in two years

    table = OfferTable(
        stored(
            a3_highgpu_8g(PricingModel.ON_DEMAND, 88.490),
            a3_highgpu_8g(PricingModel.RESERVED_1Y, 61.384, "commitment"),
            a3_highgpu_8g(PricingModel.RESERVED_3Y, 38.864, "commitment"),
        ),
        REAL,
    )
    assumptions = Assumptions(
        electricity=0.10,
        pue=1.0,
        load=1.0,
        host_cost=20_000.0,
        host_watts=1_000.0,
        utilization=1.0,
        resale=0.0,
        depreciation=0.0,
        # the cards and power only: no site costs, network or discounting (those are
        # tests/test_ownership.py's)
        colo_usd_per_kw_month=0.0,
        support_share=0.0,
        staff_usd_per_node_year=0.0,
        network_usd=0.0,
        discount_rate=0.0,
    )
    request = QuoteRequest(
        reference="h100-sxm",
        hours=work,
        gpus=gpus,
        price_usd=30_000.0,
        watts=700.0,
        assumptions=assumptions,
        deadline_hours=hours_span,
        pricing="any",
    )
    result = quote(table, REAL, request)
    tiers = _tiers(result)
    on_demand, one_year, three_years = (
        tiers[n] for n in ("on_demand", "reserved_1y", "reserved_3y")
    )
    assert on_demand.hours == pytest.approx(17_520.0)
    assert on_demand.total_usd == pytest.approx(1_550_344.80)
    assert one_year.paid_hours == 2 * YEAR  # renewed once: two terms, every hour used
    assert one_year.total_usd == pytest.approx(1_075_447.68)
    assert three_years.paid_hours == THREE_YEARS
    assert three_years.total_usd == pytest.approx(1_021_345.92)
    assert result.buy.total_usd == pytest.approx(271_563.20)
    # the cheapest rental is the 3-year term; buying is cheaper than all of them
    assert result.rent[0].stored.offer.pricing == PricingModel.RESERVED_3Y
    assert result.verdict == "buy"
    assert result.savings_usd == pytest.approx(1_021_345.92 - 271_563.20)


def test_the_cheapest_rental_is_the_cheapest_in_todays_money() -> None:
    """Two years of steady 8 x H100 work (deadline 17,520 h, utilization 1), discounted at
    10 % a year (rho = ln 1.1 / 8,760 per calendar hour), on a 3-year term bought two ways:

    - all upfront at 35.000 USD/h effective: 26,280 x 35 = 919,800.00 USD, all paid now, so
      worth 919,800.00 today;
    - no upfront at 38.864 USD/h: 26,280 x 38.864 = 1,021,345.92 USD, paid evenly over the
      three years: x (1 - 1.1^-3) / (3 ln 1.1) = x 0.869740 = 888,305.30 today;
    - on demand at 88.490 USD/h: 17,520 x 88.49 = 1,550,344.80 USD paid as the work is done
      over two years: x (1 - 1.1^-2) / (2 ln 1.1) = x 0.910468 = 1,411,539.18 today.

    Cheaper in cash, the upfront term is dearer in today's money, the figure the verdict
    weighs: the headline, the tier's best and the order of the rent lines are by it."""
    gpus, span = 8, 2 * YEAR
    work = bought_speed(REAL, "h100-sxm", Workload.TRANSFORMER, gpus) * span

    table = OfferTable(
        stored(
            a3_highgpu_8g(PricingModel.ON_DEMAND, 88.490),
            a3_highgpu_8g(PricingModel.RESERVED_3Y, 35.000, "all_upfront", 1.0),
            a3_highgpu_8g(PricingModel.RESERVED_3Y, 38.864, "no_upfront", 0.0),
        ),
        REAL,
    )
    assumptions = Assumptions(utilization=1.0, discount_rate=0.10)
    request = QuoteRequest(
        reference="h100-sxm",
        hours=work,
        gpus=gpus,
        price_usd=30_000.0,
        assumptions=assumptions,
        deadline_hours=span,
        pricing="any",
        top=3,
    )
    result = quote(table, REAL, request)
    three = (1 - 1.1**-3) / (3 * np.log(1.1))
    two = (1 - 1.1**-2) / (2 * np.log(1.1))
    assert (round(three, 6), round(two, 6)) == (0.86974, 0.910468)
    assert [r.stored.offer.purchase_option for r in result.rent] == [
        *("no_upfront", "all_upfront", "")
    ]
    no_upfront, all_upfront, on_demand = result.rent
    assert no_upfront.total_usd == pytest.approx(1_021_345.92)
    assert no_upfront.present_usd == pytest.approx(1_021_345.92 * three)
    assert no_upfront.present_usd == pytest.approx(888_305.30, abs=0.01)
    assert all_upfront.total_usd == pytest.approx(919_800.00)  # cheaper in cash
    assert all_upfront.present_usd == pytest.approx(919_800.00)
    assert on_demand.present_usd == pytest.approx(1_411_539.18, abs=0.01)
    assert _tiers(result)["reserved_3y"].stored.offer.purchase_option == "no_upfront"
    assert result.savings_usd == pytest.approx(abs(no_upfront.present_usd - result.buy.present_usd))


# -- the API, the CLI: the tiers and the `pricing` choice -----------------------------------


def test_every_answer_gives_each_tier_and_names_the_headlines(client) -> None:  # type: ignore[no-untyped-def]
    """By default the headline is capacity one can count on; the interruptible tiers stand
    beside it with their risk, and pricing=any makes the cheapest of all the headline."""
    answer = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()
    assert [t["tier"] for t in answer["tiers"]] == list(TIER_NAMES)
    compared = answer["compared_with"]
    assert compared["pricing"] == "dependable" and not compared["interruptible"]
    assert answer["rent"][0]["tier"] in ("on_demand", "reserved_1y", "reserved_3y")
    assert all(r["pricing"] in compared["admits"] for r in answer["rent"])
    buy = answer["buy"]["present_usd"]
    for tier in answer["tiers"]:
        best = tier["best"]
        assert best is not None, tier["tier"]  # the bundled catalog has every tier for a 3090
        assert best["tier"] == tier["tier"]
        assert tier["verdict"] == ("buy" if buy < best["present_usd"] else "rent")
        assert tier["interruptible"] == (best["interruption"] is not None)
        if tier["tier"].startswith("reserved"):
            c = best["commitment"]
            # a term is paid whole: 500 h of work pays the whole term on each instance
            assert c["paid_instance_hours"] == c["terms"] * c["term_hours"] * best["instances"]
            assert best["total_usd"] == pytest.approx(
                c["paid_instance_hours"] * best["usd_per_hour"]
            )
            assert c["used_instance_hours"] == pytest.approx(
                best["wall_clock_hours"] * best["instances"]
            )
    # the headline is the cheapest of the tiers it admits
    admitted = [t for t in answer["tiers"] if not t["interruptible"]]
    assert answer["rent"][0]["total_usd"] == min(t["total_usd"] for t in admitted)
    anyway = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&pricing=any").get_json()
    assert anyway["rent"][0]["total_usd"] == min(t["total_usd"] for t in anyway["tiers"])
    cheapest = min(anyway["tiers"], key=lambda t: t["total_usd"])
    assert anyway["compared_with"]["tier"] == cheapest["tier"]


@pytest.mark.parametrize("value", ["reserved", "spto", "", "on_demand,spot"])
def test_a_bad_pricing_is_a_400_naming_it(client, value: str) -> None:  # type: ignore[no-untyped-def]
    for path in ("/breakeven?detail=full&gpu=rtx3090&hours=500", "/rank?gpu=rtx3090"):
        response = client.get(f"{path}&pricing={value}")
        assert response.status_code == 400, (path, value)
        assert response.get_json()["errors"][0]["parameter"] == "pricing"


def test_offers_filter_and_show_committed_terms(client) -> None:  # type: ignore[no-untyped-def]
    """At least 50 committed offers are bundled across AWS, Google Cloud and Azure, each with
    a real date, its purchase option and upfront share."""
    body = client.get("/offers?pricing=reserved_1y&limit=10000").get_json()
    three = client.get("/offers?pricing=reserved_3y&limit=10000").get_json()
    offers = body["offers"] + three["offers"]
    assert len(offers) >= 50
    assert {o["provider"] for o in offers} >= {"aws", "gcp", "azure"}
    for o in offers:
        assert o["tier"] == o["pricing"]
        assert o["purchase_option"] and 0 <= o["upfront_share"] <= 1
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", o["price_as_of"]), o["price_as_of"]
        assert o["source"]


def test_the_cli_quote_prints_every_tier(settings) -> None:  # type: ignore[no-untyped-def]
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    args = ["quote", "--gpu", "rtx3090", "--hours", "500", "--wide"]
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    text = result.output
    terms = ", ".join(str(term) for term in TERM_MONTHS)  # shortest first, as sold
    assert f"pricing=dependable: on_demand, {terms}" in text
    assert "(against the cheapest on_demand rental)" in text
    tiers = text[text.index("TIERS") :]
    for name in TIER_NAMES:
        assert f"\n{name} " in tiers
    assert "8,760 h term paid" in tiers and "may be taken back mid-run" in tiers


# -- reading committed offers only as far as their floor needs ------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    hours=st.floats(10.0, 60_000.0),
    deadline=st.one_of(st.none(), st.floats(20.0, 80_000.0)),
    discount_rate=st.sampled_from([0.0, 0.1, 0.3]),
)
def test_the_committed_floor_finds_what_costing_every_offer_finds(
    seed: int, hours: float, deadline: float | None, discount_rate: float
) -> None:
    """600 committed offers (both terms, prices, speeds and upfront shares at random) among
    200 hourly ones: the engine reads the two committed orders only until their floor
    reaches the top-th cheapest in today's money, and finds the same cheapest offers, and
    the same best of each term, as costing every offer."""
    rng = random.Random(seed)
    offers = []
    options = [("no_upfront", 0.0), ("partial_upfront", 0.5), ("all_upfront", 1.0)]
    for i in range(800):
        pricing = (
            rng.choice([PricingModel.RESERVED_1Y, PricingModel.RESERVED_3Y])
            if i < 600
            else rng.choice([PricingModel.ON_DEMAND, PricingModel.SPOT])
        )
        option, upfront = rng.choice(options)
        committed = {"purchase_option": option, "upfront_share": upfront} if i < 600 else {}
        offers.append(
            offer(
                product=f"o{i}",
                accelerator=rng.choice(["ref", "fast"]),
                count=rng.choice([1, 2, 4]),
                pricing=pricing,
                usd_per_hour=round(rng.uniform(0.05, 3.0), 4),
                **committed,
            )
        )
    table = OfferTable(stored(*offers), TOY)
    assumptions = replace(PLAIN, discount_rate=discount_rate)
    request = QuoteRequest(
        reference="ref",
        hours=hours,
        assumptions=assumptions,
        pricing="any",
        top=3,
        deadline_hours=deadline,
    )
    try:
        result = quote(table, TOY, request)
    except QuoteError:
        return  # nothing meets the deadline: the loop below would find nothing either
    clock = result.buy_model.clock
    limits = Limits(result.deadline_hours, None, PLAIN.max_instances, clock=clock)
    every = np.arange(len(table))
    job = job_on(table, request, every, 1.0, limits)
    best = cheapest(every, job, 3)
    assert [r.present_usd for r in result.rent] == pytest.approx(list(job.present_usd[best]))
    assert [r.total_usd for r in result.rent] == pytest.approx(list(job.total_usd[best]))
    for name in ("reserved_1y", "reserved_3y"):
        kept = np.flatnonzero(table.pricing_code == table.pricings[name])
        alone = cheapest(every, job, 1, kept)
        found = _tiers(result)[name]
        if alone.size == 0:
            assert found is None
        else:
            assert found.present_usd == pytest.approx(float(job.present_usd[alone[0]]))
