"""The engine against hand-computed answers on toy hardware (see tests/helpers.toy_hardware).

Unless a test says otherwise: electricity $0.20/kWh, PUE 1, load 1, no host, no resale, so
one ref card draws 300 W = 0.06 USD per busy hour and costs 1,000 USD.
"""

from __future__ import annotations

import math
from dataclasses import replace
from urllib.parse import parse_qsl

import numpy as np
import pytest

from hardware import Workload
from pricing.offer import PricingModel
from service.documents.breakeven import breakeven_document
from service.documents.errors import Unanswerable
from service.documents.queries import BreakevenQuery
from service.engine.assumptions import Assumptions
from service.engine.breakeven import (
    NoMatchingOffers,
    Quote,
    QuoteError,
    QuoteRequest,
    quote,
)
from service.engine.costs import BuyModel, crossing_hours
from service.engine.offer_table import OfferTable
from tests.helpers import offer, stored, toy_hardware

HW = toy_hardware()
PLAIN = Assumptions(
    electricity=0.2,
    pue=1.0,
    load=1.0,
    host_cost=0.0,
    host_watts=0.0,
    utilization=0.5,
    resale=0.0,
    depreciation=0.2,
    spot_overhead=0.1,
)


def run(offers, **request):  # type: ignore[no-untyped-def]
    table = OfferTable(stored(*offers), HW)
    fields = {"reference": "ref", "hours": 1000.0, "assumptions": PLAIN, **request}
    return quote(table, HW, QuoteRequest(**fields))


def test_same_speed_rental_breaks_even_at_capex_over_margin() -> None:
    result = run([offer(usd_per_hour=0.50)])
    # rent 1000 h x 0.50; buy 1000 + 0.06 x 1000
    assert result.rent[0].total_usd == pytest.approx(500.0)
    assert result.buy.total_usd == pytest.approx(1060.0)
    assert result.verdict == "rent"
    assert result.savings_usd == pytest.approx(560.0)
    # capex / (rental rate - energy per hour) = 1000 / 0.44
    assert result.breakeven_hours == pytest.approx(1000 / 0.44)
    # 2272.7 busy hours at 12 h a day
    assert result.breakeven_days == pytest.approx(1000 / 0.44 / 12)


def test_past_the_breakeven_point_buying_wins() -> None:
    result = run([offer(usd_per_hour=0.50)], hours=3000.0)
    assert result.buy.total_usd == pytest.approx(1180.0)
    assert result.verdict == "buy"
    assert result.savings_usd == pytest.approx(1500.0 - 1180.0)


def test_host_cost_and_power_enter_capex_and_energy() -> None:
    a = replace(PLAIN, host_cost=500.0, host_watts=100.0, pue=1.5)
    result = run([offer(usd_per_hour=0.50)], assumptions=a)
    energy_per_hour = (300 + 100) / 1000 * 1.5 * 0.2  # 0.12
    assert result.buy.energy_usd == pytest.approx(energy_per_hour * 1000)
    assert result.buy.total_usd == pytest.approx(1500 + energy_per_hour * 1000)
    assert result.breakeven_hours == pytest.approx(1500 / (0.50 - energy_per_hour))


def test_offer_below_the_memory_need_is_not_a_candidate() -> None:
    offers = [offer(accelerator="small", usd_per_hour=0.10), offer(usd_per_hour=0.50)]
    default_need = run(offers)  # ref card's 24 GB
    assert [r.stored.offer.accelerator for r in default_need.rent] == ["ref"]
    assert default_need.candidates == 1
    assert default_need.memory_gb == 24
    small_need = run(offers, memory_gb=16.0)
    assert [r.stored.offer.accelerator for r in small_need.rent] == ["small", "ref"]


def test_offer_memory_overrides_the_registry() -> None:
    result = run([offer(accelerator="small", memory_gb=32.0, usd_per_hour=0.1)])
    assert result.rent[0].stored.offer.accelerator == "small"


def test_rental_cheaper_than_electricity_never_breaks_even() -> None:
    result = run([offer(usd_per_hour=0.05)])  # below the 0.06/h the card burns
    assert result.breakeven_hours is None
    assert result.breakeven_days is None
    assert result.rent[0].breakeven_hours is None
    assert result.verdict == "rent"


@pytest.mark.parametrize("overhead", [0.1, 0.5])
def test_spot_overhead_stretches_interruptible_hours(overhead: float) -> None:
    a = replace(PLAIN, spot_overhead=overhead)
    result = run([offer(pricing=PricingModel.SPOT, usd_per_hour=0.40)], assumptions=a)
    assert result.rent[0].hours == pytest.approx(1000 * (1 + overhead))
    assert result.rent[0].total_usd == pytest.approx(1000 * (1 + overhead) * 0.40)


def test_spot_overhead_leaves_on_demand_alone_and_hits_compute_units() -> None:
    a = replace(PLAIN, spot_overhead=0.5)
    on_demand = run([offer(usd_per_hour=0.40)], assumptions=a)
    colab = run([offer(pricing=PricingModel.COMPUTE_UNITS, usd_per_hour=0.40)], assumptions=a)
    assert on_demand.rent[0].hours == pytest.approx(1000)
    assert colab.rent[0].hours == pytest.approx(1500)


@pytest.mark.parametrize(
    ("accelerator", "count", "workload", "expected_hours"),
    [
        ("ref", 4, Workload.TRANSFORMER, 1000 / (4 * 0.8)),  # pcie eta(4) = 0.8
        ("ref", 3, Workload.TRANSFORMER, 1000 / (3 * 0.9)),  # between points: eta(2) = 0.9
        ("fast", 1, Workload.TRANSFORMER, 1000 / 2.0),
        ("fast", 2, Workload.TRANSFORMER, 1000 / (2 * 0.95 * 2.0)),  # nvlink eta(2)
        ("fast", 2, Workload.RNN, 1000 / (2 * 0.95 * 1.5)),  # rnn speed 1.5
        ("fast", 16, Workload.CNN, 1000 / (16 * 0.9 * 2.0)),  # past the last point: eta(8)
    ],
)
def test_multi_gpu_scaling_divides_hours(
    accelerator: str, count: int, workload: Workload, expected_hours: float
) -> None:
    result = run([offer(accelerator=accelerator, count=count, usd_per_hour=3.0)], workload=workload)
    assert result.rent[0].hours == pytest.approx(expected_hours)
    assert result.rent[0].total_usd == pytest.approx(expected_hours * 3.0)


def test_local_cards_scale_busy_hours_energy_and_capex() -> None:
    result = run([offer(usd_per_hour=0.50)], gpus=2)
    busy = 1000 / (2 * 0.9)
    assert result.buy.hours == pytest.approx(busy)
    assert result.buy.purchase_usd == pytest.approx(2000)
    assert result.buy.energy_usd == pytest.approx(busy * 0.12)
    # buy per reference hour = 0.12 / 1.8; capex 2000
    assert result.breakeven_hours == pytest.approx(2000 / (0.50 - 0.12 / 1.8))


def test_resale_depreciates_over_calendar_time() -> None:
    a = replace(PLAIN, resale=0.5, depreciation=0.2)
    # 4380 busy hours at 50 % utilization = exactly one calendar year
    result = run([offer(usd_per_hour=0.50)], hours=4380.0, assumptions=a)
    assert result.buy.resale_usd == pytest.approx(1000 * 0.5 * 0.8)
    assert result.buy.total_usd == pytest.approx(1000 - 400 + 0.06 * 4380)


def test_breakeven_with_resale_solves_the_cost_equation() -> None:
    a = replace(PLAIN, resale=0.6, depreciation=0.3)
    result = run([offer(usd_per_hour=0.50)], assumptions=a)
    h = result.breakeven_hours
    assert h is not None
    resale = 600 * 0.7 ** (h / (0.5 * 8760))
    assert 0.50 * h == pytest.approx(1000 - resale + 0.06 * h, rel=1e-9)
    # resale lowers what buying costs, so it pays off earlier than without resale
    assert h < 1000 / 0.44


def test_breakeven_hours_function_edges() -> None:
    rates = np.array([0.5, 0.06, 0.01])
    out = crossing_hours(BuyModel(1000.0, 0.06, 0.0, 0.0, 0.0), rates)
    assert out[0] == pytest.approx(1000 / 0.44)
    assert math.isinf(out[1]) and math.isinf(out[2])
    # resale worth more than the capex: buying is cheaper from the first hour
    assert crossing_hours(BuyModel(100.0, 0.0, 0.0, 200.0, 0.001), np.array([1.0]))[0] == 0


def test_rentals_sorted_cheapest_first_and_cut_to_top() -> None:
    offers = [offer(product=f"p{i}", usd_per_hour=p) for i, p in enumerate([3, 1, 2, 5, 4])]
    result = run(offers, top=3)
    assert [r.stored.offer.usd_per_hour for r in result.rent] == [1, 2, 3]
    assert result.candidates == 5


def test_filters_providers_region_prefix_and_pricing() -> None:
    offers = [
        offer(provider="aws", region="us-east-1", usd_per_hour=1.0),
        offer(provider="gcp", region="europe-west4", usd_per_hour=0.9),
        offer(provider="gcp", region="us-central1", pricing=PricingModel.SPOT, usd_per_hour=0.5),
        offer(
            provider="aws", region="us-east-1", pricing=PricingModel.RESERVED_1Y, usd_per_hour=0.1
        ),
    ]

    def products(result):  # type: ignore[no-untyped-def]
        return [(x.stored.offer.provider, x.stored.offer.region) for x in result.rent]

    hourly = "on_demand"  # pricing=: the reserved term competes only where asked for
    assert products(run(offers, providers=frozenset({"aws"}), pricing=hourly)) == [
        ("aws", "us-east-1")
    ]
    assert products(run(offers, region="us", pricing="interruptible")) == [("gcp", "us-central1")]
    assert products(run(offers, pricing="on_demand")) == [
        ("gcp", "europe-west4"),
        ("aws", "us-east-1"),
    ]
    # a 1-year term is paid whole: 8,760 h x 0.10 = 876 USD for 1,000 h of work, dearer
    # than 1,000 h at 0.50 on spot (x 1.1 for the allowance: 550), cheaper than on demand
    everything = run(offers)
    assert [round(r.total_usd) for r in everything.rent] == [550, 876, 900, 1000]
    assert everything.rent[1].stored.offer.pricing == PricingModel.RESERVED_1Y


def test_nothing_to_compare_is_an_error_naming_the_cause() -> None:
    with pytest.raises(NoMatchingOffers):
        run([offer(accelerator="small")])
    with pytest.raises(NoMatchingOffers):
        run([offer()], providers=frozenset({"nobody"}))


# Two rentals: aws in the cloud tier in us-east-1, runpod's secure tier in eu-west
TIERS = [
    offer(provider="aws", region="us-east-1", market="cloud"),
    offer(provider="runpod", region="eu-west", market="secure"),
]


def _blamed(**request) -> tuple[list[str], str]:  # type: ignore[no-untyped-def]
    with pytest.raises(NoMatchingOffers) as info:
        run(TIERS, **request)
    assert info.value.parameter == info.value.blamed[0][0]
    return [parameter for parameter, _ in info.value.blamed], str(info.value)


def test_a_filter_that_matches_nothing_is_named_not_the_card() -> None:
    """Hostile review 2026-12-01, #11: every filter that left no offer blamed gpu."""
    blamed, detail = _blamed(region="nosuch")
    assert blamed == ["region"]
    assert "region=nosuch leaves none; without it 2 would match" in detail
    assert "(providers, rent_gpu, platforms, market, pricing, region;" in detail


def test_filters_that_leave_none_only_together_are_each_named() -> None:
    # each matches an offer alone: aws in the cloud tier, runpod's secure one
    blamed, detail = _blamed(providers=frozenset({"aws"}), markets=frozenset({"secure"}))
    assert blamed == ["providers", "market"]
    assert "providers=aws and market=secure leave none together" in detail
    # no spot offer at all: aws is not to blame
    assert _blamed(pricing="spot", providers=frozenset({"aws"}))[0] == ["pricing"]


def test_where_no_single_filter_is_enough_those_matching_nothing_alone_are_named() -> None:
    # dropping any one leaves none still; region=nosuch matches nothing even alone
    blamed, detail = _blamed(
        region="nosuch", providers=frozenset({"aws"}), markets=frozenset({"secure"})
    )
    assert blamed == ["region"]
    assert "region=nosuch matches none even alone" in detail


def test_the_memory_gate_is_named_by_what_set_it() -> None:
    assert _blamed(memory_gb=100.0)[0] == ["memory"]
    assert _blamed(region="eu", memory_gb=100.0)[0] == ["memory"]  # eu-west is there


REVIEWED = [
    ("region=nosuch", ["region"]),
    ("market=secure&providers=aws", ["providers", "market"]),
    ("pricing=spot&providers=lambda", ["providers", "pricing"]),
    ("platforms=neuron&region=eu", ["platforms", "region"]),
]


@pytest.mark.parametrize(("filters", "blamed"), REVIEWED)
def test_the_reviews_empty_filters_are_named_over_http(client, filters: str, blamed) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/breakeven?detail=full&gpu=rtx3090&hours=500&{filters}")
    assert response.status_code == 422
    body = response.get_json()
    assert body["errors"][0]["parameter"] == blamed[0]  # was gpu, for each of them
    assert all(f"{name}=" in body["detail"] for name in blamed)
    assert "market" in body["detail"]


@pytest.mark.parametrize(("filters", "blamed"), REVIEWED)
def test_the_problem_carries_every_filter_to_blame(app, filters: str, blamed) -> None:  # type: ignore[no-untyped-def]
    query = BreakevenQuery(gpu="rtx3090", hours=500, **dict(parse_qsl(filters)))
    with pytest.raises(Unanswerable) as info:
        breakeven_document(query, app.extensions["breakeven"])
    assert [e["parameter"] for e in info.value.errors] == blamed


def test_card_without_a_sourced_price_needs_price() -> None:
    with pytest.raises(QuoteError) as info:
        run([offer()], reference="fast", memory_gb=24.0)
    assert info.value.parameter == "price"
    result = run([offer(usd_per_hour=20.0)], reference="fast", memory_gb=24.0, price_usd=30000.0)
    assert result.buy.purchase_usd == 30000.0
    # the workload is measured on the reference card: 1000 fast-card hours = 2000 ref hours
    assert result.rent[0].hours == pytest.approx(2000)


def test_offers_of_unknown_accelerators_are_counted_not_quoted() -> None:
    table = OfferTable(stored(offer(), offer(accelerator="mystery")), HW)
    assert len(table) == 1 and table.unrated == 1


def test_buy_model_reproduces_the_buy_total_and_meets_renting_at_breakeven() -> None:
    a = replace(PLAIN, resale=0.5, depreciation=0.25, host_cost=400.0)
    result = run([offer(usd_per_hour=0.50)], hours=3000.0, assumptions=a)
    model = result.buy_model
    assert model.cost(3000.0) == pytest.approx(result.buy.total_usd)
    h = result.breakeven_hours
    assert h is not None and model.cost(h) == pytest.approx(0.50 * h, rel=1e-9)


# -- the platform gate: only offers the user's code runs on compete, unless asked -----------

PLATFORM_OFFERS = stored(
    offer(product="ref box", accelerator="ref", usd_per_hour=0.50),  # cuda, speed 1
    offer(product="chip box", accelerator="chip", usd_per_hour=0.40),  # xla, speed 2
)


def _gated(platforms: frozenset[str] | None) -> Quote:
    table = OfferTable(PLATFORM_OFFERS, HW)
    request = QuoteRequest("ref", 1000, assumptions=PLAIN, platforms=platforms)
    return quote(table, HW, request)


def test_only_the_cards_own_platform_competes_and_the_best_left_out_is_named() -> None:
    result = _gated(frozenset({"cuda"}))
    # 1000 h of ref work: the ref box runs 1000 h at 0.50 = 500; the chip (2x) 500 h at 0.40
    assert [r.stored.offer.product for r in result.rent] == ["ref box"]
    assert result.rent[0].total_usd == pytest.approx(500.0)
    assert result.left_out is not None
    assert result.left_out.platforms == frozenset({"xla"}) and result.left_out.offers == 1
    assert result.left_out.best.stored.offer.product == "chip box"
    assert result.left_out.best.hours == pytest.approx(500.0)
    assert result.left_out.best.total_usd == pytest.approx(200.0)


def test_every_platform_competes_when_asked_and_nothing_is_left_out() -> None:
    result = _gated(None)
    assert result.rent[0].stored.offer.product == "chip box"
    assert result.rent[0].total_usd == pytest.approx(200.0)
    assert result.left_out is None


def test_the_other_platform_alone_leaves_out_the_cards_own() -> None:
    result = _gated(frozenset({"xla"}))
    assert [r.stored.offer.product for r in result.rent] == ["chip box"]
    assert result.left_out is not None and result.left_out.best.total_usd == pytest.approx(500.0)


# -- useful life: a crossing after it is no payoff ------------------------------------------


@pytest.mark.parametrize(
    ("years", "life_hours", "within"),
    [
        (4.0, 4 * 8760 * 0.5, True),  # 17,520 h of work in 4 years at 50 %: 2,272.7 h is inside
        (0.5, 0.5 * 8760 * 0.5, False),  # 2,190 h: the crossing at 2,272.7 h lies past it
    ],
)
def test_a_breakeven_past_the_useful_life_is_not_a_payoff(
    years: float, life_hours: float, within: bool
) -> None:
    from dataclasses import replace

    from service.documents.breakeven import RentLines, _quote_document

    result = run([offer(usd_per_hour=0.50)], assumptions=replace(PLAIN, lifetime_years=years))
    assert result.life_hours == pytest.approx(life_hours)
    point = _quote_document(result, RentLines(result, None, HW.registry))["breakeven"]
    assert point["within_life"] is within
    assert point["crossing_hours"] == pytest.approx(1000 / 0.44)
    assert point["life_years"] == years
    if within:
        assert point["hours"] == pytest.approx(1000 / 0.44)
    else:
        assert point["hours"] is None and point["days"] is None


def test_two_cards_do_twice_the_work_in_their_life() -> None:
    # 2 ref cards on pcie scale at 0.9: 1.8 reference-card hours of work per busy hour
    result = run([offer(usd_per_hour=0.50)], gpus=2)
    assert result.life_hours == pytest.approx(4 * 8760 * 0.5 * 1.8)


@pytest.mark.parametrize(
    ("usd_per_hour", "days"),
    [
        (2.14, 2200 / (2.14 - 0.054) / (24 * 0.15)),  # on-demand V100: "about 300 days"
        (0.90, 2200 / (0.90 - 0.054) / (24 * 0.15)),  # spot: "20 months" (722 days)
    ],
)
def test_dettmers_2020_desktop_against_the_cloud_still_reproduces(
    usd_per_hour: float, days: float
) -> None:
    """Dettmers, "Which GPU(s) to get for deep learning" (2020): a 2,200 USD desktop at
    450 W and 0.12 USD/kWh, 15 % utilization, against a rental of equal speed; his inputs
    passed explicitly (no host, the desktop is the price)."""
    from dataclasses import replace

    dettmers = replace(PLAIN, electricity=0.12, utilization=0.15)
    result = run([offer(usd_per_hour=usd_per_hour)], price_usd=2200.0, watts=450.0,
                 assumptions=dettmers)  # fmt: skip
    assert result.breakeven_days == pytest.approx(days)
    assert result.breakeven_hours is not None and result.breakeven_hours < result.life_hours
    if usd_per_hour == 2.14:
        assert 280 < result.breakeven_days < 310  # his text: about 300 days


def test_a_discounted_crossing_below_the_smallest_float_ends() -> None:
    """Found by the property tests: a capex of 5e-324 (the smallest float) over a margin of
    2 USD/h underflows the bracket's first end to 0 h, which doubling never moved: the
    search ran forever. The crossing is at 0 h."""
    model = BuyModel(
        capex_usd=5e-324,
        energy_usd_per_hour=0.0,
        site_usd_per_hour=0.0,
        resale_start_usd=0.0,
        resale_decay_per_hour=0.0,
        discount_per_calendar_hour=1.088e-05,
    )
    assert crossing_hours(model, np.array([2.0])).tolist() == [0.0]
