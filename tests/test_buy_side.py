"""The buy side's defaults from data, on toy hardware with hand-computed figures.

Toy hosts (tests/helpers.TOY_HOSTS): desktop 1-2 cards 500 USD 100 W, workstation 4 cards
2,000 USD 200 W, server 8 cards 5,000 USD 500 W. Toy used-price curve: a card loses 20 % a
year. The ref card: 1,000 USD, 300 W; electricity 0.20 USD/kWh; scaling pcie 0.9 at 2 cards,
0.8 at 4 (and at 8, the last measured point).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from hardware import Hardware
from service.engine.assumptions import Assumptions
from service.engine.breakeven import QuoteRequest, quote
from service.engine.costs import buy_assumptions
from service.engine.offer_table import OfferTable
from tests.helpers import offer, stored, toy_hardware

HW = toy_hardware()
# Everything but the host and resale as in the engine tests; those two come from data.
FROM_DATA = Assumptions(electricity=0.2, pue=1.0, load=1.0, utilization=0.5, spot_overhead=0.1)


def run(**fields):  # type: ignore[no-untyped-def]
    table = OfferTable(stored(offer(usd_per_hour=0.5)), HW)
    request = QuoteRequest(
        **{
            "reference": "ref",
            "hours": 1000.0,
            "assumptions": FROM_DATA,
            "deadline_hours": math.inf,
            **fields,
        }
    )
    return quote(table, HW, request)


@pytest.mark.parametrize(
    ("cards", "host", "host_usd", "host_watts"),
    [
        (1, "desktop", 500.0, 100.0),
        (2, "desktop", 500.0, 100.0),
        (3, "workstation", 2000.0, 200.0),
        (4, "workstation", 2000.0, 200.0),
        (8, "server", 5000.0, 500.0),
        (16, "2 x server", 10000.0, 1000.0),
    ],
)
def test_hosts_are_sized_by_card_count(
    cards: int, host: str, host_usd: float, host_watts: float
) -> None:
    result = run(gpus=cards)
    assert result.buy.host == host
    assert result.buy.host_usd == host_usd
    assert result.assumptions.host_watts == host_watts
    # energy: (n x 300 W + host) x 0.20 USD/kWh per busy hour, over 1000 / (n x eta) hours
    # 16 cards fill two servers: times the Ethernet between them, 0.8 at 2 nodes (toy)
    eta = {1: 1.0, 2: 0.9, 3: 0.9, 4: 0.8, 8: 0.8, 16: 0.8 * 0.8}[cards]
    busy = 1000.0 / (cards * eta)
    assert result.buy.energy_usd == pytest.approx((cards * 300 + host_watts) / 1000 * 0.2 * busy)


def test_at_four_cards_the_host_is_a_workstation_by_hand() -> None:
    """4 ref cards, 1000 h of work: busy 1000 / (4 x 0.8) = 312.5 h; energy (1200 + 200) W
    x 0.20 USD/kWh x 312.5 h = 87.5 USD; capex 4,000 + 2,000 = 6,000 USD; resale after
    312.5 busy h = 625 calendar h at 50 % = 0.0713 years: 4,000 x 0.8^0.0713 = 3,936.6."""
    buy = run(gpus=4).buy
    years = 312.5 / 0.5 / 8760
    assert buy.purchase_usd + buy.host_usd == 6000.0
    assert buy.energy_usd == pytest.approx(87.5)
    assert buy.resale_usd == pytest.approx(4000 * 0.8**years)
    assert buy.total_usd == pytest.approx(6000 + 87.5 - 4000 * 0.8**years)


def test_given_host_cost_and_watts_replace_the_sized_host() -> None:
    given = replace(FROM_DATA, host_cost=0.0, host_watts=50.0)
    result = quote(
        OfferTable(stored(offer(usd_per_hour=0.5)), HW),
        HW,
        QuoteRequest(
            reference="ref", hours=1000.0, gpus=8, assumptions=given, deadline_hours=math.inf
        ),
    )
    assert (result.buy.host, result.buy.host_usd, result.assumptions.host_watts) == (
        "as given",
        0.0,
        50.0,
    )


def test_resale_follows_the_used_price_curve_by_default() -> None:
    """1 card, 8,760 h of work at 50 % utilization = 2 calendar years: it resells for
    1,000 x 0.8^2 = 640 USD."""
    result = run(hours=8760.0)
    assert result.assumptions.resale == 1.0 and result.assumptions.depreciation == 0.2
    assert result.buy.resale_usd == pytest.approx(640.0)
    assert result.buy.resale_basis.startswith("first-owner drop 0.0%")
    assert result.buy.sources["depreciation"].startswith("used-price curve")


def test_resale_zero_still_turns_it_off() -> None:
    result = run(hours=8760.0, assumptions=replace(FROM_DATA, resale=0.0))
    assert result.buy.resale_usd == 0.0
    assert result.buy.resale_basis.startswith("resale= as given")


def test_a_datacenter_card_resells_at_its_segments_first_owner_drop() -> None:
    """The toy world's datacenter drop is 100 %: nothing resold, at the segment's loss."""
    hw = replace(HW, cards={"ref": replace(HW.cards["ref"], consumer=False)})
    a, basis = buy_assumptions(FROM_DATA, hw, "ref", 1)
    assert a.resale == 0.0 and "first-owner drop 100.0%" in basis.resale
    assert basis.sources["depreciation"].startswith("0.2 toy")


def test_the_shipped_curve_loses_17_percent_a_year(hardware: Hardware) -> None:
    """Fitted by hardware/data/derive.py to 14 post-mining-boom used prices of 6 consumer
    cards: ln share = ln 1.097 - 0.190 x age, so a card keeps exp(-0.190) = 82.7 % a year."""
    curve = hardware.resale
    assert (curve.a, curve.b, curve.points) == (1.097, 0.190, 14)
    assert curve.yearly_loss == pytest.approx(1 - math.exp(-0.190), abs=5e-4)
    # an RTX 3090 after 4 years: 1,499 x 0.827^4 = 701 USD; observed 2026 used: 750-850 USD
    assert 1499 * (1 - curve.yearly_loss) ** 4 == pytest.approx(701, abs=1)


def test_the_shipped_hosts_grow_with_the_cards(hardware: Hardware) -> None:
    sizes = [(n, hardware.host(n).host.name, hardware.host(n).price_usd) for n in (1, 2, 4, 8)]
    assert sizes == [
        (1, "desktop", 695.0),
        (2, "desktop", 695.0),
        (4, "workstation", 7000.0),
        (8, "server", 15780.0),
    ]
    watts = [hardware.host(n).watts for n in (1, 4, 8)]
    assert watts == sorted(watts) and watts[0] == 280.0


@pytest.mark.parametrize(
    ("name", "value"),
    [("host_cost", "-1"), ("host_watts", "1e9"), ("resale", "1.5"), ("depreciation", "1")],
)
def test_bad_buy_side_values_are_a_400_naming_them(client, name: str, value: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/breakeven?detail=full&gpu=rtx3090&hours=500&{name}={value}")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == name


def test_price_basis_picks_a_sourced_price_and_says_which(client) -> None:  # type: ignore[no-untyped-def]
    default = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()
    assert default["assumptions"]["price_basis"] == "used"
    assert default["buy"]["price_source"].startswith("used price")
    launch = client.get(
        "/breakeven?detail=full&gpu=rtx3090&hours=500&price_basis=launch"
    ).get_json()
    assert (launch["assumptions"]["price"], launch["assumptions"]["price_basis"]) == (
        1499.0,
        "launch",
    )
    given = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&price=1000").get_json()
    assert given["assumptions"]["price_basis"] == "given"


def test_a_basis_with_no_sourced_price_is_a_422_naming_the_ones_there_are(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&price_basis=new")
    assert response.status_code == 422
    problem = response.get_json()
    assert problem["errors"][0]["parameter"] == "price_basis"
    assert "sourced: used, launch" in problem["detail"]


@pytest.mark.parametrize("value", ["old", "", "NEW"])
def test_a_bad_price_basis_is_a_400_naming_it(client, value: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/breakeven?detail=full&gpu=rtx3090&hours=500&price_basis={value}")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == "price_basis"


def test_gpus_serve_every_dated_price_past_ones_included(client) -> None:  # type: ignore[no-untyped-def]
    card = client.get("/gpus/rtx4090").get_json()["buy"]
    assert card["bases"] == ["new", "used", "launch"]
    dates = [(p["basis"], p["as_of"]) for p in card["prices"]]
    assert ("launch", "2022-10") in dates
    assert len([d for d in dates if d[0] == "new"]) >= 2  # the older new price is kept
