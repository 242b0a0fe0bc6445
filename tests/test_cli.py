"""The `breakeven` command reads the same settings and gives the same answers as REST.

What it prints for a person never carries a character a terminal acts on, and a store that
does not answer is one line (hostile run of 2026-12-01, findings 9 and 10).
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pricing.controls import forbidden_character
from pricing.store import Store, utcnow
from service.cli import cli
from service.cli.text import table
from service.settings import Settings
from tests.helpers import offer


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
    assert "question" in cli_answer  # both the compact answer, REST's default
    for document in (cli_answer, rest):  # a price's age is counted in seconds to the asking:
        document["prices"].pop("age_seconds")  # a second may pass between the two
    assert cli_answer == rest


def test_quote_table_says_the_verdict_and_assumptions(invoke) -> None:  # type: ignore[no-untyped-def]
    result = invoke("quote", "--gpu", "rtx4090", "--hours", "20000", "--workload", "cnn")
    assert result.exit_code == 0, result.output
    assert "VERDICT:" in result.output and "BUY" in result.output
    assert "electricity=0.1648" in result.output
    assert "in today's money at discount_rate 0.1" in result.output
    assert "+ site 0.00" in result.output and "home)" in result.output  # a desktop at home


def test_quote_bad_input_names_the_option(invoke) -> None:  # type: ignore[no-untyped-def]
    result = invoke("quote", "--gpu", "rtx3090", "--hours", "-1")
    assert result.exit_code == 2 and "--hours" in result.output
    unknown = invoke("quote", "--gpu", "rtx3095", "--hours", "10")
    assert unknown.exit_code == 2 and "rtx3090" in unknown.output


def test_prices_in_three_formats(invoke) -> None:  # type: ignore[no-untyped-def]
    rows = list(csv.DictReader(io.StringIO(invoke("prices", "--format", "csv").output)))
    as_json = json.loads(invoke("prices", "--format", "json").output)
    assert len(rows) == len(as_json) > 30
    table = invoke("prices", "--wide").output
    assert "p4d.24xlarge" in table and "USD/h" in table


def test_gpus_table_and_json(invoke) -> None:  # type: ignore[no-untyped-def]
    assert "rtx3090" in invoke("gpus").output
    assert {g["id"] for g in json.loads(invoke("gpus", "--format", "json").output)} >= {
        "t4",
        "h200",
    }


def test_quote_at_80_columns_says_the_verdict_first(settings: Settings) -> None:
    """What a person reads first at a terminal is the answer: the verdict within the first
    three lines (it was line 30 of 59), every line within 80 columns, and the assumptions
    as people write numbers (0.1366, not 0.13661538461538464)."""
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir), "COLUMNS": "80"}
    result = CliRunner().invoke(cli, ["quote", "--gpu", "rtx3090", "--hours", "500"], env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("VERDICT: ") for line in lines[:3]), lines[:3]
    assert max(len(line) for line in lines) <= 80
    assumptions = result.output[result.output.index("Assumptions: ") :]
    assert re.search(r"\d\.\d{5,}", assumptions) is None, assumptions
    assert "selling_fee=0.1366" in assumptions.replace("\n  ", " ")


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        # 2: a bad or missing option or value, the option named as the CLI spells it
        (("quote", "--gpu", "rtx3090"), 2, "--hours"),
        (("quote", "--gpu", "rtx3090", "--hours", "-5"), 2, "--hours"),
        (("quote", "--gpu", "rtx3095", "--hours", "10"), 2, "closest: rtx3090"),
        (("prices", "--gpu", "rtx3090"), 2, "--workload"),
        # 1: a question with no answer
        (
            ("quote", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "1e5", "--deadline-days", "1"),
            1,
            "leave --gpus out",
        ),
        (("quote", "--gpu", "rtx3090", "--hours", "5000", "--deadline-days", "0.01"), 1, "cards"),
    ],
)
def test_exit_codes_follow_the_help_with_one_error_line(
    settings: Settings, args: tuple[str, ...], code: int, said: str
) -> None:
    """--help's rule (EXIT_CODES): 2 a bad or missing option, 1 a question with no answer;
    each error one line on stderr, in the CLI's option names (--gpus, not gpus=)."""
    runner = CliRunner()
    result = runner.invoke(cli, list(args), env={"BREAKEVEN_DATA_DIR": str(settings.data_dir)})
    assert result.exit_code == code, result.output
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("Error: "), errors
    assert said in errors[0] and not re.search(r"\b[a-z_]+= ", errors[0]), errors[0]
    assert result.stdout == ""
    help_text = " ".join(runner.invoke(cli, ["--help"]).output.split())
    assert "1 a question with no answer" in help_text and "2 a bad or missing option" in help_text


def test_refresh_offline_says_each_source_once_and_the_outcome(settings: Settings) -> None:
    """`breakeven refresh` with a source that cannot be reached: one line per source,
    within 80 columns (the reason cut, --wide gives it whole), never a failure twice, and a
    last line with the outcome; exit 1, and the catalog keeps the failed source's prices."""
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_REFRESH_PROVIDERS": "azure,colab,lambda",
        "BREAKEVEN_AZURE_PRICES_URL": "http://127.0.0.1:9/api/retail/prices?" + "x" * 300,
        "BREAKEVEN_LAMBDA_API_KEY": "",
        "COLUMNS": "80",
    }
    runner = CliRunner()
    before = runner.invoke(cli, ["prices", "--provider", "azure", "--format", "csv"], env=env)
    result = runner.invoke(cli, ["refresh"], env=env)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip() != "refreshing"]
    assert [line.split(":")[0] for line in lines[:3]] == ["azure", "colab", "lambda"]
    assert lines[0].startswith("azure: failed") and lines[0].endswith("\N{HORIZONTAL ELLIPSIS}")
    assert lines[1].startswith("colab: ok") and lines[2].startswith("lambda: skipped")
    assert all(len(line) <= 80 for line in lines), lines
    assert lines[3:] == [
        "1 of 3 sources failed (1 ok, 1 skipped); the catalog keeps their last prices"
    ]
    after = runner.invoke(cli, ["prices", "--provider", "azure", "--format", "csv"], env=env)
    assert after.output == before.output and after.output.count("\n") > 1
    wide = runner.invoke(cli, ["refresh", "--provider", "azure", "--wide"], env=env)
    assert "x" * 300 in wide.stderr or "127.0.0.1" in wide.stderr


def test_prices_prints_every_row_it_says(invoke, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """ "All unless --limit": past one page of /offers too (a catalog of 11,586 stopped at
    10,000 without a word). Pages of 500 here, so the bundled catalog takes several."""
    monkeypatch.setattr(sys.modules["service.cli.main"], "PAGE_MAX", 500)
    every = list(csv.DictReader(io.StringIO(invoke("prices", "--format", "csv").output)))
    total = invoke("prices", "--limit", "1").output
    assert f"of {len(every):,};" in total and len(every) > 1500
    assert len({(r["provider"], r["product"], r["region"], r["pricing"]) for r in every}) > 1000
    limited = list(
        csv.DictReader(io.StringIO(invoke("prices", "--format", "csv", "--limit", "1234").output))
    )
    assert limited == every[:1234]


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


# -- offer text a terminal would act on --------------------------------------------------------

HOSTILE_PRODUCTS = (
    "\x1b]0;PWNED\x07\x1b[31mred\x1b[0m\x1b[2J",  # window title, colour, clear screen
    "cheap\u202egnp.exe",  # shown as cheapexe.png
    "two\rlines\x9b2J",  # CR back over the line; a one-byte CSI
)


@pytest.fixture
def hostile_store(settings: Settings, invoke):  # type: ignore[no-untyped-def]
    """Offers as a live source could bring them: written to the store, past any import."""
    invoke("gpus")  # the schema and the bundled snapshot
    store = Store(settings.resolved_database_url())
    try:
        rows = [
            offer(provider="custom", product=p, accelerator="rtx3090", usd_per_hour=0.01 + i / 100)
            for i, p in enumerate(HOSTILE_PRODUCTS)
        ]
        store.record_run("custom", rows, utcnow())
    finally:
        store.dispose()


@pytest.mark.parametrize(
    "args",
    [
        ("quote", "--gpu", "rtx3090", "--hours", "5", "--providers", "custom"),
        ("quote", "--gpu", "rtx3090", "--hours", "5", "--providers", "custom", "--explain"),
        ("rank", "--workload", "cnn", "--memory", "16", "--gpu", "rtx3090"),
        ("prices", "--wide"),
        ("prices", "--format", "csv"),
        ("prices", "--format", "json"),
    ],
    ids=" ".join,
)
def test_offer_text_reaches_a_terminal_escaped(settings: Settings, hostile_store, args) -> None:  # type: ignore[no-untyped-def]
    """As at a TTY (color=True: click strips no CSI sequence), every output is inert."""
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(cli, list(args), env=env, color=True)
    assert result.exit_code == 0, result.output
    found = forbidden_character(result.output.replace("\n", ""))
    assert found is None, f"{found!r} in {result.output!r}"
    if "json" in args:
        assert "\\u001b]0;PWNED\\u0007" in result.output  # JSON's own escapes
        assert json.loads(result.output)  # and still JSON
    else:
        assert "\\x1b]0;PWNED\\x07\\x1b[31mred" in result.output  # shown, not acted on
        assert "cheap\\u202egnp.exe" in result.output
        assert "two\\x0dlines\\x9b2J" in result.output
    if "csv" in args:
        rows = list(csv.DictReader(io.StringIO(result.output)))
        assert sum(r["provider"] == "custom" for r in rows) == len(HOSTILE_PRODUCTS)


def test_a_table_cell_cannot_break_the_table() -> None:
    lines = table(["a", "b"], [["x\ny\x1b[2J", "1"], ["z", "2"]]).split("\n")
    assert lines[1] == "x\\x0ay\\x1b[2J  1"
    assert len(lines) == 3 and len({len(line) for line in lines}) == 1


# -- a store that does not answer --------------------------------------------------------------


def _not_a_database(tmp_path: Path) -> str:
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(b"not a database, " * 256)
    return f"sqlite:///{path}"


UNANSWERING = {
    # Nothing listens on port 1: the connection is refused at once, on this machine only.
    "postgresql refused": lambda tmp_path: "postgresql+psycopg://nobody:sekret@127.0.0.1:1/x",
    "sqlite not a database": _not_a_database,
}


@pytest.mark.parametrize("store", list(UNANSWERING))
@pytest.mark.parametrize(
    "args",
    [
        ("prices",),
        ("quote", "--gpu", "rtx3090", "--hours", "5"),
        ("gpus",),
        ("refresh", "--provider", "bundled"),
        ("offers", "import", "README.md"),
        ("measurements", "export", "out.json"),
        ("db", "upgrade"),
    ],
    ids=" ".join,
)
def test_a_store_that_does_not_answer_is_one_line_for_every_command(  # type: ignore[no-untyped-def]
    tmp_path: Path, store: str, args: tuple[str, ...]
) -> None:
    env = {
        "BREAKEVEN_DATA_DIR": str(tmp_path),
        "BREAKEVEN_DATABASE_URL": UNANSWERING[store](tmp_path),
    }
    args = tuple(str(tmp_path / a) if a == "out.json" else a for a in args)
    if "README.md" in args:
        args = (*args[:-1], str(Path(__file__).parents[1] / "README.md"))
    result = CliRunner().invoke(cli, list(args), env=env)
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # an answer, not a traceback
    (line,) = result.output.splitlines()
    assert line.startswith("Error: the price store is not answering (")
    assert "OperationalError" in line or "DatabaseError" in line
    assert "sekret" not in line


def test_quote_in_yuan_says_the_amounts_and_the_rate(invoke, client) -> None:  # type: ignore[no-untyped-def]
    """--country CN: the text gives its amounts in yuan, the rate and its day, and the
    tariff that applied, the same figures as the REST answer."""
    args = ["--gpu", "rtx4090", "--hours", "500", "--country", "CN"]
    result = invoke("quote", *args, "--wide")
    assert result.exit_code == 0, result.output
    rest = client.get("/breakeven?detail=full&gpu=rtx4090&hours=500&country=CN").get_json()
    fx = rest["fx"]
    assert (
        f"IN CNY: buy {rest['buy']['total_cny']:,.2f}, the cheapest rental "
        f"{rest['rent'][0]['total_cny']:,.2f}"
    ) in result.output
    assert f"1 USD = {fx['per_usd']:.4f} CNY (ECB, {fx['as_of']}" in result.output
    assert "ELECTRICITY: 0.4883 CNY/kWh (Beijing, residential" in result.output
    # every amount of the text is in the currency asked: the buy line, the table, the verdict
    assert f"BUY   {rest['buy']['total_cny']:>12,.2f} CNY  = cards" in result.output
    assert f"saving {rest['savings_cny']:,.2f} CNY in today's money" in result.output
    assert "CNY/h" in result.output and "total CNY" in result.output


def test_a_refresh_waits_for_no_one_and_never_runs_beside_another(settings: Settings) -> None:
    """Issue 58, the fault round's H2-1: `breakeven refresh` took no lock, so it ran beside
    the scheduler, POST /refresh or another CLI refresh of the same source, and the slower
    run, with older prices, became current. Now a source another refresh holds is skipped
    and said; released, it refreshes."""
    from service.jobs.locks import ProviderLock
    from service.runtime import open_runtime

    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    runtime = open_runtime(settings)
    before = runtime.store.current_runs().get("colab")
    holder = ProviderLock(settings, runtime.store, "colab")
    assert holder.try_acquire()
    try:
        busy = CliRunner().invoke(cli, ["refresh", "--provider", "colab", "--wide"], env=env)
    finally:
        holder.release()
    assert busy.exit_code == 0 and "colab: skipped" in busy.output
    assert "already refreshing elsewhere" in busy.output
    assert runtime.store.current_runs().get("colab") == before  # nothing ran
    done = CliRunner().invoke(cli, ["refresh", "--provider", "colab"], env=env)
    assert done.exit_code == 0 and "colab: ok" in done.output
    assert runtime.store.current_runs()["colab"] != before
    runtime.store.dispose()


def test_a_teams_steady_work_reads_in_hours_not_an_exponent(settings) -> None:  # type: ignore[no-untyped-def]
    """64 H100s steady for three years: 1,351,035.9 h of one card's work, as a person
    writes it (the format had printed 1.35104e+06)."""
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir), "COLUMNS": "80"}
    args = ["quote", "--gpu", "h100-sxm", "--gpus", "64", "--hours-per-month", "46720"]
    result = CliRunner().invoke(cli, [*args, "--months", "36", "--site", "colo"], env=env)
    assert result.exit_code == 0, result.output
    assert "1,351,035.9 h of transformer training on 64 x h100-sxm" in result.output
    assert "e+0" not in result.output
