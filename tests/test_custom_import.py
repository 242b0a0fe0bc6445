"""`breakeven offers import`: row-numbered errors, all rows or none, merge or replace."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pricing.adapters.custom import CUSTOM
from service.cli import cli
from service.runtime import open_runtime
from service.settings import Settings

HEADER = "product,region,accelerator,count,pricing,usd_per_hour\n"


@pytest.fixture
def env(settings: Settings) -> dict[str, str]:
    return {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}


def _import(tmp_path: Path, env: dict[str, str], body: str, *args: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "quotes.csv"
    path.write_text(HEADER + body)
    return CliRunner().invoke(cli, ["offers", "import", str(path), *args], env=env)


def _custom(settings: Settings) -> list[tuple[str, float]]:
    store = open_runtime(settings).store
    return sorted((s.offer.product, s.offer.usd_per_hour) for s in store.current_offers(CUSTOM))


def test_good_file_is_imported_with_defaults_filled(tmp_path, env, settings) -> None:  # type: ignore[no-untyped-def]
    result = _import(tmp_path, env, "colo-3090,us-west,RTX 3090,1,on_demand,0.35\n")
    assert result.exit_code == 0, result.output
    assert "imported 1 offers" in result.output
    (stored,) = open_runtime(settings).store.current_offers(CUSTOM)
    assert stored.offer.accelerator == "rtx3090"  # the alias was resolved
    assert stored.offer.provider == "custom"
    assert stored.offer.source == "imported from quotes.csv"
    assert stored.offer.price_as_of  # today


def test_bad_rows_are_all_reported_by_line_and_nothing_is_imported(
    tmp_path,
    env,
    settings,  # type: ignore[no-untyped-def]
) -> None:
    body = (
        "ok,us,rtx3090,1,on_demand,0.35\n"
        "bad-gpu,us,rtx9999,1,on_demand,0.35\n"
        "bad-count,us,rtx3090,0,on_demand,0.35\n"
        "bad-price,us,rtx3090,1,on_demand,-1\n"
        "bad-pricing,us,rtx3090,1,monthly,0.35\n"
        "nan-price,us,rtx3090,1,on_demand,nan\n"
    )
    result = _import(tmp_path, env, body)
    assert result.exit_code == 1
    for expected in (
        "line 3, accelerator: unknown accelerator 'rtx9999'",
        "line 4, count",
        "line 5, usd_per_hour",
        "line 6, pricing",
        "line 7, usd_per_hour",
    ):
        assert expected in result.output
    assert "nothing imported" in result.output
    assert _custom(settings) == []


def test_missing_column_is_named(tmp_path, env) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "q.csv"
    path.write_text("product,region,accelerator,count,pricing\nx,us,t4,1,on_demand\n")
    result = CliRunner().invoke(cli, ["offers", "import", str(path)], env=env)
    assert result.exit_code == 1
    assert "line 1, usd_per_hour: required column is missing" in result.output


def test_imports_merge_by_default_and_replace_on_request(tmp_path, env, settings) -> None:  # type: ignore[no-untyped-def]
    _import(tmp_path, env, "a,us,t4,1,on_demand,0.30\nb,us,t4,1,on_demand,0.40\n")
    _import(tmp_path, env, "b,us,t4,1,on_demand,0.45\nc,us,t4,1,on_demand,0.50\n")
    assert _custom(settings) == [("a", 0.30), ("b", 0.45), ("c", 0.50)]
    _import(tmp_path, env, "d,us,t4,1,on_demand,0.60\n", "--replace")
    assert _custom(settings) == [("d", 0.60)]


def test_imported_offer_is_quoted_by_breakeven(tmp_path, env) -> None:  # type: ignore[no-untyped-def]
    _import(tmp_path, env, "colo,us,rtx3090,1,on_demand,0.05\n")
    result = CliRunner().invoke(
        cli,
        [
            "quote",
            "--gpu",
            "rtx3090",
            "--hours",
            "100",
            "--providers",
            "custom",
            "--json",
            "--detail",
            "full",
        ],
        env=env,
    )
    assert result.exit_code == 0, result.output
    assert '"product": "colo"' in result.output


def test_a_negotiated_term_is_imported_and_hostile_term_cells_are_refused(
    tmp_path,
    env,
    settings,  # type: ignore[no-untyped-def]
) -> None:
    """A committed row names its purchase option and upfront share; an hourly row may carry
    neither (a term's price read as hourly would undercut every rate); the share is a plain
    number from 0 to 1."""
    path = tmp_path / "terms.csv"
    header = "product,region,accelerator,count,pricing,usd_per_hour,purchase_option,upfront_share\n"
    good = "colo-h100,us,h100-sxm,8,reserved_3y,14.5,all_upfront,1\n"
    path.write_text(header + good)
    result = CliRunner().invoke(cli, ["offers", "import", str(path)], env=env)
    assert result.exit_code == 0, result.output
    (stored,) = open_runtime(settings).store.current_offers(CUSTOM)
    offer = stored.offer
    assert (offer.pricing, offer.purchase_option, offer.upfront_share) == (
        "reserved_3y",
        "all_upfront",
        1.0,
    )
    bad = (
        "hourly-with-term,us,rtx3090,1,on_demand,0.35,no_upfront,\n"
        "hourly-with-share,us,rtx3090,1,spot,0.2,,0.5\n"
        "no-option,us,rtx3090,1,reserved_1y,0.3,,\n"
        "odd-option,us,rtx3090,1,reserved_1y,0.3,lease_to_own,0\n"
        "nan-share,us,rtx3090,1,reserved_1y,0.3,no_upfront,nan\n"
        "big-share,us,rtx3090,1,reserved_1y,0.3,partial_upfront,1e400\n"
        "negative-share,us,rtx3090,1,reserved_1y,0.3,partial_upfront,-0.1\n"
        "control,us,rtx3090,1,reserved_1y,0.3,no_upfront\x1b[31m,0\n"
    )
    path.write_text(header + bad)
    result = CliRunner().invoke(cli, ["offers", "import", str(path), "--replace"], env=env)
    assert result.exit_code == 1
    for expected in (
        "line 2, purchase_option: only a committed row",
        "line 3, upfront_share: only a committed row",
        "line 4, purchase_option: must be one of",
        "line 5, purchase_option: must be one of",
        "line 6, upfront_share: must be a number from 0 to 1",
        "line 7, upfront_share: must be a number from 0 to 1",
        "line 8, upfront_share: must be a number from 0 to 1",
        "line 9, purchase_option",
    ):
        assert expected in result.output, (expected, result.output)
    assert "nothing imported" in result.output
    assert _custom(settings) == [("colo-h100", 14.5)]  # the earlier import is untouched
