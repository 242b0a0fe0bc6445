"""The README and docs/ against the code.

- The README's generated tables are what ``python -m service.docs`` writes (the diff when
  not), and ``breakeven settings`` prints the same rows, defaults as a user writes them.
- Every command and option the README's CLI block names exists, and every command is named.
- Every adapter the service builds has what docs/extending.md asks of a provider: its module,
  a README section, its endpoints as settings, a fake, and its fake's key in the secret scan.
- Every repository path the README and docs/extending.md name exists.
- The figures the README's prose states come from the code, the data or an answer. (The first
  example, the job examples and the sensitivity example are held by tests/test_platforms.py,
  tests/test_work.py and tests/test_sensitivity.py; this module holds the rest.)
"""

from __future__ import annotations

import csv
import importlib
import pkgutil
import re
import types
from pathlib import Path
from typing import Any, get_args

import click
import pytest
import yaml
from click.testing import CliRunner
from pydantic import SecretStr

from service import docs
from service.cli import cli
from service.documents.queries import BreakevenQuery, RankQuery
from service.engine.assumptions import NAMES
from service.jobs.refresh import build_adapters
from service.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
EXTENDING = ROOT / "docs" / "extending.md"


def readme() -> str:
    return README.read_text()


def section(heading: str, text: str | None = None) -> str:
    """The README's section under ``## heading``, up to the next ``## ``, lines joined."""
    text = readme() if text is None else text
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return " ".join(text[start : end if end != -1 else None].split())


def prose(text: str) -> str:
    """``text`` without its generated blocks and code blocks, lines joined."""
    text = docs.BLOCK.sub("", text)
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return " ".join(text.split())


def missing(text: str, quoted: list[str]) -> list[str]:
    return [phrase for phrase in quoted if phrase not in text]


# -- the generated tables -------------------------------------------------------------------


def test_the_readmes_generated_tables_are_what_the_code_writes() -> None:
    changes = "".join(docs.diff(path) for path in docs.FILES)
    assert changes == "", (
        f"the generated tables are stale: run `{docs.COMMAND}`. The diff:\n{changes}"
    )


def test_the_generator_writes_every_block_once_and_knows_no_other() -> None:
    text = docs.REFERENCE.read_text()
    names = [match["name"] for match in docs.BLOCK.finditer(text)]
    assert sorted(names) == sorted(docs.BLOCKS)
    with pytest.raises(ValueError, match="missing"):
        docs.render(text.replace("<!-- generated: settings -->", "<!-- settings -->"))


def test_defaults_are_written_as_a_user_writes_them() -> None:
    rows = [*docs.query_rows(BreakevenQuery), *docs.query_rows(RankQuery), *docs.settings_rows()]
    reprs = [
        row
        for row in rows
        if row.default in ("", "None", "PydanticUndefined") or row.default.startswith(("(", "["))
    ]
    assert reprs == []
    breakeven = {row.name: row for row in docs.query_rows(BreakevenQuery)}
    assert breakeven["gpu"].default == "required"
    assert breakeven["hours"].default == "unset"  # one of four ways to state the work
    assert "fewest" in breakeven["gpus"].default
    assert breakeven["workload"].default == "transformer" and breakeven["workload"].value
    assert "/models lists" not in breakeven["model"].meaning  # no such route
    assert "models.csv" in breakeven["model"].meaning


def test_a_computed_default_must_be_stated() -> None:
    field = Settings.model_fields["data_dir"]
    unstated = type(field)(default_factory=list, description="A folder.")
    with pytest.raises(ValueError, match="default"):
        docs.field_row("X", unstated)


def test_breakeven_settings_prints_the_readmes_rows() -> None:
    result = CliRunner().invoke(cli, ["settings"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for row in docs.settings_rows():
        (line,) = [line for line in lines if line.split()[0] == row.name]
        assert row.default in line and row.meaning in line
    assert "None" not in result.output and "('" not in result.output


def test_every_setting_has_a_row_and_every_row_a_setting() -> None:
    names = {f"BREAKEVEN_{name.upper()}" for name in Settings.model_fields}
    assert {row.name for row in docs.settings_rows()} == names


# -- the CLI block --------------------------------------------------------------------------


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    found: dict[tuple[str, ...], Any] = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found.update(_commands(command, (*path, name)))
        else:
            found[(*path, name)] = command
    return found


def test_the_cli_block_names_every_command_and_only_options_that_exist() -> None:
    text = readme()
    start = text.index("\n## CLI\n")
    opening = text.index("```\n", start) + 4
    block = text[opening : text.index("\n```", opening)]
    lines = [line for line in block.splitlines() if line.startswith("breakeven ")]
    commands = _commands(cli)
    unnamed = [" ".join(p) for p in commands if not any(_names(line, p) for line in lines)]
    assert unnamed == [], "README's CLI block lacks: " + ", ".join(unnamed)
    for line in lines:
        path = max((p for p in commands if _names(line, p)), key=len)
        options = {o for param in commands[path].params for o in param.opts}
        unknown = [o for o in re.findall(r"--[a-z][a-z-]*", line) if o not in options]
        assert unknown == [], f"{line}: no such option {unknown}"


def _names(line: str, path: tuple[str, ...]) -> bool:
    return (line + " ").startswith("breakeven " + " ".join(path) + " ")


def test_every_make_target_the_readme_names_exists() -> None:
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, flags=re.MULTILINE))
    named = set(re.findall(r"(?:`|^)make ([a-z][a-z-]*)", readme(), flags=re.MULTILINE))
    assert named - targets == set()


# -- adapters against docs/extending.md ------------------------------------------------------


def _adapters() -> dict[str, Any]:
    runtime = types.SimpleNamespace(settings=Settings(), resolve_accelerator=lambda name: None)
    return build_adapters(runtime)  # type: ignore[arg-type]


ADAPTERS = sorted(_adapters())


def _module_stem(adapter: Any) -> str:
    module = type(adapter).__module__
    assert module.startswith("pricing.adapters."), module
    return module.split(".")[2]


def _settings_of(name: str) -> dict[str, Any]:
    return {f: info for f, info in Settings.model_fields.items() if f.startswith(name + "_")}


def _is_secret(info: Any) -> bool:
    return SecretStr in get_args(info.annotation) or info.annotation is SecretStr


def test_the_adapters_are_the_ones_the_page_and_the_readme_know() -> None:
    assert len(ADAPTERS) >= 8  # bundled, aws, gcp, azure, lambda, colab, runpod, vast


@pytest.mark.parametrize("name", ADAPTERS)
def test_every_adapter_has_its_module_section_settings_and_fake(name: str) -> None:
    from tests.conftest import SECRET_SOURCES

    adapter = _adapters()[name]
    assert adapter.name == name
    stem = _module_stem(adapter)
    folder = ROOT / "pricing" / "adapters"
    assert (folder / f"{stem}.py").is_file() or (folder / stem / "__init__.py").is_file()
    if name == "bundled":  # the snapshot: no endpoint, described with pricing/data/
        where = section("Where the numbers come from")
        assert "`snapshot.csv`, served by the `bundled` source" in where
        return
    assert f"(`{name}`)" in section("Live prices"), f"README: no '**...** (`{name}`)' section"
    settings = _settings_of(name)
    endpoints = [f for f in settings if f.endswith(("_url", "_endpoint"))]
    if not endpoints:  # a source read from curated tables (Colab): nothing remote to fake
        assert "pricing/data/" in section("Live prices").split(f"(`{name}`)")[1][:600]
        return
    fake = ROOT / "tests" / "fakes" / f"{stem}.py"
    assert fake.is_file(), f"{name}: no fake at {fake.relative_to(ROOT)}"
    for field, info in settings.items():
        assert info.description, f"BREAKEVEN_{field.upper()}: no help text"
        if _is_secret(info):
            module = f"tests.fakes.{stem}"
            assert hasattr(importlib.import_module(module), "API_KEY"), f"{module}: no API_KEY"
            assert (module, "API_KEY") in SECRET_SOURCES, (
                f"tests/conftest.py SECRET_SOURCES lacks ({module!r}, 'API_KEY')"
            )


def test_every_key_a_fake_holds_is_in_the_secret_scan() -> None:
    import tests.fakes
    from tests.conftest import SECRET_SOURCES

    unscanned = []
    for info in pkgutil.iter_modules(tests.fakes.__path__):
        module = importlib.import_module(f"tests.fakes.{info.name}")
        for attribute, value in vars(module).items():
            secretish = re.fullmatch(r"[A-Z_]*(API_KEY|TOKEN|SECRET)[A-Z_]*", attribute)
            scanned = (module.__name__, attribute) in SECRET_SOURCES
            if secretish and isinstance(value, str) and not scanned:
                unscanned.append(f"{module.__name__}.{attribute}")
    assert unscanned == [], f"tests/conftest.py SECRET_SOURCES lacks {unscanned}"


def test_every_provider_an_offer_names_is_a_word_of_the_readme() -> None:
    from pricing.adapters.custom import CUSTOM
    from pricing.offer import BUNDLED

    with (ROOT / "pricing" / "data" / "snapshot.csv").open(newline="") as file:
        shipped = {row["provider"] for row in csv.DictReader(file)}
    providers = shipped | (set(ADAPTERS) - {BUNDLED}) | {CUSTOM}
    row = next(line for line in readme().splitlines() if line.startswith("| provider |"))
    assert set(re.findall(r"`([a-z]+)`", row)) == providers


def test_the_dashboards_market_filter_offers_every_tier() -> None:
    from pricing.offer import MARKETS

    page = (ROOT / "service" / "http" / "templates" / "index.html").read_text()
    macro = page[page.index("{% macro market_select") : page.index("{%- endmacro")]
    offered = {
        tier for value in re.findall(r'value="([a-z,]*)"', macro) for tier in value.split(",")
    }
    assert set(MARKETS) <= offered


TOP_LEVEL = ("hardware/", "pricing/", "service/", "tests/", "bench/", "docs/")


@pytest.mark.parametrize("page", [EXTENDING, README], ids=lambda p: p.name)
def test_every_repository_path_a_page_names_exists(page: Path) -> None:
    text = page.read_text()
    spans = re.findall(r"`([^`]+)`", text) + re.findall(r"\]\(([^)]+)\)", text)
    named = set()
    for span in spans:
        for word in span.split():
            word = word.strip(".,;:()")
            if word.startswith("../"):
                word = str((page.parent / word).resolve().relative_to(ROOT))
            if word.startswith(TOP_LEVEL) and "<" not in word and "acme" not in word:
                named.add(word.split("#")[0])
    absent = sorted(path for path in named if not (ROOT / path).exists())
    assert absent == [], f"{page.name} names paths that do not exist: {absent}"
    if page == EXTENDING:  # its checklist names these; they must stay where it says
        for path in ("service/jobs/refresh.py", "tests/conftest.py", "tests/fakes/samples/"):
            assert path in named


def test_the_architecture_names_every_engine_and_documents_module() -> None:
    text = readme()
    start = text.index("\n## Architecture\n")
    block = text[start : text.index("\n```\n", text.index("```\n", start) + 4)]
    unnamed = []
    for package in ("service/engine", "service/documents"):
        for module in sorted((ROOT / package).glob("*.py")):
            stem = module.stem
            if stem != "__init__" and not re.search(rf"\b{stem}\b", block):
                unnamed.append(f"{package}/{module.name}")
    assert unnamed == [], f"README's Architecture block does not name {unnamed}"


# -- figures in the README's prose -----------------------------------------------------------


def _constant(package: str, name: str) -> Any:
    """A constant of a package or of any of its modules (the store moves between them)."""
    root = importlib.import_module(package)
    if hasattr(root, name):
        return getattr(root, name)
    for info in pkgutil.iter_modules(getattr(root, "__path__", [])):
        module = importlib.import_module(f"{package}.{info.name}")
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"{package} has no {name}")


def _sci(value: float) -> str:
    """8.03e9, as the README writes a large count."""
    mantissa, exponent = f"{value:.3g}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _readme_urls(heading: str) -> list[str]:
    start = readme().index(f"\n## {heading}\n")
    end = readme().find("\n## ", start + 1)
    return re.findall(r"curl 'localhost:8000(/[^']+)'", readme()[start:end])


def test_the_intro_figures_the_platform_test_leaves_out(client, hardware) -> None:  # type: ignore[no-untyped-def]
    from service.engine.assumptions import DEFAULT_ASSUMPTIONS as D

    intro = section("The example, explained")
    a = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()
    cheapest, same = a["rent"][0], a["same_card"]["cheapest"]
    dated = next(r for r in a["rent"] if not r["price_as_of"].startswith("before "))
    spot = next(t["best"] for t in a["tiers"] if t["tier"] == "spot")
    launch = hardware.cards["rtx3090"].price("launch").usd
    used = hardware.cards["rtx3090"].price("used")
    quoted = [
        f"the card at its {used.as_of[:4]} used price ({used.usd:,.0f} USD",
        f"keeps its {launch:,.0f} USD launch price",
        f"at {a['assumptions']['electricity']:g} USD/kWh",
        f"a {spot['interruption']['overhead']:.0%} allowance".replace("%", " %"),
        f"dated {dated['price_as_of']}: the rate one such host was rented at",
        f"{a['breakeven']['life_years']:g}-year life",
        f"in {D.lifetime_years:g} years at {D.utilization:.0%} utilization".replace("%", " %"),
        f"an {cheapest['throughput']['method']} RTX 5090 speed",
        f"{spot['product']} spot VM in {spot['region']} at {spot['total_usd']:,.0f} USD",
        f"which does the work in {cheapest['wall_clock_hours']:,.0f} hours for "
        f"{cheapest['total_usd']:,.0f} USD",
        f"only after {a['breakeven']['crossing_hours']:,.0f} hours",
    ]
    assert missing(intro, quoted) == []
    # "costs more here": the spot VM against the headline, and `pricing=any` keeps the host
    assert spot["present_usd"] > cheapest["present_usd"] and "costs more here" in intro
    anything = client.get("/breakeven?gpu=rtx3090&hours=500&pricing=any").get_json()
    assert anything["rent"][0]["name"] == cheapest["name"] and "here still the Vast.ai" in intro
    # issue 55: the headline is the catalog's undated median ask; the dated rate of one host,
    # within 10 % of it, does not outrank it, and the summary names it beside the headline
    assert cheapest["price_as_of"].startswith("before ") and dated["confidence"] == "medium"
    assert f"the cheapest rental with a dated price is {dated['name']}" in a["summary"]
    assert (same["count"], same["market"]) == (2, "verified") and "two RTX 3090s" in intro


def test_the_first_screen_says_what_it_answers_how_to_run_it_and_the_answer(client) -> None:  # type: ignore[no-untyped-def]
    """Issue 36: what it answers, `make run`, one question and its answer, `make test`,
    within the first screen; the answer shown is the service's own."""
    first = "\n".join(readme().splitlines()[:30])
    assert "make run" in first and "make test" in first
    (url,) = re.findall(r"curl 'localhost:8000(/[^']+)'", first)
    shown = re.search(r'\{"summary": "(.+?)",\n "verdict": "(\w+)"', first)
    assert shown, "the first screen shows the answer's summary and verdict"
    answer = client.get(url).get_json()
    assert (answer["summary"], answer["verdict"]) == (shown[1], shown[2])


def test_no_project_history_in_the_readme() -> None:
    """The README is for users: no issue numbers, no reviews they cannot see."""
    text = readme()
    assert re.search(r"\bissue \d+|review of 20\d\d|shared/reviews", text) is None


def test_the_history_paragraphs_figures(hardware) -> None:  # type: ignore[no-untyped-def]
    from hardware import Workload

    text = section("The example, explained")
    v6e = hardware.speed("tpu-v6e", Workload.TRANSFORMER).relative
    h100 = hardware.speed("h100-sxm", Workload.TRANSFORMER).relative
    assert 0.4 < v6e / h100 < 0.6 and "about half an H100's work" in text
    assert "about 300 days (`tests/test_breakeven.py`)" in text  # that test checks 280-310


def test_the_models_figures() -> None:
    from service.engine.assumptions import DEFAULT_ASSUMPTIONS as D
    from service.engine.interruption import (
        BAND_PERIOD_HOURS,
        BAND_SHARE,
        LOST_HOURS_PER_INTERRUPTION,
        band_overhead,
    )
    from service.runtime import ANSWERS_REMEMBERED

    text = section("The model")
    bounds = [f"{share:.0%}".rstrip("%") for band, share in BAND_SHARE.items()]
    quoted = [
        f"upper bound ({', '.join(bounds[:-1])} %;",
        f"in {BAND_PERIOD_HOURS:g} hours of running",
        f"x {LOST_HOURS_PER_INTERRUPTION:g} hours of work lost",
        f"a <5% g5.xlarge pays {100 * band_overhead('<5%'):.3f} %",
        f"a >20% one {100 * band_overhead('>20%'):.2f} %",
        f"the `spot_overhead` assumption ({D.spot_overhead:.0%})".replace("%", " %"),
        f"(default {D.lifetime_years:g} years, an assumption)",
        f"remembers its last {ANSWERS_REMEMBERED} answers",
    ]
    assert missing(text, quoted) == []
    assert BAND_SHARE[">20%"] == 1.0  # "read as every instance"
    from service.engine.costs import HOURS_PER_YEAR

    assert HOURS_PER_YEAR == 8760 and text.count("8760") == 2  # years = ... / (u x 8760)
    source = " ".join(
        Path(importlib.import_module("service.engine.interruption").__file__).read_text().split()
    )
    assert "half a 30-minute checkpoint interval" in text
    assert "Half of a 30-minute checkpoint interval" in source  # the assumption's own words


def test_the_azure_band_figures() -> None:
    """The README's Azure reading and the cluster form: bounds, one VM's overhead, and eight
    instances' extra work on an AWS ">20%" and an Azure "5-10" band."""
    from service.engine.interruption import AZURE_BAND_SHARE, band_overhead, extra_work

    text = " ".join(section("The model").split())
    bounds = [f"{share:.0%}".rstrip("%") for share in AZURE_BAND_SHARE.values()]
    assert AZURE_BAND_SHARE["20+% per hour"] == 1.0  # "read as every VM"
    o = band_overhead("5-10% per hour")
    quoted = [
        f'its upper bound ({", ".join(bounds[:-1])} %; "20+" read as every VM) x 0.5 hours',
        f'a "5-10" VM pays {o:.0%}'.replace("%", " %"),
        "the job takes (1 + o) / (1 - (N - 1) x o) times its work",
        f'eight ">20%" AWS instances: {extra_work(band_overhead(">20%"), 8):.1%} more work',
        f'eight "5-10" Azure VMs: {extra_work(o, 8):.1%}, not {8 * o:.0%}',
    ]
    assert missing(text.replace(" %", "%"), [q.replace(" %", "%") for q in quoted]) == []
    twenty_plus = band_overhead("20+% per hour")
    assert extra_work(twenty_plus, 3) == float("inf") > extra_work(twenty_plus, 2)  # "three"


def test_the_performance_figures() -> None:
    from bench import aws_bulk, engine, history, http

    text = section("Performance")
    quoted = [
        f"the engine over {engine.OFFERS:,} offers",
        f"a generated {aws_bulk.TARGET_BYTES / 1e9:.1f} GB AWS offer file",
        f"on a {http.CATALOG:,}-offer catalog",
        f"two simulated years of {history.REFRESH_EVERY.seconds // 3600}-hourly refreshes of "
        f"{history.OFFERS:,} offers",
    ]
    assert missing(text, quoted) == []
    assert 2 * 365 * 24 // (history.REFRESH_EVERY.seconds // 3600) == history.REFRESHES
    assert f"the store's write of a {http.CATALOG:,}-offer run" in text  # bench/http.py
    assert "100,000 offers" in section("The model")


def test_the_live_prices_figures() -> None:
    from pricing.adapters import runpod, vast
    from pricing.adapters.gcp import offers as gcp_offers
    from pricing.packs import _PRICE, _RUN

    text = section("Live prices")
    counts = [str(n) for n in runpod.COUNTS]
    vcpus = gcp_offers.VCPUS_PER_ATTACHED_GPU
    with (ROOT / "pricing" / "data" / "gcp_tpus.csv").open(newline="") as file:
        tpus = {row["version"]: row for row in csv.DictReader(file)}
    from array import array

    change_bytes = array(_RUN).itemsize + array(_PRICE).itemsize
    history = importlib.import_module("bench.history")
    quoted = [
        f"({vcpus} vCPUs and {vcpus * gcp_offers.GB_PER_N1_VCPU:g} GB per GPU)",
        f"an 8-core device = {tpus['v2']['sku_chips']} chips",
        f"pods of {', '.join(counts[:-1])} and {counts[-1]} GPUs",
        f"{vast.STORAGE_GB:g} GB of storage included",
        f"{change_bytes} bytes a change against about 64 as rows",
        f"{history.ON_DEMAND_MOVES:.0%} of on-demand and {history.SPOT_MOVES:.0%} of spot".replace(
            "%", " %"
        ),
        f"at most {_constant('pricing.store', 'HISTORY_SCAN_LISTINGS'):,} listings and "
        f"{_constant('pricing.store', 'HISTORY_SCAN_SPANS'):,} points a page",
    ]
    assert missing(text, quoted) == []
    assert tpus["v3"]["sku_chips"] == tpus["v2"]["sku_chips"]
    assert "v4, v5p, v5e, v6e SKUs one chip" in text
    assert {tpus[v]["sku_chips"] for v in ("v4", "v5p", "v5e", "v6e")} == {"1"}
    versions = [path.name[:4] for path in (ROOT / "pricing/migrations/versions").glob("0*.py")]
    for number in re.findall(r"Migration (\d{4})|migration (\d{4})", text):
        assert "".join(number) in versions
    assert "about 64 bytes" in " ".join(importlib.import_module("pricing.packs").__doc__.split())
    heavy = importlib.import_module("service.http.budget").HEAVY_READS_PER_WORKER
    assert heavy == 2 and "two at a time per worker" in text
    remembered = importlib.import_module("service.catalog").PAST_TABLES
    assert remembered == 4 and "runs it holds (four per worker)" in " ".join(text.split())
    large = importlib.import_module("service.http.routes.offers")
    assert large.LARGE_PAGE == 1_000 and large.VALIDATED_CHUNK == 250
    assert "more than 1,000 offers (validated 250 at a time" in " ".join(text.split())


def test_the_job_figures_the_work_test_leaves_out(client, hardware) -> None:  # type: ignore[no-untyped-def]
    from hardware import Workload
    from service.engine import work

    text = section("Describing the job")
    lora_url, run_url, vision_url, rank_url = _readme_urls("Describing the job")
    lora, run = client.get(lora_url).get_json(), client.get(run_url).get_json()
    vision, ranking = client.get(vision_url).get_json(), client.get(rank_url).get_json()
    big = client.get("/breakeven?detail=full&gpu=rtx4090&model=llama-2-7b&tokens=1e8").get_json()
    model, method = hardware.models["llama-3-8b"], hardware.methods["lora"]
    parts = lora["work"]["memory_parts"]
    a100 = hardware.speed("a100-80gb", Workload.TRANSFORMER).relative
    rtx3090 = hardware.speed("rtx3090", Workload.TRANSFORMER).relative
    scaling = hardware.efficiency("a100-80gb", Workload.TRANSFORMER, 8)
    quoted = [
        f"Llama 3 8B ({_sci(model.params)} parameters, {model.layers} layers of width "
        f"{model.hidden:,})",
        f"x {method.flops_factor:g} (LoRA's share",
        f"at {hardware.utilization.utilization(model.params):.2f} of its peak",
        f"fitted on {len(hardware.utilization.predictions)} published language-model runs",
        "fit predicted the dense runs at {:.2f}-{:.2f} times".format(*hardware.utilization.spread),
        f"the {lora['work']['utilization']:.2f} its measured speed implies",
        f"its time is full training's times {method.time_factor:g}",
        f"{parts['weights']:.1f} GB of frozen 16-bit weights, "
        f"{parts['adapters']:.2f} GB of rank-16 adapters",
        f"{parts['activations']:.2f} GB of activations (2,048-token sequences",
        f"{parts['logits']:.2f} GB of fp32 logits over Llama 3's "
        f"{model.vocab:,}-word vocabulary, and {parts['framework']:g} GB",
        f"RTX 4090 ({lora['assumptions']['price']:,.0f} USD)",
        f"so one {hardware.registry['rtx4090'].memory_gb:g} GB card holds it",
        f"({lora['breakeven']['days']:,.0f} days), within the "
        f"{lora['breakeven']['life_years']:g}-year life",
        f"8 x 40 x {scaling:.3f} (8-card scaling) x {a100:.3f} / {rtx3090:.3f}",
        f"needs {hardware.methods['full'].bytes_per_param:g} bytes per parameter: "
        f"{big['work']['memory_gb']:.1f} GB with its",
        f"`gpus` defaults to {big['buy']['gpus']} RTX 4090s",
        f"{work.TRAINING_FLOPS_PER_FORWARD_MAC} x "
        f"{hardware.models['resnet50'].forward_gmacs:g}e9 multiply-accumulates",
        f"x {work.IMAGENET_1K_IMAGES:,} x 90",
        f"trains {work.CNN_ANCHOR_IMAGES_PER_S:,} images/s on one A100",
        f"({work.VIT_ANCHOR_EPOCHS} epochs in {work.VIT_ANCHOR_GPU_HOURS // 8} h on 8 V100s)",
        f"the LoRA job above ({ranking['work']['gpu_hours']:.1f} h of RTX 4090 work, "
        f"{ranking['work']['memory_gb']:.1f} GB)",
    ]
    assert missing(text, quoted) == []
    assert run["work"]["gpu_hours"] == pytest.approx(8 * 40 * scaling * a100 / rtx3090)
    cnn_anchor = work.anchor(hardware, Workload.CNN, "vision")[1]
    assert f"80GB, {cnn_anchor:.2f} of its peak" in text
    assert vision["work"]["stated"] == "vision"
    ids = [card["id"] for card in ranking["cards"][:4]]
    assert ids == ["rtx3090", "rtx3090ti", "rtx4090", "rtx5090"]  # used cards first
    assert "rx7900xtx" in ranking["platform_left_out"]  # ROCm: ported code only
    assert {"rtx4080", "rtx3080"} <= {card["id"] for card in ranking["too_small"]}
    cheapest = lora["rent"][0]
    assert (cheapest["provider"], cheapest["accelerator"], cheapest["count"]) == (
        "vast",
        "rtx5090",
        2,
    )
    assert "two RTX 5090s on a verified Vast.ai host, on demand" in text


def test_the_sensitivity_steps_and_spreads() -> None:
    from service.engine.ranges import SPEED_SPREAD
    from service.engine.sensitivity import STEPS

    text = section("What would have to be true")

    def step(name: str, unit: str = "") -> str:
        kind, size = STEPS[name]
        return f"+-{size:g}{unit}" if kind == "add" else f"/{size:g} and x{size:g}"

    quoted = [
        f"utilization {step('utilization')}, electricity {step('electricity')}",
        f"price and rental prices {step('price')}, hours {step('hours')}",
        f"life {step('lifetime_years')} year, resale {step('resale')}",
        f"spot overhead {step('spot_overhead')}, PUE {step('pue')})",
        "(measured {measured:.0%}, adjusted {adjusted:.0%}, estimated {estimated:.0%}"
        " each way".format(**SPEED_SPREAD).replace("%", " %"),
    ]
    assert STEPS["price"] == STEPS["rent_factor"]  # "price and rental prices"
    assert missing(text, quoted) == []


def test_the_which_card_figures(client) -> None:  # type: ignore[no-untyped-def]
    text = section("Which card?")
    (url,) = _readme_urls("Which card?")
    answer = client.get(url).get_json()
    cards, rental = answer["cards"], answer["rent"][0]
    first, second, third = cards[:3]
    every = client.get(url + "&platforms=all").get_json()["cards"]
    amd = next(c for c in every if c["id"] == "rx7900xtx")
    quoted = [
        f"used RTX 3090 at {first['purchase_usd']:,.0f} USD "
        f"({first['reference_hours_per_usd']:.2f} hours of work per dollar",
        f"used RTX 3090 Ti at {second['purchase_usd']:,.0f} USD "
        f"({second['reference_hours_per_usd']:.2f})",
        f"new RTX 4090 at {third['purchase_usd']:,.0f} USD "
        f"({third['reference_hours_per_usd']:.2f})",
        f"(the RX 7900 XTX then second, at {amd['reference_hours_per_usd']:.2f})",
        f"at {rental['reference_hours_per_usd']:.1f} hours per dollar;",
    ]
    # a card bought used loses no first-owner drop when sold on: used cards lead; on the
    # reference card's platform (CUDA) by default, the ROCm card second of all platforms
    assert [c["id"] for c in (first, second, third)] == ["rtx3090", "rtx3090ti", "rtx4090"]
    assert [c["id"] for c in every[:2]] == ["rtx3090", "rx7900xtx"]
    assert {c["platform"] for c in cards} == {"cuda"}
    assert set(answer["platform_left_out"]) == {"rx7900xtx", "mi300x", "gaudi3"}
    assert rental["provider"] == "vast" and "two RTX 5090s on a" in text
    assert rental["pricing"] == "on_demand" and answer["pricing"] == "dependable"
    assert missing(text, quoted) == []


def test_the_measure_figures() -> None:
    from hardware import Workload
    from hardware.training_loops import REPEATS

    text = section("Measure your own card")
    words = {3: "three"}
    assert f"runs {words[len(Workload)]} short, standardized training loops" in text
    assert f"over {words[REPEATS]} repeats" in text


def test_the_import_and_rest_figures() -> None:
    from pricing.adapters import custom, tabular
    from pricing.controls import FORBIDDEN
    from service.documents.offers import DEFAULT_HISTORY
    from service.documents.queries import PAGE_DEFAULT, PAGE_MAX

    text = prose(readme())
    quoted = [
        f"at most {custom.MAX_ROWS:,} rows and {custom.MAX_BYTES / 2**20:g} MiB",
        f"from {tabular.MIN_USD_PER_HOUR:g} to {tabular.MAX_USD_PER_HOUR:,.0f}",
        f"at most {tabular.MAX_MEMORY_GB:g}",
        f"`count` from 1 to {tabular.MAX_COUNT:,}",
    ]
    assert missing(text, quoted) == []
    listed = re.findall(r"U\+([0-9A-F]{4})(?:\N{EN DASH}U\+([0-9A-F]{4}))?", section("CLI"))
    characters = {
        chr(c) for low, high in listed for c in range(int(low, 16), int(high or low, 16) + 1)
    }
    assert characters and all(FORBIDDEN.fullmatch(c) for c in characters)
    rest = section("REST API")
    assert f"rows ({PAGE_DEFAULT:,}, at most {PAGE_MAX:,})" in rest
    assert f"`limit` points (at most {PAGE_MAX:,})" in rest
    assert f"default {DEFAULT_HISTORY.days} days ago" in rest


def test_the_eight_h100_figures(client) -> None:  # type: ignore[no-untyped-def]
    """ "Deadlines and clusters: a team's question": each figure of the two years of eight
    H100s, the headline, the buy side and the spot tier, from the answer itself (the
    issue-57 review found its spot tier stale: three ND96amsr VMs the service no longer
    chose)."""
    text = section("Deadlines and clusters: a team's question")
    (url,) = _readme_urls("Deadlines and clusters: a team's question")
    a = client.get(url).get_json()
    buy, head = a["buy"], a["rent"][0]
    spot = next(t for t in a["tiers"] if t["tier"] == "spot")["best"]
    band = spot["interruption"]
    quoted = [
        f"{buy['total_usd']:,.0f} USD, {buy['present_usd']:,.0f} USD in today's money",
        f"{buy['energy_usd']:,.0f} USD of power",
        f"{buy['colo_usd']:,.0f} USD of rack space",
        f"{buy['support_usd']:,.0f} USD of support",
        f"{buy['staff_usd']:,.0f} USD of staff",
        f"less the {buy['resale_usd']:,.0f} USD the node fetches",
        f"in {head['wall_clock_hours']:,.0f} h for {head['total_usd']:,.0f} USD "
        f"({head['present_usd']:,.0f} USD today)",
        f"by {a['savings_usd']:,.0f} USD",
        f"only after {a['breakeven']['crossing_hours']:,.0f} h",
        f"{spot['product']} spot instance in {spot['region']}",
        f"Spot Advisor band {band['band'].replace('%', ' %')}",
        f"a {band['overhead']:.2%} allowance".replace("%", " %"),
        f"finishes in {spot['wall_clock_hours']:,.0f} h for {spot['total_usd']:,.0f} USD",
    ]
    assert a["verdict"] == "rent" and "**rent**" in text
    assert spot["instances"] == 1 and "one 8 x H200 141GB" in text
    assert missing(text, quoted) == []


def test_the_team_figures() -> None:
    text = section("Running it for a team")
    image = re.search(r"^FROM (\S+)$", (ROOT / "Dockerfile").read_text(), flags=re.MULTILINE)
    assert image and f"`{image[1]}`" in text
    assert f"port {Settings.model_fields['port'].default}" in text
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    published = compose["services"]["proxy"]["ports"][0].split(":")[0]
    assert f"published on port {published}" in " ".join(text.split())
    conftest = (ROOT / "tests" / "conftest.py").read_text()
    assert "@127.0.0.1:5432/" in conftest and "server at 127.0.0.1:5432" in " ".join(
        readme().split()
    )


# -- the query parameter checklist of docs/extending.md -------------------------------------


def test_every_shared_parameter_is_read_where_the_question_is_read() -> None:
    """docs/extending.md's "A query parameter": a parameter both endpoints take is read once,
    by the question's reading (or the work's), not by each endpoint's document."""
    shared = set(BreakevenQuery.model_fields) & set(RankQuery.model_fields)
    readers = "".join(
        (ROOT / "service" / "documents" / name).read_text(encoding="utf-8")
        for name in ("question.py", "work.py", "place.py")
    )
    # how the answer is written, not what it answers: each document renders them
    rendering = {"detail"}
    unread = sorted(
        name
        for name in shared - set(NAMES) - rendering
        if f"query.{name}" not in readers and f'"{name}"' not in readers
    )
    assert unread == []
    assert "## A query parameter" in EXTENDING.read_text(encoding="utf-8")
