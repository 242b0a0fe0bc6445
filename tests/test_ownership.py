"""Buying the whole thing (issue 32), by hand: a node in colocation with every part itemized,
money over time on both sides, resale as a seller gets it, and the card a team owns already.
Every figure below is the bundled data's (hardware/data/ownership.csv, systems.csv,
prices.csv, hosts.csv), written out so a reader can check the arithmetic."""

from __future__ import annotations

import math

import pytest

from hardware import Hardware, Workload
from service.engine.costs import bought_speed

YEAR = 8760.0


def _fee(sale: float) -> float:
    """eBay without a store: 13.6 % up to 7,500 USD, 2.35 % above, 0.40 USD an order."""
    return (0.136 * min(sale, 7500) + 0.0235 * max(sale - 7500, 0) + 0.40) / sale


def _node_question(hardware: Hardware, discount_rate: float) -> str:
    """Two years of eight H100 SXM's work at utilization 1: 17,520 h of calendar time."""
    work = bought_speed(hardware, "h100-sxm", Workload.TRANSFORMER, 8) * 2 * YEAR
    return (
        f"/breakeven?detail=full&gpu=h100-sxm&gpus=8&hours={work!r}&utilization=1"
        f"&discount_rate={discount_rate}&pricing=on_demand"
    )


def test_eight_h100s_bought_as_a_node_and_run_in_colo_for_two_years(client, hardware) -> None:  # type: ignore[no-untyped-def]
    """An HGX H100 node is sold whole: 317,000 USD (Thinkmate quote, 2024-08), its host
    inside. In colo: 8 x 700 W + the server's 1,030 W = 6.63 kW nameplate;
    - energy: 6.63 kW x PUE 1.54 x 0.0947 USD/kWh x 17,520 h = 16,940.19 USD;
    - colocation: 194.95 USD/kW-month x 6.63 kW x 24 months = 31,020.44 USD;
    - support: 10 % of 317,000 a year x 2 = 63,400 USD; staff: 1,678 x 1 node x 2 = 3,356;
    - network: one node, none;
    - resale: used 23,500 over new 30,000 for an H100 SXM, less a broker's 15 %, then
      32.35 % a year lost for 2 years: 317,000 x 0.78333 x 0.85 x 0.6765^2 = 96,595.7 USD.
    """
    answer = client.get(_node_question(hardware, 0.0)).get_json()
    buy = answer["buy"]
    kw = (8 * 700 + 1030) / 1000
    energy = kw * 1.54 * 0.0947 * 2 * YEAR
    colo = 194.95 * kw * 24
    support = 0.10 * 317_000 * 2
    staff = 1678 * 2
    resale = 317_000 * (23_500 / 30_000) * (1 - 0.15) * (1 - 0.3235) ** 2
    assert (buy["purchase_usd"], buy["host_usd"], buy["network_usd"]) == (317_000, 0, 0)
    assert buy["price_basis"] == "system" and buy["system"] == "1 x 8-card h100-sxm system"
    assert (buy["site"], buy["nodes"]) == ("colo", 1)
    assert buy["wall_clock_hours"] == pytest.approx(2 * YEAR)
    assert buy["energy_usd"] == pytest.approx(energy) and energy == pytest.approx(16_940.19)
    assert buy["colo_usd"] == pytest.approx(colo) and colo == pytest.approx(31_020.44)
    assert buy["support_usd"] == pytest.approx(support)
    assert buy["staff_usd"] == pytest.approx(staff)
    assert buy["site_usd"] == pytest.approx(colo + support + staff)
    assert buy["resale_usd"] == pytest.approx(resale) and resale == pytest.approx(96_595.7, 1e-5)
    total = 317_000 + energy + colo + support + staff - resale
    assert buy["total_usd"] == pytest.approx(total)
    # undiscounted, the present value is the cash on both sides
    assert buy["present_usd"] == pytest.approx(total)
    rent = answer["rent"][0]
    assert rent["present_usd"] == pytest.approx(rent["total_usd"])
    # every default says where it came from
    assert {"electricity", "pue", "colo_usd_per_kw_month", "support_share"} <= set(buy["sources"])
    assert buy["sources"]["colo_usd_per_kw_month"].startswith("site colo: 194.95 USD per kW")


def test_a_discount_rate_of_10_percent_against_none_on_both_sides(client, hardware) -> None:  # type: ignore[no-untyped-def]
    """At 10 % a year (continuously ln 1.1), money paid evenly over two years is worth
    (1 - 1.1^-2) / (2 ln 1.1) = 0.91047 of its sum now, and the resale in two years 1.1^-2:
    buying = 317,000 now + the running costs x 0.91048 - the resale / 1.21; the on-demand
    rental, paid as the work is done over the same two years, x 0.91047."""
    cash = client.get(_node_question(hardware, 0.0)).get_json()
    now = client.get(_node_question(hardware, 0.1)).get_json()
    share = (1 - 1.1**-2) / (2 * math.log(1.1))
    assert share == pytest.approx(0.91047, abs=1e-5)
    buy = cash["buy"]
    running = buy["energy_usd"] + buy["site_usd"]
    expected = 317_000 + running * share - buy["resale_usd"] / 1.21
    assert now["buy"]["present_usd"] == pytest.approx(expected)
    assert now["buy"]["total_usd"] == pytest.approx(buy["total_usd"])  # the cash is the same
    rent = now["rent"][0]
    assert rent["commitment"] is None
    assert rent["present_usd"] == pytest.approx(rent["total_usd"] * share)
    money = now["money"]
    assert money["discount_rate"] == 0.1
    assert money["buy_present_usd"] == now["buy"]["present_usd"]
    assert money["buy_undiscounted_usd"] == now["buy"]["total_usd"]
    assert money["rent_undiscounted_usd"] == rent["total_usd"]
    assert now["savings_usd"] == pytest.approx(abs(rent["present_usd"] - expected))


def test_a_new_rtx_4090_resold_after_100_hours_fetches_under_85_percent(client, hardware) -> None:  # type: ignore[no-untyped-def]
    """Bought new at 1,900 USD (May 2026), it sells used at that month's 1,550 (the
    first-owner drop, 18.4 %), less eBay's 13.6 % and 0.40, then 200 calendar hours along the
    consumer curve: 1,550 x (1 - 0.13626) x 0.827^(200/8760) = 1,333 USD, 70 % of the price."""
    buy = client.get("/breakeven?detail=full&gpu=rtx4090&hours=100").get_json()["buy"]
    kept = (1 - hardware.resale.yearly_loss) ** (200 / YEAR)
    expected = 1550 * (1 - _fee(1550)) * kept
    assert buy["purchase_usd"] == 1900
    assert buy["resale_usd"] == pytest.approx(expected)
    assert buy["resale_usd"] / buy["purchase_usd"] < 0.85
    assert buy["resale_usd"] == pytest.approx(1333, abs=1)


def test_an_a100_80gb_resells_at_its_sourced_used_price(client) -> None:  # type: ignore[no-untyped-def]
    """New at 11,500 USD and used at 6,500 (aitooldiscovery.com, both 2026-03): sold for
    6,500 less eBay's fee, then the A100 80GB SXM4's own measured 28.2 % a year for 200 h. One
    card bought loose at its new price (price=): its sourced purchase is the whole 8-card
    system (systems.csv)."""
    buy = client.get("/breakeven?detail=full&gpu=a100-80gb&hours=100&price=11500").get_json()["buy"]
    expected = 6500 * (1 - _fee(6500)) * (1 - 0.282) ** (200 / YEAR)
    assert buy["purchase_usd"] == 11_500
    assert buy["resale_usd"] == pytest.approx(expected)
    assert "used 6500 USD (2026-03" in buy["resale_basis"]


def test_own_a_3090_keep_it_upgrade_to_a_4090_or_rent_for_2000_hours(client, hardware) -> None:  # type: ignore[no-untyped-def]
    """Owning an RTX 3090 (used 650 USD, 2026-06; selling it brings 650 less eBay's fee):
    - keep: the 3090 does 2,000 h of the 4090's work at its own speed, 350 W + the desktop's
      280 W at home (0.1648 USD/kWh), and loses value along the consumer curve meanwhile;
    - upgrade: sell it, buy a 4090 into the same box (no host to buy);
    - rent: sell it and rent the cheapest. Undiscounted here."""
    answer = client.get(
        "/breakeven?detail=full&gpu=rtx4090&hours=2000&own=rtx3090&discount_rate=0"
    ).get_json()
    own = answer["own"]
    paths = {p["name"]: p for p in own["paths"]}
    sale = 650 * (1 - _fee(650))
    assert (own["gpu"], own["value_usd"]) == ("rtx3090", 650)
    assert own["sale_usd"] == pytest.approx(sale)
    speed = (
        hardware.speed("rtx3090", Workload.TRANSFORMER).relative
        / hardware.speed("rtx4090", Workload.TRANSFORMER).relative
    )
    busy = 2000 / speed
    calendar = busy / 0.5
    energy = (350 + 280) / 1000 * 0.1648 * busy
    resale_end = sale * (1 - hardware.resale.yearly_loss) ** (calendar / YEAR)
    keep = paths["keep"]
    assert keep["wall_clock_hours"] == pytest.approx(calendar)
    assert keep["total_usd"] == pytest.approx(energy + sale - resale_end)
    assert answer["buy"]["host_usd"] == 0  # the 4090 goes into the 3090's desktop
    assert paths["upgrade"]["total_usd"] == pytest.approx(answer["buy"]["total_usd"])
    assert paths["rent"]["total_usd"] == pytest.approx(answer["rent"][0]["total_usd"])
    cheapest = min(paths.values(), key=lambda p: p["present_usd"])
    assert own["best"] == cheapest["name"]


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("site=moon", "site"),
        ("discount_rate=2", "discount_rate"),
        ("discount_rate=x", "discount_rate"),
    ],
)
def test_a_bad_site_or_discount_rate_is_a_400_naming_it(client, query: str, parameter: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/breakeven?detail=full&gpu=rtx3090&hours=500&{query}")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == parameter


def test_an_unknown_owned_card_is_a_404_with_suggestions(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/breakeven?detail=full&gpu=rtx4090&hours=2000&own=rtx3099")
    assert response.status_code == 404
    problem = response.get_json()
    assert problem["errors"][0]["parameter"] == "own"
    assert "rtx3090" in problem["suggestions"]


def test_a_site_moves_the_tariff_and_the_running_costs(client) -> None:  # type: ignore[no-untyped-def]
    """The same desktop card at home and in colocation: the site's tariff, PUE and rent."""
    home = client.get("/breakeven?detail=full&gpu=rtx4090&hours=1000").get_json()
    colo = client.get("/breakeven?detail=full&gpu=rtx4090&hours=1000&site=colo").get_json()
    assert (home["assumptions"]["electricity"], colo["assumptions"]["electricity"]) == (
        0.1648,
        0.0947,
    )
    assert (home["buy"]["colo_usd"], colo["assumptions"]["pue"]) == (0, 1.54)
    assert colo["buy"]["colo_usd"] > 0 and colo["buy"]["site_basis"] == "given (site=)"


def test_rank_owns_a_system_only_card_by_the_node(client) -> None:  # type: ignore[no-untyped-def]
    """An H100 SXM at 30,000 USD a card fits a 50,000 USD budget; the node it is sold in,
    317,000 USD, does not. Its cost over the work is the node's doing it, in colo."""
    answer = client.get("/rank?workload=transformer&hours=1000&budget=50000").get_json()
    cards = {card["id"]: card for card in answer["cards"] + answer["too_small"]}
    h100 = cards["h100-sxm"]
    assert h100["purchase_usd"] == 30_000 and h100["within_budget"] is False
    assert h100["tco_usd"] > 100_000  # a node, not one card
    assert cards["a100-80gb-pcie"]["within_budget"] is True  # sold as a card: its own price
    assert cards["a100-80gb"]["within_budget"] is False  # an SXM card: the 8-card node
    colo = client.get("/rank?workload=transformer&hours=1000&site=colo").get_json()
    home = client.get("/rank?workload=transformer&hours=1000&site=home").get_json()
    tco = {a["id"]: a["tco_usd"] for a in home["cards"]}
    assert {a["id"]: a["tco_usd"] for a in colo["cards"]}["rtx3090"] > tco["rtx3090"]


@pytest.mark.parametrize(
    ("query", "loss", "said"),
    [
        ("gpu=a100-80gb-pcie&hours=100", 0.545, "A100 80GB PCIe, 54.5 %"),
        ("gpu=a100-80gb&gpus=8&hours=100", 0.282, "A100 80GB SXM4, 28.2 %"),
        ("gpu=v100-32gb&hours=100&price=1500", 0.365, "V100 32GB"),
        # the H100's own series is flat: no basis for the years ahead, the median stands in
        ("gpu=h100-sxm&gpus=8&hours=100", 0.3235, "median of SpotWire's"),
    ],
)
def test_each_datacenter_class_loses_value_at_its_own_measured_rate(  # type: ignore[no-untyped-def]
    client, query: str, loss: float, said: str
) -> None:
    """SpotWire's yearly decay of eBay sold prices per class (2026-06-04): an A100 80GB PCIe
    loses 54.5 % a year, an SXM4 28.2 %: one median for both was wrong for both."""
    body = client.get(f"/breakeven?detail=full&{query}").get_json()
    assert body["assumptions"]["depreciation"] == pytest.approx(loss)
    assert said in body["buy"]["sources"]["depreciation"]
