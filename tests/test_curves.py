"""The cost curves an answer carries (service/engine/curves.py): what the dashboard draws,
computed by the engine, so the chart holds no copy of the cost model."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.engine.hours import HOURS_PER_DAY

DASHBOARD = Path(__file__).parent.parent / "service" / "http" / "static" / "dashboard.js"


def test_the_breakeven_is_a_point_of_both_curves(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/breakeven?detail=full&gpu=rtx4090&hours=2000&workload=cnn").get_json()
    curves, be = body["curves"], body["breakeven"]
    assert be is not None and be["within_life"]
    i = curves["hours"].index(curves["breakeven_hours"])
    assert curves["hours"][i] == pytest.approx(be["hours"], rel=1e-12)
    assert curves["days"][i] == pytest.approx(be["days"], rel=1e-9)
    assert curves["buy_usd"][i] == pytest.approx(curves["rent"][0]["curve_usd"][i], rel=1e-9)
    # the work asked is a sample too: buying's curve there is the answer's buy cost
    k = curves["hours"].index(body["hours"])
    assert curves["buy_usd"][k] == pytest.approx(body["buy"]["present_usd"], rel=1e-12)
    assert [c["name"] for c in curves["rent"]] == [r["name"] for r in body["rent"][:3]]
    assert curves["hours"] == sorted(curves["hours"]) and curves["hours"][0] == 0


def test_buying_steps_up_where_a_new_set_of_cards_is_bought(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/breakeven?detail=full&gpu=rtx3090&hours=3e4").get_json()
    assert body["buy"]["replacements"] == 1
    curves, model = body["curves"], body["buy"]["model"]
    life = model["life_hours"]
    before = max(i for i, h in enumerate(curves["hours"]) if h <= life)
    after = before + 1
    step = curves["buy_usd"][after] - curves["buy_usd"][before]
    # a second set of cards costs more than running between two samples: the new set less
    # what it would fetch at once (what owning it loses on day one), in today's money
    span = curves["hours"][after] - curves["hours"][before]
    running = (model["energy_usd_per_hour"] + model["site_usd_per_hour"]) * span
    assert step > running
    bought_again = model["replacement_usd"] - model["resale_start_usd"]
    assert step == pytest.approx(running + bought_again, rel=0.25)
    days = [h * model["calendar_per_hour"] / HOURS_PER_DAY for h in curves["hours"]]
    assert curves["days"] == pytest.approx(days)


def test_the_dashboard_computes_no_cost() -> None:
    """The cost model lives in the engine: the chart reads `curves`, never the model's
    parameters (a copy of the formula drifted: no site, no discount, no replacements)."""
    script = DASHBOARD.read_text(encoding="utf-8")
    for copy in ("Math.exp", "resale_decay_per_hour", "capex_usd", "energy_usd_per_hour"):
        assert copy not in script
    assert "a.curves" in script
