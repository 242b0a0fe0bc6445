"""`breakeven offers import` against the hostile run of 2026-11-30 (findings 2, 5, 8 and 9).

A file must never speak for a cloud, two imports at once must both land, and every bad
value is a row error naming line and column, the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pricing import store as store_module
from pricing.adapters.custom import CUSTOM
from pricing.snapshot import ensure_snapshot
from pricing.store import Store, utcnow
from service.cli import cli
from service.runtime import open_runtime
from service.settings import Settings
from tests.helpers import offer

HEADER = "product,region,accelerator,count,pricing,usd_per_hour"
GOOD = "colo,us,rtx3090,1,on_demand,0.35"
# Rows per file in the process race: enough that writing one run overlaps the others' reads.
RACE_ROWS = 1500


@pytest.fixture
def settings_on(database_url: str, tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, database_url=database_url, catalog_check_seconds=0)


@pytest.fixture
def env(settings_on: Settings) -> dict[str, str]:
    return {
        "BREAKEVEN_DATA_DIR": str(settings_on.data_dir),
        "BREAKEVEN_DATABASE_URL": str(settings_on.database_url),
    }


def _run_import(tmp_path: Path, env: dict[str, str], data: bytes) -> Result:
    path = tmp_path / "quotes.csv"
    path.write_bytes(data)
    return CliRunner().invoke(cli, ["offers", "import", str(path)], env=env)


def _custom_products(settings: Settings) -> list[str]:
    runtime = open_runtime(settings)
    try:
        return sorted(s.offer.product for s in runtime.store.current_offers(CUSTOM))
    finally:
        runtime.store.dispose()


def _providers_served(store: Store) -> dict[str, int]:
    counts: dict[str, int] = {}
    for stored in store.current_offers():
        counts[stored.offer.provider] = counts.get(stored.offer.provider, 0) + 1
    return counts


# -- finding 2: a file names a cloud -----------------------------------------------------------


def test_a_provider_column_naming_a_cloud_is_a_row_error(tmp_path, env, settings_on) -> None:  # type: ignore[no-untyped-def]
    body = f"{HEADER},provider\n{GOOD},aws\nother,us,t4,1,on_demand,0.2,custom\n"
    result = _run_import(tmp_path, env, body.encode())
    assert result.exit_code == 1
    assert "line 2, provider: imported offers are always provider 'custom'" in result.output
    assert "line 3" not in result.output  # `custom` (the default) is accepted
    assert _custom_products(settings_on) == []


def test_custom_rows_never_hide_another_sources_offers(database_url: str, hardware) -> None:  # type: ignore[no-untyped-def]
    """Even a custom run that already holds a cloud's name (an older import) hides nothing."""
    store = Store(database_url)
    store.create_schema()
    try:
        ensure_snapshot(store, hardware.registry.canonical)
        before = _providers_served(store)
        store.record_run(CUSTOM, [offer(provider="aws", accelerator="rtx3090")], utcnow())
        after = _providers_served(store)
        assert before["aws"] >= 2
        assert after["aws"] == before["aws"] + 1  # every bundled AWS offer is still served
        assert {p: n for p, n in after.items() if p != "aws"} == {
            p: n for p, n in before.items() if p != "aws"
        }
    finally:
        store.dispose()


# -- finding 5: two imports at once ------------------------------------------------------------


def test_two_imports_at_once_keep_both_files(
    tmp_path, settings_on, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Each import waits at its merge for the other: without a lock both merge over the same
    old run and the later commit drops the other file's rows; with it the second waits."""
    for name, value in {
        "BREAKEVEN_DATA_DIR": str(settings_on.data_dir),
        "BREAKEVEN_DATABASE_URL": str(settings_on.database_url),
    }.items():
        monkeypatch.setenv(name, value)
    open_runtime(settings_on).store.dispose()  # schema and snapshot before the race
    meeting = threading.Barrier(2)
    cli_main = importlib.import_module("service.cli.main")  # the package exports main()
    real_merge = cli_main.merge

    def merge_after_meeting(*args, **kwargs):  # type: ignore[no-untyped-def]
        # Broken: the other import holds the lock (or is done), so go on alone.
        with contextlib.suppress(threading.BrokenBarrierError):
            meeting.wait(timeout=2)
        return real_merge(*args, **kwargs)

    monkeypatch.setattr(cli_main, "merge", merge_after_meeting)
    files = []
    for name in ("a", "b"):
        path = tmp_path / f"race-{name}.csv"
        rows = "".join(f"{name}{i},us,t4,1,on_demand,0.3\n" for i in range(300))
        path.write_text(f"{HEADER}\n{rows}")
        files.append(path)
    codes: list[object] = []

    def run(path: Path) -> None:
        codes.append(cli.main(["offers", "import", str(path)], standalone_mode=False))

    threads = [threading.Thread(target=run, args=(path,)) for path in files]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert codes == [None, None]
    products = _custom_products(settings_on)
    assert len(products) == 600
    assert sum(p.startswith("a") for p in products) == 300


def test_imports_from_separate_processes_at_once_keep_every_file(
    tmp_path, env, settings_on
) -> None:  # type: ignore[no-untyped-def]
    """The hostile run's reproduction: `breakeven offers import` started several times at once."""
    open_runtime(settings_on).store.dispose()  # schema and snapshot before the race
    names = ("a", "b", "c", "d")
    for name in names:
        rows = "".join(f"{name}{i},us,t4,1,on_demand,0.3\n" for i in range(RACE_ROWS))
        (tmp_path / f"race-{name}.csv").write_text(f"{HEADER}\n{rows}")
    command = [sys.executable, "-m", "service", "offers", "import"]
    processes = [
        subprocess.Popen(
            [*command, str(tmp_path / f"race-{name}.csv")],
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for name in names
    ]
    outputs = [process.communicate(timeout=120)[0].decode() for process in processes]
    assert [process.returncode for process in processes] == [0] * len(names), outputs
    assert len(_custom_products(settings_on)) == RACE_ROWS * len(names)


def test_an_import_that_cannot_get_the_lock_in_time_fails_cleanly(
    tmp_path, env, settings_on
) -> None:  # type: ignore[no-untyped-def]
    """Another import holding the lock past the timeout: a message, exit 1, nothing written."""
    open_runtime(settings_on).store.dispose()  # schema and snapshot before the lock is held
    store = Store(str(settings_on.database_url))
    try:
        with store.engine.connect() as holder:
            store_module._lock_writes(holder)
            data = f"{HEADER}\n{GOOD}\n".encode()
            path = tmp_path / "quotes.csv"
            path.write_bytes(data)
            result = CliRunner().invoke(
                cli,
                ["offers", "import", str(path)],
                env={**env, "BREAKEVEN_DATABASE_TIMEOUT_SECONDS": "0.5"},
            )
            holder.rollback()
    finally:
        store.dispose()
    assert result.exit_code == 1
    assert "nothing imported: the database did not answer in time" in result.output
    assert _custom_products(settings_on) == []


# -- findings 8 and 9: every bad value is a row error --------------------------------------------

_FUTURE = (datetime.now(UTC).date() + timedelta(days=3)).isoformat()
_ROW = "colo,us,rtx3090,1,on_demand,0.35,{price_as_of},{memory_gb}\n"
_WIDE = f"{HEADER},price_as_of,memory_gb\n"


def _wide(**cells: str) -> bytes:
    values = {"price_as_of": "2026-01-15", "memory_gb": ""} | cells
    return (_WIDE + _ROW.format(**values)).encode()


BAD_FILES = {
    "latin-1": (
        f"{HEADER}\n{GOOD}\nkit,m\xfcnchen,t4,1,on_demand,0.2\n".encode("latin-1"),
        "line 3, region: byte 6 of the line (0xfc) is not UTF-8",
    ),
    "utf-16": (f"{HEADER}\n{GOOD}\n".encode("utf-16"), "line 1, (file): UTF-16 text"),
    "nul in a cell": (f"{HEADER}\np\x00x,us,t4,1,on_demand,0.2\n".encode(), "line 2, product: "),
    "nul in a header": (f"{HEADER},no\x00te\n{GOOD},x\n".encode(), "line 1, column 7: "),
    "not a date": (_wide(price_as_of="not-a-date"), "line 2, price_as_of: must be an ISO"),
    "free-text date": (_wide(price_as_of="spring 2025"), "line 2, price_as_of: must be an ISO"),
    "far future": (_wide(price_as_of="2099-01-01"), "line 2, price_as_of: lies in the future"),
    "days ahead": (_wide(price_as_of=_FUTURE), "line 2, price_as_of: lies in the future"),
    "no such day": (_wide(price_as_of="2025-02-30"), "line 2, price_as_of: is not a calendar"),
    "huge price": (f"{HEADER}\ncolo,us,t4,1,on_demand,1.7e308\n".encode(), "line 2, usd_per_hour"),
    "tiny price": (f"{HEADER}\ncolo,us,t4,1,on_demand,5e-324\n".encode(), "line 2, usd_per_hour"),
    "over the ceiling": (
        f"{HEADER}\ncolo,us,t4,1,on_demand,10000.01\n".encode(),
        "line 2, usd_per_hour: must be a number of USD from 0.0001 to 10000",
    ),
    "huge memory": (_wide(memory_gb="1e308"), "line 2, memory_gb"),
    "memory past the api bound": (_wide(memory_gb="4097"), "line 2, memory_gb"),
    "count with underscore": (
        f"{HEADER}\ncolo,us,t4,1_000,on_demand,1\n".encode(),
        "line 2, count",
    ),
    "duplicate rows": (
        f"{HEADER}\n{GOOD}\nother,us,t4,1,on_demand,0.2\n{GOOD}\n".encode(),
        "line 4, (row): duplicates line 2",
    ),
    "duplicate header": (
        f"{HEADER},product\n{GOOD},again\n".encode(),
        "line 1, product: column appears more than once",
    ),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_is_rejected_by_line_and_column(case, tmp_path, env, settings_on) -> None:  # type: ignore[no-untyped-def]
    data, expected = BAD_FILES[case]
    result = _run_import(tmp_path, env, data)
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # an answer, not a traceback
    assert expected in result.output
    assert "nothing imported" in result.output
    assert _custom_products(settings_on) == []


def test_every_problem_is_reported_at_once_with_physical_line_numbers(tmp_path, env) -> None:  # type: ignore[no-untyped-def]
    """A blank line and a quoted cell over two lines still leave line numbers true."""
    body = (
        f"{HEADER},notes\n"
        f"{GOOD},ok\n"
        "\n"
        'bad-price,us,t4,1,on_demand,1e400,"two\nlines"\n'
        "bad-count,us,t4,0,on_demand,0.2,x\n"
        f"{GOOD},dup\n"
    )
    result = _run_import(tmp_path, env, body.encode())
    assert result.exit_code == 1
    for expected in (
        "line 4, usd_per_hour",
        "line 6, count",
        "line 7, (row): duplicates line 2",
    ):
        assert expected in result.output


def test_values_at_the_bounds_are_imported(tmp_path, env, settings_on) -> None:  # type: ignore[no-untyped-def]
    today = datetime.now(UTC).date()
    body = (
        f"{HEADER},price_as_of,memory_gb,provider\n"
        f"top,us,t4,100000,on_demand,10000,{today.isoformat()},4096,custom\n"
        f"month,us,t4,1,on_demand,0.0001,{today.strftime('%Y-%m')},,\n"
        "zone-b,us,t4,1,on_demand,0.2,2024-02-29,0.5,\n"
    )
    result = _run_import(tmp_path, env, body.encode())
    assert result.exit_code == 0, result.output
    assert _custom_products(settings_on) == ["month", "top", "zone-b"]
