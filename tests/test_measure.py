"""`breakeven measure` on the CPU with tiny models: calibrated, stored, shown, used,
exported and imported. (The same code runs standard models with mixed precision on CUDA.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.http.app import create_app
from service.settings import Settings

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

RUN = ["measure", "--device", "cpu", "--seconds", "0.6", "--classes", "cnn", "--card", "rtx3090"]


def _cli(settings: Settings, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args), env={"BREAKEVEN_DATA_DIR": str(settings.data_dir)})


def _client(settings: Settings):  # type: ignore[no-untyped-def]
    return create_app(settings).test_client()


def test_the_whole_path_measure_show_use_export_import(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    calibrated = _cli(settings, *RUN, "--calibrate")
    assert calibrated.exit_code == 0, calibrated.output
    assert "calibration stored" in calibrated.output
    measured = _cli(settings, *RUN)
    assert measured.exit_code == 0, measured.output
    assert "stored 1 measurements for rtx3090" in measured.output

    client = _client(settings)
    shown = client.get("/gpus/rtx3090").get_json()
    cnn = shown["measured"]["cnn"]
    assert cnn["relative"] > 0 and cnn["samples_per_second"] > 0 and cnn["size"] == "tiny"
    assert "calibrated on rtx3090" in cnn["calibration"] and cnn["software"].startswith("torch")
    assert shown["throughput"]["cnn"]["relative"] == 1.343  # the published figure beside it

    # a deadline both speeds meet alone: the default, the bought card's own time, moves with
    # the measured speed, and a tighter one can hand the win to another rental or a cluster
    url = (
        "/breakeven?detail=full&gpu=rtx3090&hours=500&workload=cnn&providers=aws&deadline_days=3650"
    )
    used = client.get(url + "&throughput=measured").get_json()
    assert used["throughput"]["method"] == "measured-locally"
    assert used["throughput"]["relative"] == cnn["relative"]
    assert client.get(url).get_json()["throughput"]["method"] == "measured-locally"  # auto
    published = client.get(url + "&throughput=published").get_json()
    assert published["throughput"]["relative"] == 1.343
    # the workload is hours on *this* card: a faster measured card means more rental hours
    ratio = used["rent"][0]["wall_clock_hours"] / published["rent"][0]["wall_clock_hours"]
    assert ratio == pytest.approx(cnn["relative"] / 1.343, rel=1e-6)

    exported = tmp_path / "measurements.json"
    assert _cli(settings, "measurements", "export", str(exported)).exit_code == 0
    assert json.loads(exported.read_text())["measurements"][0]["accelerator"] == "rtx3090"
    elsewhere = Settings(data_dir=tmp_path / "other-team")
    imported = _cli(elsewhere, "measurements", "import", str(exported))
    assert imported.exit_code == 0 and "imported 1 measurements" in imported.output
    assert _client(elsewhere).get("/gpus/rtx3090").get_json()["measured"]["cnn"] == cnn


def test_an_uncalibrated_measurement_is_kept_but_not_used(settings) -> None:  # type: ignore[no-untyped-def]
    result = _cli(settings, *RUN)
    assert result.exit_code == 0 and "uncalibrated" in result.output
    client = _client(settings)
    assert client.get("/gpus/rtx3090").get_json()["measured"]["cnn"]["relative"] is None
    url = "/breakeven?detail=full&gpu=rtx3090&hours=500&workload=cnn"
    auto = client.get(url).get_json()["throughput"]
    assert auto["method"] == "measured" and auto["relative"] == 1.343  # Lambda's, published
    refused = client.get(url + "&throughput=measured")
    assert (
        refused.status_code == 422 and refused.get_json()["errors"][0]["parameter"] == "throughput"
    )


def test_a_bad_import_file_names_its_entries_and_imports_nothing(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "gpu-breakeven measurements v1",
                               "measurements": [{"accelerator": "rtx9999"}]}))  # fmt: skip
    result = _cli(settings, "measurements", "import", str(bad))
    assert (
        result.exit_code == 1 and "entry 1" in result.output and "nothing imported" in result.output
    )
    assert _client(settings).get("/gpus/rtx3090").get_json()["measured"] == {}


def test_without_pytorch_the_command_says_how_to_install_it(settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    result = _cli(settings, *RUN)
    assert result.exit_code == 1 and "pip install 'gpu-breakeven[measure]'" in result.output


def test_a_cpu_run_needs_a_card_to_file_it_under(settings) -> None:  # type: ignore[no-untyped-def]
    result = _cli(settings, "measure", "--device", "cpu", "--seconds", "0.3", "--classes", "rnn")
    assert result.exit_code == 1 and "pass --card" in result.output
