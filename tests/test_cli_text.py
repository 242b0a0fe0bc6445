"""The CLI as a person reads it (issue 36): text that fits 80 columns (`--wide` for all),
typed options with their choices, `--version`, exit codes, `prices` with /offers' filters and
an order, the same-card line in `quote`."""

from __future__ import annotations

import json
import unicodedata

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.settings import Settings


@pytest.fixture
def invoke(settings: Settings):  # type: ignore[no-untyped-def]
    def run(*args: str, columns: int = 80):  # type: ignore[no-untyped-def]
        env = {
            "BREAKEVEN_DATA_DIR": str(settings.data_dir),
            "COLUMNS": str(columns),
            **dict.fromkeys(("LC_ALL", "LC_MESSAGES", "LANG", "BREAKEVEN_LANG")),
        }
        return CliRunner().invoke(cli, list(args), env=env)

    return run


def _columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


COMMANDS = [
    ("quote", "--gpu", "rtx3090", "--hours", "500"),
    ("quote", "--gpu", "rtx4090", "--hours", "12000", "--workload", "cnn", "--explain"),
    ("quote", "--gpu", "h100-sxm", "--hours-per-month", "500", "--months", "24", "--gpus", "8"),
    ("rank", "--hours", "500"),
    ("gpus",),
    ("prices", "--accelerator", "h100"),
    ("--lang", "zh-CN", "quote", "--gpu", "rtx4090", "--hours", "500", "--country", "CN"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a)[:40])
def test_every_line_fits_80_columns_and_wide_keeps_them_whole(invoke, args) -> None:  # type: ignore[no-untyped-def]
    narrow = invoke(*args)
    assert narrow.exit_code == 0, narrow.output
    widest = max(_columns(line) for line in narrow.output.splitlines())
    assert widest <= 80
    wide = invoke(*args, "--wide", columns=80)
    assert wide.exit_code == 0, wide.output
    assert "…" not in wide.output and "--wide shows them" not in wide.output
    if args[0] in ("rank", "gpus"):  # narrow enough as they are: nothing to fit
        assert wide.output == narrow.output
    else:
        assert max(_columns(line) for line in wide.output.splitlines()) > 80


def test_at_80_columns_the_figures_stay_whole(invoke, client) -> None:  # type: ignore[no-untyped-def]
    """Columns left out are named, names are cut with an ellipsis, figures never are."""
    text = invoke("quote", "--gpu", "rtx3090", "--hours", "500").output
    answer = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()
    for rental in answer["rent"]:
        assert f"{rental['total_usd']:,.2f}" in text
        assert f"{rental['usd_per_hour']:.4f}" in text
    assert f"saving {answer['savings_usd']:,.2f} USD" in text
    assert "(left out at 80 columns: speed, b/e h" in text


def test_quote_says_what_the_same_card_costs_rented(invoke, client) -> None:  # type: ignore[no-untyped-def]
    text = invoke("quote", "--gpu", "rtx3090", "--hours", "500", "--wide").output
    same = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()["same_card"]
    c = same["cheapest"]
    assert (
        f"SAME CARD: {c['count']} x rtx3090 on {c['provider']} ({c['market']}, {c['region']}) "
        f"at {c['usd_per_hour']:,.4f} USD/h does the work for {c['total_usd']:,.2f} USD"
    ) in text


def test_options_are_typed_with_their_choices(invoke) -> None:  # type: ignore[no-untyped-def]
    help_text = invoke("quote", "--help").output
    assert "[bf16|fp16|fp8]" in help_text and "[home|office|colo]" in help_text
    assert "--hours FLOAT" in help_text and "--gpus INTEGER" in help_text
    bad = invoke("quote", "--gpu", "rtx3090", "--hours", "5", "--precision", "fp4")
    assert bad.exit_code == 2 and "'fp4' is not one of" in bad.output
    bad = invoke("quote", "--gpu", "rtx3090", "--hours", "many")
    assert bad.exit_code == 2 and "'many' is not a valid float" in bad.output


def test_version_and_exit_codes(invoke) -> None:  # type: ignore[no-untyped-def]
    version = invoke("--version")
    assert version.exit_code == 0 and version.output.startswith("breakeven, version ")
    help_text = " ".join(invoke("--help").output.split())
    assert "Exit codes: 0 an answer; 1 a question with no answer" in help_text
    assert invoke("quote", "--gpu", "rtx9999", "--hours", "5").exit_code == 2  # a bad value
    assert invoke("quote", "--gpu", "rtx3090").exit_code == 2  # no work stated: a missing option
    assert invoke("quote", "--nonsense").exit_code == 2
    assert (
        invoke("quote", "--gpu", "rtx3090", "--hours", "5000", "--deadline-days", "0.01").exit_code
        == 1
    )


def test_prices_filters_sorts_and_limits(invoke, client) -> None:  # type: ignore[no-untyped-def]
    rows = json.loads(
        invoke(
            "prices", "--accelerator", "h100", "--pricing", "on_demand", "--sort",
            "-usd_per_hour", "--limit", "5", "--format", "json",
        ).output
    )  # fmt: skip
    assert len(rows) == 5
    assert {r["accelerator"] for r in rows} == {"h100-sxm"} | (
        {r["accelerator"] for r in rows} - {"h100-sxm"}
    )
    prices = [r["usd_per_hour"] for r in rows]
    assert prices == sorted(prices, reverse=True)
    every = client.get("/offers?accelerator=h100&pricing=on_demand&limit=10000").get_json()
    assert prices[0] == max(o["usd_per_hour"] for o in every["offers"])
    yuan = invoke("prices", "--provider", "autodl", "--currency", "CNY", "--limit", "2")
    assert "CNY/h" in yuan.output.splitlines()[0]
    bad = invoke("prices", "--pricing", "monthly")
    assert bad.exit_code == 2 and "--pricing" in bad.output


def test_rank_states_each_cards_platform(invoke, client) -> None:  # type: ignore[no-untyped-def]
    text = invoke("rank", "--hours", "500", "--platforms", "all", "--wide").output
    answer = client.get("/rank?hours=500&platforms=all").get_json()
    amd = next(c for c in answer["cards"] if c["platform"] == "rocm")
    line = next(line for line in text.splitlines() if line.startswith(amd["id"] + " "))
    assert " rocm " in line
    default = client.get("/rank?hours=500").get_json()
    assert {c["platform"] for c in default["cards"]} == {"cuda"}
    assert amd["id"] in default["platform_left_out"]


def test_a_break_even_within_an_hour_is_not_written_as_0_h() -> None:
    """Where buying pays off after minutes of work, the line says so, not "after 0 h"."""
    from service.cli.text import _breakeven_line
    from service.documents.money import Asked
    from service.i18n import translator

    point = {"hours": 0.3, "days": 0.025, "within_life": True, "life_years": 4.0}
    answer = {"breakeven": point, "payoff": "after"}
    line = _breakeven_line(answer, 0.5, Asked(answer), translator("en"))
    assert "after 0.3 h of work (~0.025 days" in line
    assert "after 0 h" not in line
    bigger = {**point, "hours": 9203.4, "days": 767.0}
    big = _breakeven_line({**answer, "breakeven": bigger}, 0.5, Asked(answer), translator("en"))
    assert "after 9,203 h of work (~767 days" in big


def test_never_pays_off_says_the_answers_reason_with_its_figures(client) -> None:  # type: ignore[no-untyped-def]
    """Eight A100s for 500 card-hours: the rental's rate per hour of work is above owning's
    power and site, so the reason is not "cheaper than the electricity" (the issue-57
    review); it is the discount: the little saved an hour never repays the purchase today.
    The answer's figures add up, and the CLI and the dashboard say what the answer says."""
    from service.cli.text import describe_quote

    d = client.get("/breakeven?detail=full&gpu=a100-80gb&gpus=8&hours=500").get_json()
    assert d["payoff"] == "never" and d["breakeven"] is None
    why, model = d["never_because"], d["buy"]["model"]
    running = model["energy_usd_per_hour"] + model["site_usd_per_hour"]
    assert why["running_usd_per_hour"] == pytest.approx(running)
    assert why["margin_usd_per_hour"] == pytest.approx(why["rent_usd_per_hour"] - running)
    assert why["reason"] == "discounting" and why["margin_usd_per_hour"] > 0
    # renting for ever, in today's money, is worth less than the purchase
    kappa = model["discount_per_calendar_hour"] * model["calendar_per_hour"]
    assert why["margin_usd_per_hour"] / kappa < model["capex_usd"]
    text = describe_quote(d)
    assert f"costs {why['rent_usd_per_hour']:,.2f} USD per hour of work" in text
    never = next(line for line in text.splitlines() if line.startswith("Buying never"))
    assert "only" in never and "electricity" not in never
    # a rental under the running costs: the other reason
    dear = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&electricity=5").get_json()
    assert dear["never_because"]["reason"] == "running"
    assert dear["never_because"]["margin_usd_per_hour"] <= 0
    assert "no more than owning's power and site" in describe_quote(dear)
    paying = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()
    assert paying["payoff"] != "never" and paying["never_because"] is None
