"""Every rent line says how its speed is known; an estimated cheapest names a measured one."""

from __future__ import annotations

from dataclasses import replace

from hardware import Throughput, Workload
from service.engine.breakeven import QuoteRequest, quote
from service.engine.offer_table import OfferTable
from tests.helpers import offer, source_of, stored, toy_hardware
from tests.test_breakeven import PLAIN

TOY = toy_hardware()
# `small` becomes an estimate: its speed from a spec fit, not a benchmark
HW = replace(
    TOY,
    throughput={
        **TOY.throughput,
        **{("small", k): Throughput("small", k, 1.0, "estimated", "fit") for k in Workload},
    },
)
OFFERS = [
    offer(product="small", accelerator="small", usd_per_hour=0.30),  # 100 h: $30, estimated
    offer(product="ref", accelerator="ref", usd_per_hour=0.40),  # 100 h: $40, measured
    offer(product="fast", accelerator="fast", usd_per_hour=1.00),  # 50 h: $50, measured
]


def run(offers, **fields):  # type: ignore[no-untyped-def]
    # memory_gb=16: the small card qualifies
    request = QuoteRequest(reference="ref", hours=100.0, assumptions=PLAIN, memory_gb=16, **fields)
    return quote(OfferTable(stored(*offers), HW), HW, request)


def test_estimated_cheapest_also_names_the_cheapest_measured() -> None:
    result = run(OFFERS)
    cheapest = result.rent[0]
    assert (cheapest.stored.offer.product, cheapest.total_usd) == ("small", 30.0)
    assert cheapest.throughput.method == "estimated" and cheapest.throughput_estimated
    measured = result.cheapest_measured
    assert measured is not None
    assert (measured.stored.offer.product, measured.total_usd) == ("ref", 40.0)
    assert measured.throughput.method == "measured"


def test_a_measured_cheapest_needs_no_second_name() -> None:
    result = run(OFFERS[1:])
    assert result.rent[0].stored.offer.product == "ref"
    assert result.cheapest_measured is None


def test_only_estimates_leave_no_measured_alternative() -> None:
    assert run(OFFERS[:1]).cheapest_measured is None


def test_every_rent_line_states_its_method_and_source(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.get(
        "/breakeven?detail=full&gpu=rtx3090&hours=500&platforms=all&top=30"
    ).get_json()
    methods = {r["throughput"]["method"] for r in answer["rent"]}
    assert "estimated" in methods and methods - {"estimated"}
    for line in answer["rent"]:
        assert line["throughput_estimated"] == (line["throughput"]["method"] == "estimated")
        assert source_of(answer, line["throughput"])
    if answer["rent"][0]["throughput_estimated"]:
        measured = answer["cheapest_measured"]
        assert measured["throughput"]["method"] != "estimated"
        assert measured["total_usd"] >= answer["rent"][0]["total_usd"]
    else:
        assert answer["cheapest_measured"] is None
