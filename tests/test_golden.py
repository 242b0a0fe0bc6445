"""Golden answers: a fixed set of questions, answered the same way byte for byte.

Recorded before the service was rearranged (issue 15), kept since: a refactor must not
change an answer. A change that alters answers on purpose rewrites the file on purpose:

    BREAKEVEN_UPDATE_GOLDEN=1 pytest tests/test_golden.py

and the diff of ``tests/golden/answers.json`` shows what moved. Values that depend on the
clock (fetch times, ages, the history window) are replaced by ``<clock>`` before comparing.
The prices are a frozen cut of the catalog (tests/golden/catalog.csv, cut_catalog.py), not
the bundled snapshot: a price update moves no golden answer, only a change of the code does.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.settings import Settings

GOLDEN = Path(__file__).parent / "golden" / "answers.json"
FROZEN_CATALOG = Path(__file__).parent / "golden" / "catalog.csv"
CLOCK_KEYS = frozenset({"fetched_at", "age_seconds", "at", "since", "last_attempt_at"})
# A moment in text, in a URL too (`since=` of a next-page link: colons as %3A).
CLOCK_TEXT = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}(:|%3A)\d{2}(:|%3A)\d{2}(\.\d+)?(Z|[+-]\d{2}(:|%3A)\d{2})"
)

# (name, path and query) for REST; (name, arguments) for the CLI.
REST = [
    ("breakeven-compact", "/breakeven?gpu=rtx3090&hours=500"),  # the default answer
    ("breakeven-readme", "/breakeven?detail=full&gpu=rtx3090&hours=500"),
    ("breakeven-alias", "/breakeven?detail=full&gpu=RTX%203090&hours=500"),
    ("breakeven-cnn", "/breakeven?detail=full&gpu=rtx4090&hours=2000&workload=cnn"),
    ("breakeven-rnn", "/breakeven?detail=full&gpu=rtx3080&hours=300&workload=rnn"),
    ("breakeven-multi", "/breakeven?detail=full&gpu=a100-80gb&hours=10000&gpus=4"),
    ("breakeven-eight", "/breakeven?detail=full&gpu=h100-sxm&hours=100000&gpus=8"),
    (
        "breakeven-power",
        "/breakeven?detail=full&gpu=rtx3090&hours=5000&electricity=0.3&pue=1.4&load=0.8",
    ),
    (
        "breakeven-resale",
        "/breakeven?detail=full&gpu=rtx4090&hours=8000&utilization=0.2&resale=0.5&depreciation=0.25",
    ),
    ("breakeven-host", "/breakeven?detail=full&gpu=rtx3090&hours=500&host_cost=0&host_watts=0"),
    ("breakeven-providers", "/breakeven?detail=full&gpu=a100-40gb&hours=1000&providers=aws,gcp"),
    ("breakeven-spot", "/breakeven?detail=full&gpu=l4&hours=1000&pricing=spot&spot_overhead=0.5"),
    (
        "breakeven-on-demand-us",
        "/breakeven?detail=full&gpu=t4&hours=10&pricing=on_demand&region=us",
    ),
    (
        "breakeven-spot-priced",
        "/breakeven?detail=full&gpu=rtx3090&hours=1000&pricing=spot&spot_overhead=0.3",
    ),
    (
        "breakeven-region",
        "/breakeven?detail=full&gpu=rtx4090&hours=900&pricing=on_demand&region=us-east",
    ),
    ("breakeven-memory", "/breakeven?detail=full&gpu=rtx3090&hours=700&memory=40&top=3"),
    ("breakeven-price-watts", "/breakeven?detail=full&gpu=rtx3090&hours=2500&price=900&watts=300"),
    ("breakeven-published", "/breakeven?detail=full&gpu=v100-16gb&hours=400&throughput=published"),
    ("breakeven-unknown-gpu", "/breakeven?detail=full&gpu=rtx9999&hours=10"),
    ("breakeven-bad-hours", "/breakeven?detail=full&gpu=rtx3090&hours=-5"),
    ("breakeven-unknown-param", "/breakeven?detail=full&gpu=rtx3090&hour=500"),
    ("breakeven-no-offers", "/breakeven?detail=full&gpu=rtx3090&hours=500&memory=4000"),
    ("rank-default", "/rank"),
    ("rank-cnn-hours", "/rank?workload=cnn&hours=1000"),
    ("rank-budget-memory", "/rank?budget=2000&memory=24"),
    ("rank-costs", "/rank?hours=500&electricity=0.3&utilization=0.3&resale=0.4&top=3"),
    ("rank-reference", "/rank?gpu=a100-80gb&workload=rnn&hours=2000"),
    ("rank-bad", "/rank?utilization=0"),
    ("offers-all", "/offers"),
    ("offers-accelerator", "/offers?accelerator=a100"),
    ("offers-provider-spot", "/offers?provider=gcp&pricing=spot"),
    ("offers-region", "/offers?region=us"),
    ("offers-per-reference-hour", "/offers?workload=transformer&gpu=rtx3090&provider=aws"),
    ("offers-csv", "/offers?format=csv&accelerator=h100-sxm"),
    ("offers-unknown", "/offers?accelerator=nosuch"),
    ("history-aws", "/offers/history?provider=aws&limit=5"),
    ("gpus", "/gpus"),
    ("gpu-one", "/gpus/rtx3090"),
    ("gpu-alias", "/gpus/3090"),
    ("gpu-unknown", "/gpus/nosuch"),
    ("providers", "/providers"),
]
CLI = [
    ("cli-quote", "quote --gpu rtx3090 --hours 500 --json"),
    (
        "cli-quote-costs",
        "quote --gpu rtx4090 --hours 3000 --workload cnn --resale 0.5 --electricity 0.25 --json",
    ),
    ("cli-quote-table", "quote --gpu rtx3090 --hours 500"),
    ("cli-rank", "rank --hours 1000 --budget 3000 --json"),
    ("cli-gpus", "gpus --format json"),
    ("cli-prices-csv", "prices --format csv"),
]


def without_clock(value: Any, key: str = "") -> Any:
    if key in CLOCK_KEYS and value is not None:
        return "<clock>"
    if isinstance(value, dict):
        return {k: without_clock(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [without_clock(v) for v in value]
    if isinstance(value, str):
        return CLOCK_TEXT.sub("<clock>", value)
    return value


def body(text: str, content_type: str) -> Any:
    if "json" in content_type:
        return without_clock(json.loads(text))
    return without_clock(text)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The answers' prices: the frozen cut, never the bundled snapshot."""
    return Settings(data_dir=tmp_path, catalog_check_seconds=0, snapshot_file=FROZEN_CATALOG)


@pytest.fixture
def answers(client, settings: Settings) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    found: dict[str, Any] = {}
    for name, url in REST:
        response = client.get(url)
        found[name] = {
            "status": response.status_code,
            "content_type": response.content_type,
            "body": body(response.get_data(as_text=True), response.content_type),
        }
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_SNAPSHOT_FILE": str(FROZEN_CATALOG),
    }
    for name, line in CLI:
        args = line.split()
        result = CliRunner().invoke(cli, args, env=env)
        json_out = "--json" in args or "json" in args
        found[name] = {
            "exit_code": result.exit_code,
            "output": body(result.output, "json" if json_out else "text"),
        }
    return found


def test_answers_match_the_golden_file(answers: dict[str, Any]) -> None:
    text = json.dumps(answers, indent=1, ensure_ascii=False) + "\n"
    if os.environ.get("BREAKEVEN_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text)
    golden = GOLDEN.read_text()
    if text != golden:
        recorded = json.loads(golden)
        moved = sorted(
            name
            for name in answers
            if json.dumps(answers[name]) != json.dumps(recorded.get(name))  # order counts
        )
        pytest.fail(f"answers differ from {GOLDEN.name} for: {', '.join(moved)}")
