"""The `breakeven` command reads the same settings and gives the same answers as REST."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.settings import Settings


@pytest.fixture
def invoke(settings: Settings):  # type: ignore[no-untyped-def]
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    return lambda *args: CliRunner().invoke(cli, list(args), env=env)


def test_quote_json_is_the_rest_answer(invoke, client) -> None:  # type: ignore[no-untyped-def]
    result = invoke(
        "quote", "--gpu", "rtx3090", "--hours", "500", "--spot-overhead", "0.2", "--json"
    )
    assert result.exit_code == 0, result.output
    rest = client.get("/breakeven?gpu=rtx3090&hours=500&spot_overhead=0.2").get_json()
    cli_answer = json.loads(result.output)
    for document in (cli_answer, rest):  # fetched_at and ages differ between the two stores
        document["prices"].pop("fetched_at")
    assert cli_answer == rest


def test_quote_table_says_the_verdict_and_assumptions(invoke) -> None:  # type: ignore[no-untyped-def]
    result = invoke("quote", "--gpu", "rtx4090", "--hours", "20000", "--workload", "cnn")
    assert result.exit_code == 0, result.output
    assert "VERDICT:" in result.output and "BUY" in result.output
    assert "electricity=0.165" in result.output


def test_quote_bad_input_names_the_option(invoke) -> None:  # type: ignore[no-untyped-def]
    result = invoke("quote", "--gpu", "rtx3090", "--hours", "-1")
    assert result.exit_code == 2 and "--hours" in result.output
    unknown = invoke("quote", "--gpu", "rtx3095", "--hours", "10")
    assert unknown.exit_code == 1 and "rtx3090" in unknown.output


def test_prices_in_three_formats(invoke) -> None:  # type: ignore[no-untyped-def]
    rows = list(csv.DictReader(io.StringIO(invoke("prices", "--format", "csv").output)))
    as_json = json.loads(invoke("prices", "--format", "json").output)
    assert len(rows) == len(as_json) > 30
    table = invoke("prices").output
    assert "p4d.24xlarge" in table and "USD/h" in table


def test_gpus_table_and_json(invoke) -> None:  # type: ignore[no-untyped-def]
    assert "rtx3090" in invoke("gpus").output
    assert {g["id"] for g in json.loads(invoke("gpus", "--format", "json").output)} >= {
        "t4",
        "h200",
    }


def test_refresh_reports_each_source(invoke) -> None:  # type: ignore[no-untyped-def]
    result = invoke("refresh", "--provider", "bundled")
    assert result.exit_code == 0
    assert "bundled: ok" in result.output
    bad = invoke("refresh", "--provider", "nowhere")
    assert bad.exit_code == 2 and "known: bundled" in bad.output


def test_settings_command_lists_every_variable(invoke) -> None:  # type: ignore[no-untyped-def]
    output = invoke("settings").output
    for name in Settings.model_fields:
        assert f"BREAKEVEN_{name.upper()}" in output


def test_bad_setting_is_a_usage_error(settings: Settings) -> None:
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir), "BREAKEVEN_PORT": "http"}
    result = CliRunner().invoke(cli, ["gpus"], env=env)
    assert result.exit_code == 2 and "BREAKEVEN_" in result.output
