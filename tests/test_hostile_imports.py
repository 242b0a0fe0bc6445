"""`breakeven offers import` against the hostile runs of 2026-11-30 (findings 2, 5, 8 and 9)
and 2026-12-01 (findings 9 and 10).

A file must never speak for a cloud, two imports at once must both land, and every bad
value is a row error naming line and column, the same on SQLite and PostgreSQL: a control
character a terminal would act on, a number too long to read, a column the parser does not
know and a file past the size caps included.
"""

from __future__ import annotations

import contextlib
import csv
import importlib
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pricing.adapters import custom, tabular
from pricing.adapters.custom import CUSTOM
from pricing.controls import forbidden_character
from pricing.errors import ImportRejected
from pricing.snapshot import ensure_snapshot
from pricing.store import Store, utcnow
from pricing.store import locks as store_locks
from service.cli import cli
from service.runtime import open_runtime
from service.settings import Settings
from tests.helpers import offer

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

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
            store_locks._lock_writes(holder)
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
    # 2026-12-01 #10: int() refused 5,000 digits with a traceback naming no line or column
    "5,000-digit count": (
        f"{HEADER}\ncolo,us,t4,{'9' * 5000},on_demand,1\n".encode(),
        "line 2, count: must be a whole number from 1 to 100000, got '9999",
    ),
    "5,000-digit price": (
        f"{HEADER}\ncolo,us,t4,1,on_demand,{'9' * 5000}\n".encode(),
        "line 2, usd_per_hour: must be a number of USD",
    ),
    "5,000-digit fraction of a price": (
        f"{HEADER}\ncolo,us,t4,1,on_demand,0.{'0' * 5000}1\n".encode(),
        "line 2, usd_per_hour: must be a number of USD",
    ),
    "5,000-digit memory": (_wide(memory_gb="9" * 5000), "line 2, memory_gb: must be a number"),
    # 2026-12-01 #10: a column the parser does not know dropped its data unseen
    "a capitalised column beside its own": (
        f"{HEADER},Product\n{GOOD},other\n".encode(),
        "line 1, Product: unknown column 'Product': did you mean 'product'?",
    ),
    "a misspelt market": (
        f"{HEADER},Market\n{GOOD},community\n".encode(),
        "line 1, Market: unknown column 'Market': did you mean 'market'?",
    ),
    "memory without its unit": (
        f"{HEADER},memory\n{GOOD},24\n".encode(),
        "line 1, memory: unknown column 'memory': did you mean 'memory_gb'?",
    ),
    "a column like none": (
        f"{HEADER},colour\n{GOOD},red\n".encode(),
        "line 1, colour: unknown column 'colour': the columns are product, region,",
    ),
    "only a capitalised required column": (
        HEADER.replace("product", "Product").encode() + f"\n{GOOD}\n".encode(),
        "line 1, Product: unknown column 'Product': did you mean 'product'?",
    ),
    "a value under an unnamed column": (
        f"{HEADER},\n{GOOD},24\n".encode(),
        "line 2, column 7: holds a value, but the header gives this column no name",
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


# -- 2026-12-01 finding 9: text a terminal would act on ----------------------------------------

TERMINAL_CONTROLS = {
    "OSC title, colour and clear": "\x1b]0;PWNED\x07\x1b[31mred\x1b[0m\x1b[2J",
    "bell": "ding\x07",
    "carriage return": "cheap\rdear",
    "backspace": "abc\x08\x08\x08xyz",
    "delete": "a\x7fb",
    "C1 CSI": "a\x9b2Jb",
    "right-to-left override": "cheap\u202egnp.exe",
    "left-to-right embedding": "a\u202ab",
    "first-strong isolate": "a\u2068b",
    "right-to-left mark": "a\u200fb",
    "Arabic letter mark": "a\u061cb",
    # 2026-12-06 (issue 58, N7): separators a browser breaks a line at, and invisible ones
    "line separator": "cheap\u2028dear",
    "paragraph separator": "a\u2029b",
    "zero-width space": "cheap\u200bx",
    "zero-width joiner": "a\u200db",
    "word joiner": "a\u2060b",
    "byte-order mark": "a\ufeffb",
}


def test_a_terminal_control_in_any_text_cell_is_a_row_error(tmp_path, env, settings_on) -> None:  # type: ignore[no-untyped-def]
    """The hostile run's strings, one a row, each in product, region or notes by turn."""
    columns = ("product", "region", "notes")
    rows, expected = [], {}
    for number, text in enumerate(TERMINAL_CONTROLS.values()):
        cells = {"product": f"colo{number}", "region": "us", "notes": "fine"}
        column = columns[number % len(columns)]
        cells[column] = text
        product, region, notes = cells.values()
        rows.append(f'"{product}","{region}",t4,1,on_demand,0.3,"{notes}"\n')
        expected[f"line {number + 3}, {column}"] = f"U+{ord(forbidden_character(text) or ' '):04X}"
    result = _run_import(tmp_path, env, f"{HEADER},notes\n{GOOD},ok\n{''.join(rows)}".encode())
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    said = dict(line.strip().split(": holds the ") for line in result.output.splitlines()[1:])
    assert list(said) == list(expected)  # every row, and only those (line 2 is good)
    for where, code in expected.items():
        assert f" {code}" in said[where]
    assert forbidden_character(result.output.replace("\n", "")) is None  # nor in the errors
    assert _custom_products(settings_on) == []


def test_a_line_break_in_a_quoted_cell_and_a_control_in_a_header_are_row_errors(  # type: ignore[no-untyped-def]
    tmp_path, env, settings_on
) -> None:
    body = f'{HEADER},notes,"no\x1b[2Jtes"\n{GOOD},"two\nlines",\n'
    result = _run_import(tmp_path, env, body.encode())
    assert result.exit_code == 1
    assert "line 1, column 8: holds the control character U+001B" in result.output
    assert "line 2, notes: holds the line break U+000A" in result.output
    assert _custom_products(settings_on) == []


def test_a_tab_in_a_cell_is_imported(tmp_path, env, settings_on) -> None:  # type: ignore[no-untyped-def]
    result = _run_import(tmp_path, env, f'{HEADER}\n"col\to",us,t4,1,on_demand,0.3\n'.encode())
    assert result.exit_code == 0, result.output
    assert _custom_products(settings_on) == ["col\to"]


def test_a_file_name_with_controls_is_escaped_in_the_default_source(  # type: ignore[no-untyped-def]
    tmp_path, env, settings_on
) -> None:
    """The file name becomes each row's source: it must not carry an escape in with it."""
    path = tmp_path / "q\x1b]0;x\x07.csv"
    path.write_text(f"{HEADER}\n{GOOD}\n")
    result = CliRunner().invoke(cli, ["offers", "import", str(path)], env=env)
    assert result.exit_code == 0, result.output
    runtime = open_runtime(settings_on)
    try:
        (stored,) = runtime.store.current_offers(CUSTOM)
    finally:
        runtime.store.dispose()
    assert stored.offer.source == "imported from q\\x1b]0;x\\x07.csv"


# -- 2026-12-01 finding 10: caps, long numbers, unknown columns --------------------------------


def test_every_column_with_a_5000_digit_cell_is_an_answer_not_a_traceback(  # type: ignore[no-untyped-def]
    tmp_path, env
) -> None:
    """Whatever the column, a huge cell is either taken as text or a row error naming it."""
    rejected = []
    for column in tabular.KNOWN_COLUMNS:
        cells = dict(zip(HEADER.split(","), GOOD.split(","), strict=True))
        cells[column] = "9" * 5000
        body = ",".join(cells) + "\n" + ",".join(cells.values()) + "\n"
        result = _run_import(tmp_path, env, body.encode())
        assert result.exception is None or isinstance(result.exception, SystemExit), column
        if result.exit_code:
            assert f"line 2, {column}: " in result.output, result.output
            assert "9" * 100 not in result.output  # a value is quoted cut short, if at all
            rejected.append(column)
    assert set(rejected) >= {"count", "usd_per_hour", "memory_gb", "reliability", "product"}


def test_a_file_past_the_row_cap_is_refused_before_the_rest_is_read(  # type: ignore[no-untyped-def]
    tmp_path, env, settings_on, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the cap a file is imported; one row more is refused, and the rows after it (one
    with a bad price here) are never parsed. The real cap (100,000) is covered by a smaller
    one: 100,000 rows take seconds to parse."""
    monkeypatch.setattr(custom, "MAX_ROWS", 50)
    rows = "".join(f"r{i},us,t4,1,on_demand,0.3\n" for i in range(50))
    at_cap = _run_import(tmp_path, env, f"{HEADER}\n\n{rows}".encode())
    assert at_cap.exit_code == 0, at_cap.output
    over = _run_import(
        tmp_path,
        env,
        f"{HEADER}\n{rows}x,us,t4,1,on_demand,0.3\nbad,us,t4,1,on_demand,-1\n".encode(),
    )
    assert over.exit_code == 1
    assert "line 52, (file): the file has more than 50 rows; split it" in over.output
    assert "usd_per_hour" not in over.output  # line 53 was never read
    assert len(_custom_products(settings_on)) == 50  # the refused file changed nothing


def test_the_row_cap_is_stated_in_the_message_and_the_readme() -> None:
    lines = csv.reader(["x\n"] * (custom.MAX_ROWS + 1))
    with pytest.raises(ImportRejected) as rejected:
        list(tabular._records(lines, ["product"], [], custom.MAX_ROWS))
    (error,) = rejected.value.errors
    assert str(error) == (
        f"line {custom.MAX_ROWS + 1}, (file): the file has more than 100,000 rows; "
        "split it into several imports"
    )
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    assert "100,000 rows" in readme and "32 MiB" in readme


def test_a_file_past_the_byte_cap_is_refused_unread(tmp_path, env, settings_on) -> None:  # type: ignore[no-untyped-def]
    """A sparse 40 MiB file: refused by its size alone, or its NUL bytes would be named."""
    path = tmp_path / "huge.csv"
    with path.open("wb") as file:
        file.write(f"{HEADER}\n{GOOD}\n".encode())
        file.truncate(40 * 2**20)
    result = CliRunner().invoke(cli, ["offers", "import", str(path)], env=env)
    assert result.exit_code == 1
    assert "line 1, (file): the file is larger than 32 MiB (41,943,040 bytes)" in result.output
    assert "NUL" not in result.output
    assert _custom_products(settings_on) == []


def test_a_pipe_past_the_byte_cap_is_refused_once_it_passes(  # type: ignore[no-untyped-def]
    tmp_path, env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipe has no size to look at: it is read up to the cap and one byte more."""
    monkeypatch.setattr(custom, "MAX_BYTES", 2**20)
    fifo = tmp_path / "quotes.csv"
    os.mkfifo(fifo)
    body = (HEADER + "\n" + f"{GOOD}\n" * 70_000).encode()  # 2.3 MB

    def write() -> None:
        with contextlib.suppress(BrokenPipeError), fifo.open("wb") as file:
            file.write(body)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    result = CliRunner().invoke(cli, ["offers", "import", str(fifo)], env=env)
    writer.join(timeout=10)
    assert result.exit_code == 1, result.output
    assert "line 1, (file): the file is larger than 1 MiB; split it" in result.output
    assert not writer.is_alive()  # the reader stopped and closed the pipe


def test_5000_unknown_columns_are_each_named(tmp_path, env, settings_on) -> None:  # type: ignore[no-untyped-def]
    extra = [f"x{i}" for i in range(5000)]
    body = f"{HEADER},{','.join(extra)}\n{GOOD},{','.join('1' * 5000)}\n"
    result = _run_import(tmp_path, env, body.encode())
    assert result.exit_code == 1
    assert "5000 bad row(s), nothing imported" in result.output
    assert "line 1, x0: unknown column 'x0'" in result.output
    assert "line 1, x4999: unknown column 'x4999'\n" in result.output
    assert result.output.count("the columns are product, region") == 1  # listed once
    assert _custom_products(settings_on) == []


def test_an_empty_trailing_column_is_no_column(tmp_path, env, settings_on) -> None:  # type: ignore[no-untyped-def]
    """A spreadsheet's trailing comma names nothing and holds nothing: the file imports."""
    result = _run_import(tmp_path, env, f"{HEADER},,\n{GOOD},,\nb,us,t4,1,on_demand,0.2\n".encode())
    assert result.exit_code == 0, result.output
    assert _custom_products(settings_on) == ["b", "colo"]
