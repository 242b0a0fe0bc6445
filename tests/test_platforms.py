"""The platform gate through the API: a CUDA card competes with CUDA rentals unless asked."""

from __future__ import annotations

import pytest

README_QUESTION = "/breakeven?detail=full&gpu=rtx3090&hours=500"


# The gate is the same whatever the pricing tiers: asked over every tier, the cheapest offer
# it keeps out (a TPU or Trainium spot offer) is cheaper than any CUDA one.
EVERY_TIER = README_QUESTION + "&pricing=any"


def test_by_default_only_the_cards_platform_competes(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.get(EVERY_TIER).get_json()
    assert answer["assumptions"]["platforms"] == ["cuda"]
    assert all(not r["accelerator"].startswith("tpu-") for r in answer["rent"])
    left_out = answer["left_out"]
    assert left_out["platforms"] == ["neuron", "rocm", "xla"] and left_out["offers"] > 0
    best = left_out["best"]["accelerator"]
    assert best.startswith(("tpu-", "trainium")), best


def test_all_platforms_opt_in_brings_the_left_out_offer_back(client) -> None:  # type: ignore[no-untyped-def]
    gated = client.get(EVERY_TIER).get_json()
    everything = client.get(EVERY_TIER + "&platforms=all").get_json()
    assert everything["assumptions"]["platforms"] == "all"
    assert everything["left_out"] is None
    best = gated["left_out"]["best"]
    cheapest = everything["rent"][0]
    assert (cheapest["product"], cheapest["total_usd"]) == (best["product"], best["total_usd"])
    platform = {"tpu": "xla"}.get(best["accelerator"].split("-")[0], "neuron")
    both = client.get(f"{EVERY_TIER}&platforms=cuda,{platform}").get_json()
    assert both["rent"][0]["total_usd"] == cheapest["total_usd"]


@pytest.mark.parametrize("value", ["nosuch", "", "cuda,nosuch", ","])
def test_a_bad_platform_is_a_400_naming_it(client, value: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"{README_QUESTION}&platforms={value}")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == "platforms"


def test_rank_rentals_follow_the_same_gate(client) -> None:  # type: ignore[no-untyped-def]
    gated = client.get("/rank?gpu=rtx3090&hours=500&pricing=any").get_json()
    assert gated["platforms"] == ["cuda"]
    ported = ("tpu-", "trainium")
    assert all(not r["accelerator"].startswith(ported) for r in gated["rent"])
    everything = client.get("/rank?gpu=rtx3090&hours=500&platforms=all&pricing=any").get_json()
    assert everything["platforms"] == "all"
    assert any(r["accelerator"].startswith(ported) for r in everything["rent"])
    assert client.get("/rank?platforms=cuda,nosuch").status_code == 400


def test_the_readmes_first_example_is_what_the_service_answers(client) -> None:  # type: ignore[no-untyped-def]
    """Each figure the README quotes for `gpu=rtx3090&hours=500`, rounded as it writes them."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    start = readme.index("\n## The example, explained\n")
    intro = " ".join(readme[start : readme.index("\n## ", start + 1)].split())  # lines joined
    a = client.get(README_QUESTION).get_json()
    cheapest, left, same = a["rent"][0], a["left_out"], a["same_card"]
    crossing = a["breakeven"]["crossing_hours"]
    tiers = {t["tier"]: t["best"] for t in a["tiers"]}
    spot, term = tiers["spot"], tiers["reserved_1y"]
    anyway = client.get(README_QUESTION + "&pricing=any").get_json()
    assert a["compared_with"]["tier"] == "on_demand" and cheapest["market"] == "verified"
    quoted = {
        f"costs {a['buy']['total_usd']:,.0f} USD": "buy total",
        f"({a['buy']['present_usd']:,.0f} USD in today's money)": "buy present value",
        f"2026 used price ({a['assumptions']['price']:,.0f} USD": "used price",
        f"({a['buy']['host_usd']:,.0f} USD, {a['assumptions']['host_watts']:g} W": "host",
        f"{a['buy']['energy_usd']:,.0f} USD of electricity": "energy",
        f"{a['buy']['resale_usd']:,.0f} USD the card still sells for": "resale",
        f"lose {a['assumptions']['depreciation']:.1%}".replace("%", " %"): "depreciation",
        f"host in {cheapest['region']} ({cheapest['usd_per_hour']:.2f} USD/h": "cheapest rental",
        f"work in {cheapest['wall_clock_hours']:,.0f} hours for {cheapest['total_usd']:,.0f} USD": (
            "rental total"
        ),
        f"only after {crossing:,.0f} hours": "crossing",
        f"past the {a['breakeven']['life_hours']:,.0f} a card does": "life hours",
        f"spot VM in {spot['region']} at {spot['total_usd']:,.0f} USD": "spot tier",
        f"its crossing is {anyway['breakeven']['crossing_hours']:,.0f} hours": "pricing=any",
        f"AWS {term['product']} ({term['usd_per_hour']:.2f} USD/h)": "1-year term",
        f"costs its whole year, {term['total_usd']:,.0f} USD": "term total",
        f"names {left['offers']} TPU, Trainium and AMD offers": "left out",
        f"the cheapest of {same['offers']} RTX 3090 offers": "same-card offers",
        f"in {same['cheapest']['region']} at {same['cheapest']['usd_per_hour']:.2f} USD/h": "same",
        f"in {same['cheapest']['wall_clock_hours']:,.0f} hours for "
        f"{same['cheapest']['total_usd']:,.0f} USD": ("same-card total"),
        f"pay off after {same['cheapest']['breakeven_hours']:,.0f} hours": "same-card b/e",
        f"{left['best']['product']} on demand at {left['best']['total_usd']:,.0f} USD": (
            "left-out best"
        ),
    }
    missing = [what for text, what in quoted.items() if text not in intro]
    assert missing == [], f"README's first example is stale: {missing}"
    assert a["verdict"] == "rent" and not a["breakeven"]["within_life"]
    assert a["prices"]["stale"] and a["assumptions"]["price_basis"] == "used"
