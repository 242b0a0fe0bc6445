"""Sanity checks of a run against the provider's current offers."""

from __future__ import annotations

import math

from pricing.offer import PricingModel
from pricing.sanity import SanityPolicy, check
from tests.helpers import offer

POLICY = SanityPolicy(jump_factor=2.0, max_drop_share=0.5)


def test_impossible_prices_are_dropped() -> None:
    batch = [offer(usd_per_hour=p) for p in (1.0, 0.0, -1.0, math.nan, math.inf)]
    result = check(batch, [], POLICY)
    assert [o.usd_per_hour for o in result.offers] == [1.0] and result.dropped == 4


def test_spot_at_or_above_on_demand_is_flagged() -> None:
    batch = [
        offer(product="g5.xlarge", usd_per_hour=1.0),
        offer(product="g5.xlarge", pricing=PricingModel.SPOT, zone="a", usd_per_hour=1.0),
        offer(product="g5.xlarge", pricing=PricingModel.SPOT, zone="b", usd_per_hour=0.4),
    ]
    flagged = {(o.pricing, o.zone): o.suspect for o in check(batch, [], POLICY).offers}
    assert flagged == {("on_demand", ""): False, ("spot", "a"): True, ("spot", "b"): False}


def test_a_price_jump_beyond_the_factor_is_flagged_either_way() -> None:
    previous = [offer(product=p, usd_per_hour=10.0) for p in ("up", "down", "steady", "cut")]
    batch = [
        offer(product="up", usd_per_hour=25.0),
        offer(product="down", usd_per_hour=4.0),
        offer(product="steady", usd_per_hour=12.0),
        offer(product="cut", usd_per_hour=5.6),  # AWS P5 mid-2025: -44 %, within 2x
    ]
    result = check(batch, previous, POLICY)
    assert {o.product: o.suspect for o in result.offers} == {
        "up": True,
        "down": True,
        "steady": False,
        "cut": False,
    }
    assert "price moved from 10 to 25" in result.offers[0].notes
    assert result.suspect == 2


def test_a_run_dropping_most_offers_is_refused_unless_forced() -> None:
    previous = [offer(product=f"p{i}") for i in range(10)]
    shrunk = previous[:4]  # loses 6 of 10
    assert "refused: would drop 6 of 10" in check(shrunk, previous, POLICY).refused
    assert check(shrunk, previous, POLICY, force=True).refused == ""
    assert check(previous[:5], previous, POLICY).refused == ""  # exactly half is allowed
    assert check(shrunk, [], POLICY).refused == ""  # a first run has nothing to lose


def test_a_run_of_only_impossible_prices_is_refused_even_forced() -> None:
    zeros = [offer(usd_per_hour=0.0), offer(product="b", usd_per_hour=0.0)]
    assert "all 2 prices were impossible" in check(zeros, [], POLICY, force=True).refused
    assert check([], [], POLICY).refused == ""  # an empty answer is the drop check's business
