"""Training precision (`precision=`): which cards and rentals take part, and FP8's gain.

hardware/data/precisions.csv says what each accelerator trains in; FP8's gain over 16 bits
was measured at 1.336 on H100s and is scaled elsewhere by the card's FP8-over-16-bit peak
ratio (hardware/precision.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hardware import Hardware, Workload, load_hardware
from hardware.precision import FP8_SPEEDUP, PrecisionSupport
from service.engine.offer_table import OfferTable

DATA = Path(__file__).resolve().parents[1] / "hardware" / "data"


def test_fp8s_gain_follows_the_cards_peak_ratio() -> None:
    """Twice the 16-bit peak: the H100's measured 1.336; the same peak (Gaudi 3): none;
    an FP8 peak not read: twice assumed, and said to be estimated."""
    doubled = PrecisionSupport("x", frozenset({"bf16", "fp8"}), 200.0, "toy")
    same = PrecisionSupport("x", frozenset({"bf16", "fp8"}), 100.0, "toy")
    unread = PrecisionSupport("x", frozenset({"bf16", "fp8"}), None, "toy")
    none = PrecisionSupport("x", frozenset({"bf16"}), None, "toy")
    assert doubled.fp8_gain(100.0) == (pytest.approx(FP8_SPEEDUP), False)
    assert same.fp8_gain(100.0) == (1.0, False)
    assert unread.fp8_gain(100.0) == (pytest.approx(FP8_SPEEDUP), True)
    assert none.fp8_gain(100.0) == (1.0, False)
    # Trainium2: 1,299 over 667: 1 + 0.336 x 0.948
    trn2 = PrecisionSupport("trainium2", frozenset({"fp8"}), 1299.0, "toy")
    assert trn2.fp8_gain(667.0)[0] == pytest.approx(1 + 0.336 * (1299 / 667 - 1))


def test_each_cards_speed_in_fp8(hardware: Hardware) -> None:
    """The H100 keeps its method (both factors measured on it); cards carried over say so."""
    k = Workload.TRANSFORMER
    h100 = hardware.speed("h100-sxm", k, "fp8")
    assert h100.relative == pytest.approx(hardware.speed("h100-sxm", k).relative * FP8_SPEEDUP)
    assert h100.method == hardware.speed("h100-sxm", k).method
    assert hardware.speed("gaudi3", k, "fp8").relative == hardware.speed("gaudi3", k).relative
    assert hardware.speed("rtx4090", k, "fp8").method == "adjusted"
    assert hardware.speed("rtx4070", k, "fp8").method == "estimated"  # its FP8 peak unread
    assert hardware.speed("h100-sxm", k, "bf16") == hardware.speed("h100-sxm", k)


def test_the_offer_table_holds_fp8_speeds_for_transformers(hardware: Hardware, app) -> None:  # type: ignore[no-untyped-def]
    table: OfferTable = app.extensions["breakeven"].catalog.table()
    fp8, bits16 = (
        table.speed[(Workload.TRANSFORMER, "fp8")],
        table.speed[(Workload.TRANSFORMER, "16-bit")],
    )
    for name in ("h100-sxm", "gaudi3", "a100-80gb"):
        rows = table.accelerator_code == table.accelerators.get(name, -1)
        if not rows.any():
            continue
        gain = hardware.fp8_gain(name)
        assert fp8[rows] == pytest.approx(bits16[rows] * gain), name
    assert (Workload.CNN, "fp8") not in table.speed  # FP8 is measured on transformers only
    assert not table.runs["fp8"][table.accelerator_code == table.accelerators["a100-80gb"]].any()


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("/breakeven?detail=full&gpu=a100-80gb&hours=500&precision=fp8", "it runs bf16, fp16"),
        ("/breakeven?detail=full&gpu=v100-16gb&hours=500&precision=bf16", "it runs fp16"),
        (
            "/breakeven?detail=full&gpu=tpu-v4&hours=500&precision=fp16&platforms=all",
            "it runs bf16",
        ),
        (
            "/breakeven?detail=full&gpu=rtx4090&hours=500&workload=cnn&precision=fp8",
            "transformers only",
        ),
        (
            "/breakeven?detail=full&gpu=rtx4090&model=vit-b-16&images=1281167&epochs=90&precision=fp8",
            "not on vit-b-16",
        ),
        ("/rank?gpu=rtx3090&hours=100&precision=fp8", "it runs bf16, fp16"),
    ],
)
def test_a_precision_the_card_does_not_train_in_is_a_422_naming_it(
    client, url: str, says: str
) -> None:  # type: ignore[no-untyped-def]
    response = client.get(url)
    body = response.get_json()
    assert response.status_code == 422, body
    assert body["type"].endswith("unsupported-precision")
    assert body["errors"][0]["parameter"] == "precision"
    assert says in body["detail"]


def test_an_unknown_precision_is_a_400(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/breakeven?detail=full&gpu=h100-sxm&hours=500&precision=fp4")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == "precision"


def test_fp8_divides_the_named_cards_hours_by_its_gain(client, hardware: Hardware) -> None:  # type: ignore[no-untyped-def]
    job = "/breakeven?detail=full&gpu=h100-sxm&model=llama-3-8b&tokens=1e10&pricing=any"
    sixteen = client.get(job).get_json()
    fp8 = client.get(job + "&precision=fp8").get_json()
    assert sixteen["work"]["gpu_hours"] / fp8["work"]["gpu_hours"] == pytest.approx(FP8_SPEEDUP)
    assert fp8["precision"] == {
        "asked": "fp8",
        "speeds": "fp8",
        "gain": pytest.approx(FP8_SPEEDUP),
        "note": fp8["precision"]["note"],
    }
    assert "fp8" in fp8["work"]["precision"] and sixteen["precision"]["asked"] is None
    # every rental runs FP8, and there are some
    assert fp8["rent"]
    assert all(hardware.supports(line["accelerator"], "fp8") for line in fp8["rent"])


def test_asking_bf16_leaves_out_the_cards_without_it(client, hardware: Hardware) -> None:  # type: ignore[no-untyped-def]
    """16 bits by default admit every card; bf16 keeps the Volta and Turing cards out."""
    url = "/breakeven?detail=full&gpu=rtx4090&hours=500&pricing=any&top=100&region=us"
    every = {line["accelerator"] for line in client.get(url).get_json()["rent"]}
    bf16 = {line["accelerator"] for line in client.get(url + "&precision=bf16").get_json()["rent"]}
    assert all(hardware.supports(a, "bf16") for a in bf16)
    assert any(not hardware.supports(a, "bf16") for a in every), every  # T4s, V100s rent cheap


def test_rank_leaves_out_the_cards_that_cannot(client, hardware: Hardware) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/rank?gpu=rtx4090&hours=100&precision=fp8").get_json()
    ranked = [c["id"] for c in body["cards"] + body["too_small"]]
    assert ranked and all(hardware.supports(c, "fp8") for c in ranked)
    assert "rtx3090" in body["precision"]["left_out"]
    assert not set(ranked) & set(body["precision"]["left_out"])


def test_every_accelerator_says_what_it_trains_in(tmp_path: Path) -> None:
    copy = tmp_path / "data"
    shutil.copytree(DATA, copy)
    path = copy / "precisions.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith("t4,")))
    with pytest.raises(ValueError, match="t4"):
        load_hardware(copy)
    path.write_text("".join(lines).replace("t4,fp16,", "t4,fp16|int4,"))
    with pytest.raises(ValueError, match="int4"):
        load_hardware(copy)
