"""The memory gates on toy hardware: per accelerator, a sharded job's total, TPU cores.

Toy cards (tests/helpers.toy_hardware): ref 24 GB, fast 80 GB, small 16 GB; `twin` is added
here: a 32 GB chip of two cores, each program seeing 16 GB (as a TPU v3 chip).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from hardware import Accelerator, Hardware, Registry, Throughput, Workload
from service.engine.breakeven import NoMatchingOffers, QuoteError, QuoteRequest, quote
from service.engine.offer_table import OfferTable
from tests.helpers import offer, stored, toy_hardware
from tests.test_breakeven import PLAIN

TOY = toy_hardware()
TWIN = Accelerator(
    "twin", "Twin Core", "gpu", 32, 200, 100, 1000, "pcie", "toy", program_memory_gb=16
)
HW = replace(
    TOY,
    registry=Registry([*TOY.registry, TWIN]),
    throughput={
        **TOY.throughput,
        **{("twin", k): Throughput("twin", k, 1.0, "measured", "toy") for k in Workload},
    },
)


def run(offers, **request):  # type: ignore[no-untyped-def]
    table = OfferTable(stored(*offers), HW)
    fields = {"reference": "ref", "hours": 100.0, "assumptions": PLAIN, **request}
    return quote(table, HW, QuoteRequest(**fields))


OFFERS = [
    offer(product="1x small", accelerator="small", usd_per_hour=0.10),  # 16 GB
    offer(product="4x small", accelerator="small", count=4, usd_per_hour=0.40),  # 64 GB
    offer(product="1x twin", accelerator="twin", usd_per_hour=0.20),  # 32 GB, 16 per core
    offer(product="1x ref", accelerator="ref", usd_per_hour=0.50),  # 24 GB
    offer(product="1x fast", accelerator="fast", usd_per_hour=2.00),  # 80 GB
]


def products(result) -> set[str]:  # type: ignore[no-untyped-def]
    return {r.stored.offer.product for r in result.rent}


def test_default_gate_is_the_bought_cards_memory_per_device() -> None:
    result = run(OFFERS)
    # 24 GB per device: the twin chip's 32 GB is two 16 GB cores, so it fails like `small`
    assert products(result) == {"1x ref", "1x fast"}
    gate = result.memory_gate
    assert (gate.need.gate, gate.need.per_accelerator_gb, gate.removed) == (
        "per_accelerator",
        24,
        3,
    )


def test_total_memory_counts_every_accelerator_of_an_offer() -> None:
    result = run(OFFERS, gpus=4, total_memory_gb=60.0)  # 4 x 24 GB = 96 GB bought
    # 1x small 16, 1x twin 32, 1x ref 24 < 60; 4x small 64 and 1x fast 80 >= 60
    assert products(result) == {"4x small", "1x fast"}
    gate = result.memory_gate
    assert (gate.need.gate, gate.need.per_accelerator_gb, gate.need.total_gb) == ("total", None, 60)
    assert gate.removed == 3 and result.memory_gb is None


def test_total_memory_uses_the_chips_memory_not_a_cores() -> None:
    result = run(OFFERS, gpus=2, total_memory_gb=32.0)
    assert "1x twin" in products(result)  # its two cores hold 2 x 16 = 32 GB together


def test_both_gates_apply_when_both_are_asked() -> None:
    result = run(OFFERS, gpus=4, total_memory_gb=60.0, memory_gb=20.0)
    assert products(result) == {"1x fast"}  # 4x small: 16 GB per card fails the 20 GB gate
    assert result.memory_gate.need.gate == "per_accelerator+total"
    assert result.memory_gate.removed == 4


def test_bought_cards_must_hold_the_total_themselves() -> None:
    with pytest.raises(QuoteError) as info:
        run(OFFERS, gpus=2, total_memory_gb=60.0)  # 2 x 24 = 48 GB
    assert info.value.parameter == "total_memory"
    assert "2 x ref hold 48 GB, less than total_memory=60" in str(info.value)


def test_nothing_left_names_the_total_and_counts_the_removed() -> None:
    with pytest.raises(NoMatchingOffers) as info:
        run(OFFERS[:3], gpus=8, total_memory_gb=100.0)
    assert info.value.parameter == "total_memory"
    assert "at least 100 GB in all its accelerators" in str(info.value)
    assert "removed 3" in str(info.value)


def test_per_core_memory_of_tpu_v2_and_v3(hardware: Hardware) -> None:
    """Google: a v2 chip is two cores of 8 GiB, a v3 chip two cores of 16 GiB; one program
    sees one core. v4 and later chips are one device each."""
    memory = {
        acc: (hardware.registry[acc].memory_gb, hardware.registry[acc].device_memory_gb)
        for acc in ("tpu-v2", "tpu-v3", "tpu-v4")
    }
    assert memory == {"tpu-v2": (16, 8), "tpu-v3": (32, 16), "tpu-v4": (32, 32)}


def test_tpu_v3_passes_a_16_gb_gate_and_fails_a_24_gb_one(hardware: Hardware) -> None:
    v3 = offer(provider="gcp", product="v3-8", accelerator="tpu-v3", count=4, usd_per_hour=8.0)
    table = OfferTable(stored(v3), hardware)
    request = QuoteRequest(reference="rtx3090", hours=10.0, platforms=None, memory_gb=16.0)
    assert quote(table, hardware, request).rent[0].stored.offer.product == "v3-8"
    with pytest.raises(NoMatchingOffers):
        quote(table, hardware, replace(request, memory_gb=24.0))
    # sharded over the slice: 4 chips x 32 GiB = 128 covers 100, whatever a core holds
    # (no deadline: 8 bought cards finish in 2.6 h, before a 4-chip slice could)
    sharded = replace(
        request, memory_gb=None, total_memory_gb=100.0, gpus=8, deadline_hours=math.inf
    )
    assert quote(table, hardware, sharded).rent[0].stored.offer.product == "v3-8"


def test_the_answer_names_the_gate_and_what_it_removed(client, hardware: Hardware) -> None:  # type: ignore[no-untyped-def]
    answer = client.get(
        "/breakeven?detail=full&gpu=rtx3090&hours=500&gpus=4&total_memory=96"
    ).get_json()
    gate = answer["memory_gate"]
    assert gate["applied"] == "total" and gate["total_gb"] == 96
    assert gate["per_accelerator_gb"] is None and gate["removed"] > 0
    assert answer["assumptions"]["total_memory"] == 96
    held = [r["count"] * hardware.registry[r["accelerator"]].memory_gb for r in answer["rent"]]
    assert min(held) >= 96 and any(r["count"] > 1 for r in answer["rent"])


@pytest.mark.parametrize("value", ["0", "-1", "abc", "1e400", "nan", "2000000"])
def test_a_bad_total_memory_is_a_400_naming_it(client, value: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/breakeven?detail=full&gpu=rtx3090&hours=500&total_memory={value}")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == "total_memory"


def test_too_little_bought_memory_is_a_422_naming_total_memory(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&total_memory=100")
    assert response.status_code == 422
    assert response.get_json()["errors"][0]["parameter"] == "total_memory"


def test_every_card_keeps_its_framework_share_beside_the_shards() -> None:
    """Sharded 62 GB with 1 GB kept on every card: 4x small holds 4 x (16 - 1) = 60 < 62,
    out, though its 64 GB cover 62 + 1 counted once; 1x fast holds 80 - 1 = 79. The four
    cards bought hold 4 x (24 - 1) = 92; two hold 46, short of 47: a 422 that says why."""
    result = run(OFFERS, gpus=4, total_memory_gb=62.0, memory_overhead_gb=1.0)
    assert products(result) == {"1x fast"}
    assert result.memory_gate.need.per_card_overhead_gb == 1.0
    assert products(run(OFFERS, gpus=4, total_memory_gb=62.0)) == {"4x small", "1x fast"}
    with pytest.raises(QuoteError, match="hold 46 GB besides the 1 GB each keeps"):
        run(OFFERS, gpus=2, total_memory_gb=47.0, memory_overhead_gb=1.0)
    run(OFFERS, gpus=2, total_memory_gb=47.0)  # 48 GB counted without the overhead


def test_a_described_sharded_job_meets_one_rule_bought_and_rented(client, hardware) -> None:  # type: ignore[no-untyped-def]
    """Full training of Llama 2 7B on RTX 4090s: the cards bought are the fewest that hold
    its sharded parts with 1 GB of framework on each (service/engine/memory.py), and every
    rental holds them by the same rule across its instances."""
    body = client.get("/breakeven?detail=full&gpu=rtx4090&model=llama-2-7b&tokens=1e8").get_json()
    gate, work = body["memory_gate"], body["work"]
    kept = work["memory_parts"]["framework"]
    assert gate["per_card_overhead_gb"] == kept == 1.0
    assert gate["total_gb"] == pytest.approx(work["memory_gb"] - kept)
    assert body["buy"]["gpus"] == math.ceil(gate["total_gb"] / (24 - kept))
    assert body["rent"]
    for line in body["rent"]:
        memory = hardware.registry[line["accelerator"]].memory_gb
        room = line["count"] * (memory - kept)
        assert line["instances"] * room >= gate["total_gb"], line
