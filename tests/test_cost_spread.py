"""The money at the ends of a job's spread of hours (service/engine/ranges.py cost_spread):
a job worked out from its FLOPs is priced again at hours / P90 and hours / P10 of the
published runs' held-out ratios, and the summary says where the verdict turns."""

from __future__ import annotations

import pytest

JOB = "gpu=rtx4090&model=llama-3-8b&method=lora&seq_len=2048&market=cloud"


def test_each_end_is_the_job_at_the_spreads_hours(client) -> None:  # type: ignore[no-untyped-def]
    """fewer and more: the predicted hours over the P90 and the P10 ratio; the buy side at
    those hours is what /breakeven answers for the same card and that much work stated in
    hours, and the rental's cost grows with the hours."""
    body = client.get(f"/breakeven?detail=full&{JOB}&tokens=1e9").get_json()
    spread, work = body["cost_spread"], body["work"]
    low, high = work["hours_spread"]
    assert spread["ratios"] == [low, high]
    hours = body["buy"]["hours"]
    assert spread["fewer"]["hours"] == pytest.approx(hours / high)
    assert spread["more"]["hours"] == pytest.approx(hours / low)
    rent = body["rent"][0]["present_usd"]
    assert spread["fewer"]["rent_usd"] < rent < spread["more"]["rent_usd"]
    for end in ("fewer", "more"):
        at = spread[end]
        stated = client.get(
            f"/breakeven?detail=full&gpu=rtx4090&hours={at['hours']!r}&memory={work['memory_gb']!r}"
        ).get_json()
        assert at["buy_usd"] == pytest.approx(stated["buy"]["present_usd"], rel=1e-9), end
        assert at["verdict"] == ("buy" if at["buy_usd"] < at["rent_usd"] else "rent")


def test_the_summary_says_where_the_verdict_turns(client) -> None:  # type: ignore[no-untyped-def]
    """Somewhere past 1e10 tokens of LoRA on a 4090 renting wins as predicted and buying if
    the job takes as long as the slow end of the spread (where, moves with the bundled
    prices: the first such size of a sweep is asked); the summary says so with both sides'
    money. 1e9 tokens: no end turns it, and the summary is silent about it."""
    for tokens in ("8e9", "1e10", "1.2e10", "1.5e10", "2e10", "2.5e10", "3e10", "4e10"):
        turning = client.get(f"/breakeven?detail=full&{JOB}&tokens={tokens}").get_json()
        spread = turning["cost_spread"]
        if turning["verdict"] == "rent" and spread["flips"]:
            break
    assert turning["verdict"] == "rent" and spread["flips"], "no size in the sweep turns"
    assert spread["more"]["verdict"] == "buy"
    slow = spread["more"]
    assert (
        f"buying costs less ({slow['buy_usd']:,.2f} USD to buy, {slow['rent_usd']:,.2f} USD to "
        "rent)"
    ) in turning["summary"]
    quiet = client.get(f"/breakeven?detail=full&{JOB}&tokens=1e9").get_json()
    assert not quiet["cost_spread"]["flips"]
    assert "turns within the spread" not in quiet["summary"]


def test_hours_stated_have_no_spread_of_hours(client) -> None:  # type: ignore[no-untyped-def]
    assert (
        client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()["cost_spread"] is None
    )
