"""Colab sessions end: a long job restarts per session, and may outgrow a plan's units.

Toy hardware (tests/helpers.toy_hardware): the ref card and a Colab-like offer of the same
speed at 1.00 USD/h; spot_overhead 0.1; restart_hours 0.5 (the default).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from pricing.adapters.colab import Plan, load_plans, session_terms
from pricing.offer import PricingModel
from service.engine.breakeven import QuoteRequest, quote
from service.engine.offer_table import OfferTable
from tests.helpers import offer, stored, toy_hardware
from tests.test_breakeven import PLAIN

HW = toy_hardware()
COLAB = offer(provider="colab", product="ref runtime", pricing=PricingModel.COMPUTE_UNITS)


def run(hours: float, session_hours: float | None = 24.0, **assumptions: float):  # type: ignore[no-untyped-def]
    request = QuoteRequest(
        reference="ref",
        hours=hours,
        assumptions=replace(PLAIN, **assumptions),
        session_hours=session_hours,
    )
    return quote(OfferTable(stored(COLAB), HW), HW, request).rent[0]


def test_a_job_within_one_session_pays_no_restart() -> None:
    line = run(20.0)  # 20 h x 1.1 = 22 h < 24 h
    assert (line.sessions, line.hours, line.total_usd) == (
        1,
        pytest.approx(22.0),
        pytest.approx(22.0),
    )


def test_each_session_past_the_first_pays_a_restart() -> None:
    """50 h of work x 1.1 = 55 h: ceil(55 / 24) = 3 sessions, 2 restarts of 0.5 h: 56 h."""
    line = run(50.0)
    assert line.sessions == 3
    assert line.hours == pytest.approx(56.0)
    assert line.total_usd == pytest.approx(56.0)


@pytest.mark.parametrize("hours", [0.0, 5e-324])
def test_a_job_of_no_hours_takes_one_session_and_costs_nothing(hours: float) -> None:
    """ceil(0 / 24) = 0 sessions restarted -1 times: a line of -0.5 h and -0.5 USD, the
    cheapest on offer (hostile review 2026-12-01, #5: epochs=5e-324 made the job 0 h)."""
    line = run(hours)
    assert line.sessions == 1
    assert 0 <= line.hours == line.total_usd < 1e-300  # at 1.00 USD/h
    # its crossing is the rate's (0/0 per hour made it NaN, with a RuntimeWarning)
    assert line.breakeven_hours is None or math.isfinite(line.breakeven_hours)


def test_restart_hours_is_an_assumption_the_query_sets() -> None:
    line = run(50.0, restart_hours=2.0)  # 55 + 2 x 2
    assert line.hours == pytest.approx(59.0)


def test_without_session_terms_nothing_is_added() -> None:
    line = run(50.0, session_hours=None)
    assert (line.sessions, line.hours) == (1, pytest.approx(55.0))


def test_offers_without_sessions_are_not_touched() -> None:
    request = QuoteRequest(reference="ref", hours=50.0, assumptions=PLAIN, session_hours=24.0)
    line = quote(OfferTable(stored(offer()), HW), HW, request).rent[0]
    assert (line.sessions, line.hours) == (1, pytest.approx(50.0))


def test_the_shipped_terms_are_24_hour_sessions_and_pro_plus_units() -> None:
    terms = session_terms(load_plans())
    assert terms is not None
    assert terms.session_hours == 24.0
    assert (terms.monthly.name, terms.monthly.units) == ("Colab Pro+", 500.0)
    assert terms.usd_per_unit == pytest.approx(0.0999)


def test_no_session_length_in_the_data_means_no_terms() -> None:
    plans = [Plan("Pay As You Go", 9.99, 100, "prepaid", "2022-09-29", "TechCrunch")]
    assert session_terms(plans) is None


def test_the_answer_says_when_a_job_outgrows_the_plan(client) -> None:  # type: ignore[no-untyped-def]
    """5,000 h of RTX 3090 work on Colab: every line names its sessions, and units past
    Pro+'s 500 a month are called out."""
    answer = client.get(
        "/breakeven?detail=full&gpu=rtx3090&hours=5000&providers=colab&pricing=compute_units"
    ).get_json()
    for line in answer["rent"]:
        sessions = line["sessions"]
        assert sessions["max_hours"] == 24 and sessions["restart_hours"] == 0.5
        # total = hours x usd_per_hour; units = total / 0.0999 USD per unit
        assert sessions["compute_units"] == pytest.approx(line["total_usd"] / 0.0999)
        assert sessions["count"] > 1 and sessions["exceeds_monthly_plan"]
        assert "more than Colab Pro+'s 500 a month" in sessions["note"]
    small = client.get(
        "/breakeven?detail=full&gpu=rtx3090&hours=5&providers=colab&pricing=compute_units"
    ).get_json()
    assert all(not line["sessions"]["exceeds_monthly_plan"] for line in small["rent"])
    assert all(line["sessions"]["count"] == 1 for line in small["rent"])
    others = client.get(
        "/breakeven?detail=full&gpu=rtx3090&hours=5&providers=aws&pricing=any"
    ).get_json()
    assert all(line["sessions"] is None for line in others["rent"])


@pytest.mark.parametrize("value", ["-1", "101", "x"])
def test_a_bad_restart_hours_is_a_400_naming_it(client, value: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/breakeven?detail=full&gpu=rtx3090&hours=5&restart_hours={value}")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == "restart_hours"
