"""Colab: compute units to dollars, from dated tables."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pricing.adapters.colab import (
    BurnRate,
    ColabAdapter,
    Plan,
    colab_offers,
    load_plans,
    load_rates,
)
from pricing.offer import PricingModel
from service.cli import cli
from tests.helpers import source_of

PAYG = Plan("Pay As You Go (100 units)", 9.99, 100, "prepaid", "2022-09-29", "TechCrunch")


def test_the_published_a100_answer_is_reproduced() -> None:
    # The April 2024 source: 100 units ($9.99 pay as you go) last about 8.5 h on an A100 at
    # its 11.77 units/h. Priced as the adapter prices it, from the tables' plans and that rate,
    # the $9.99 must buy those 8.5 hours.
    a100_2024 = next(r for r in load_rates() if r.runtime == "A100 40GB" and "2024" in r.as_of)
    (offer,) = colab_offers(load_plans(), [a100_2024])
    assert offer.accelerator == "a100-40gb" and offer.price_as_of == a100_2024.as_of
    assert offer.usd_per_hour == pytest.approx(11.77 * 9.99 / 100)
    assert PAYG.usd / offer.usd_per_hour == pytest.approx(8.5, abs=0.05)
    assert "11.77 units/h" in offer.notes and PAYG.name in offer.notes


def test_offers_use_the_newest_rate_and_the_cheapest_unit_price() -> None:
    offers = {o.product: o for o in ColabAdapter().fetch().offers}
    t4 = offers["T4 runtime"]
    assert t4.usd_per_hour == pytest.approx(1.19 * 9.99 / 100)  # 2026-03-10, not 2024's 1.84
    assert t4.price_as_of == "2026-03-10" and t4.pricing == PricingModel.COMPUTE_UNITS
    assert "1.19 units/h" in t4.notes and "no guaranteed GPU" in t4.notes
    assert offers["V100 runtime"].price_as_of == "2024-04-10"  # its newest measurement
    assert all(o.source.startswith("burn rate:") for o in offers.values())


def test_a_runtime_without_hardware_data_or_rate_is_not_offered() -> None:
    products = {o.product for o in ColabAdapter().fetch().offers}
    assert not any("G4" in p for p in products)
    rates = [BurnRate("TPU v5e-1", "", 3.0, "2026-01-01", "us", "x", "no source")]
    assert colab_offers([PAYG], rates) == []


def test_every_plan_and_rate_is_dated_and_sourced() -> None:
    assert all(p.as_of and p.source and p.usd > 0 and p.units > 0 for p in load_plans())
    assert all(r.as_of and r.source and r.units_per_hour > 0 for r in load_rates())


def test_breakeven_answers_with_colab_offers(settings, app) -> None:  # type: ignore[no-untyped-def]
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(cli, ["refresh", "--provider", "colab"], env=env)
    assert result.exit_code == 0, result.output
    asked = "/breakeven?detail=full&gpu=rtx3090&hours=100&providers=colab&pricing=compute_units"
    answer = app.test_client().get(asked).get_json()
    rates = {f"{r.runtime} runtime": r for r in load_rates() if r.as_of == "2026-03-10"}
    assert answer["rent"]
    for row in answer["rent"]:
        rate = rates[row["product"]]
        assert row["usd_per_hour"] == pytest.approx(rate.units_per_hour * 9.99 / 100)
        assert row["price_as_of"] == rate.as_of and rate.source in source_of(answer, row)
        assert row["pricing"] == "compute_units"
