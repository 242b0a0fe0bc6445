"""The platform gate through the API: a CUDA card competes with CUDA rentals unless asked."""

from __future__ import annotations

import pytest

README_QUESTION = "/breakeven?gpu=rtx3090&hours=500"


def test_by_default_only_the_cards_platform_competes(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.get(README_QUESTION).get_json()
    assert answer["assumptions"]["platforms"] == ["cuda"]
    assert all(not r["accelerator"].startswith("tpu-") for r in answer["rent"])
    left_out = answer["left_out"]
    assert left_out["platforms"] == ["xla"] and left_out["offers"] > 0
    assert left_out["best"]["accelerator"].startswith("tpu-")


def test_all_platforms_opt_in_brings_the_left_out_offer_back(client) -> None:  # type: ignore[no-untyped-def]
    gated = client.get(README_QUESTION).get_json()
    everything = client.get(README_QUESTION + "&platforms=all").get_json()
    assert everything["assumptions"]["platforms"] == "all"
    assert everything["left_out"] is None
    best = gated["left_out"]["best"]
    cheapest = everything["rent"][0]
    assert (cheapest["product"], cheapest["total_usd"]) == (best["product"], best["total_usd"])
    both = client.get(README_QUESTION + "&platforms=cuda,xla").get_json()
    assert both["rent"][0]["total_usd"] == cheapest["total_usd"]


@pytest.mark.parametrize("value", ["nosuch", "", "cuda,nosuch", ","])
def test_a_bad_platform_is_a_400_naming_it(client, value: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"{README_QUESTION}&platforms={value}")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == "platforms"


def test_rank_rentals_follow_the_same_gate(client) -> None:  # type: ignore[no-untyped-def]
    gated = client.get("/rank?gpu=rtx3090&hours=500").get_json()
    assert gated["platforms"] == ["cuda"]
    assert all(not r["accelerator"].startswith("tpu-") for r in gated["rent"])
    everything = client.get("/rank?gpu=rtx3090&hours=500&platforms=all").get_json()
    assert everything["platforms"] == "all"
    assert any(r["accelerator"].startswith("tpu-") for r in everything["rent"])
    assert client.get("/rank?platforms=cuda,nosuch").status_code == 400
