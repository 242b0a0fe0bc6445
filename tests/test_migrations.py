"""Every way to the head revision builds one schema, on SQLite and on PostgreSQL.

Three stores are migrated to head: an empty one, one stopped at 0003 (full copies of the
catalog per run), and one that revision 0004 migrated as it first landed (commit 559d608,
vendored in tests/migrations_first/), before price_packs and runs.packed were added to it
in place. Their tables, columns, keys, indexes and constraints must be the same (on SQLite,
the very CREATE statements), and the stores holding history must read it back. The
revisions themselves import nothing of the live code.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext

from pricing import schema
from pricing.offer import Offer
from pricing.store import Store, price_changes, runs
from tests.conftest import reset_postgres
from tests.helpers import count_rows, offer

VERSIONS = Path(schema.__file__).parent / "migrations" / "versions"
FIRST_0004 = Path(__file__).parent / "migrations_first" / "0004_price_changes.py"
HEAD = "0010"

T0 = datetime(2026, 6, 1, 12, tzinfo=UTC)
DAY = T0.date().isoformat()  # a price read on its run's day: stored as "@run"


def _aws(product: str, usd: float, **fields: Any) -> Offer:
    return offer(provider="aws", product=product, usd_per_hour=usd, **fields)


def _vast(product: str, usd: float, notes: str) -> Offer:
    return offer(provider="vast", product=product, usd_per_hour=usd, notes=notes, market="verified")


# What a store at 0003 holds: (adapter, hour, offers, status). Prices move, an offer goes and
# comes back, a run fails, two offers alike but for their notes, and notes that move.
HISTORY = [
    ("aws", 1, [_aws("a", 1.0, price_as_of=DAY), _aws("b", 2.0), _aws("c", 3.0)], "ok"),
    ("aws", 2, [], "failed"),
    ("aws", 3, [_aws("a", 1.0, price_as_of=DAY), _aws("b", 2.5), _aws("d", 4.0)], "ok"),
    ("aws", 4, [_aws("a", 1.0, price_as_of=DAY), _aws("b", 2.5), _aws("c", 3.0)], "ok"),
    ("vast", 5, [_vast("v", 0.3, "machine 1"), _vast("v", 0.4, "machine 2")], "ok"),
    ("vast", 6, [_vast("v", 0.3, "machine 7"), _vast("v", 0.45, "machine 2")], "ok"),
]

# The tables as revision 0003 left them, for writing a store's history the way it stored it.
runs_0003 = sa.table(
    "runs",
    sa.column("id", sa.Integer),
    sa.column("adapter", sa.String),
    sa.column("started_at", sa.DateTime(timezone=True)),
    sa.column("finished_at", sa.DateTime(timezone=True)),
    sa.column("status", sa.String),
    sa.column("row_count", sa.Integer),
    sa.column("error", sa.Text),
    sa.column("source_version", sa.String),
    sa.column("worker", sa.String),
)
COPIED = (
    "provider", "service", "product", "region", "zone", "accelerator", "count", "memory_gb",
    "pricing", "usd_per_hour", "host_included", "estimated", "suspect", "confidence",
    "price_as_of", "source", "notes", "market", "reliability", "interruption",
)  # fmt: skip
offers_0003 = sa.table("offers", sa.column("run_id"), *(sa.column(name) for name in COPIED))


# -- three ways to head ---------------------------------------------------------------------


def _from_empty(url: str) -> None:
    _upgrade(url, "head")


def _from_0003(url: str) -> None:
    _upgrade(url, "0003")
    _write_history(url)
    _upgrade(url, "head")


def _from_first_0004(url: str) -> None:
    _upgrade(url, "0003")
    _write_history(url)
    _first_0004(url)
    _upgrade(url, "head")


def _from_first_0004_after_a_failed_0005(url: str) -> None:
    """0005 used to fail on such a store; on SQLite, whose DDL does not roll back, the
    failed attempt left its first index behind."""
    _upgrade(url, "0003")
    _write_history(url)
    _first_0004(url)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE INDEX ix_price_changes_run ON price_changes (run_id)"))
    engine.dispose()
    _upgrade(url, "head")


WAYS = {
    "empty": _from_empty,
    "0003": _from_0003,
    "first 0004": _from_first_0004,
    "first 0004, 0005 failed once": _from_first_0004_after_a_failed_0005,
}


def _upgrade(url: str, revision: str) -> None:
    engine = sa.create_engine(url)
    schema.upgrade(engine, revision)
    engine.dispose()


def _write_history(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for adapter, hour, written, status in HISTORY:
            moment = T0 + timedelta(hours=hour)
            values = {
                "adapter": adapter,
                "started_at": moment - timedelta(minutes=1),
                "finished_at": moment,
                "status": status,
                "row_count": len(written),
                "error": "" if status == "ok" else "down",
                "source_version": "v",
                "worker": "test",
            }
            run_id = conn.execute(
                sa.insert(runs_0003).values(values).returning(runs_0003.c.id)
            ).scalar_one()
            for one in written:
                row = {name: getattr(one, name) for name in COPIED}
                row.update(pricing=str(one.pricing), run_id=run_id)
                conn.execute(sa.insert(offers_0003).values(row))
    engine.dispose()


def _first_0004(url: str) -> None:
    """Revision 0004 as it first landed, run through Alembic's operations, then stamped."""
    first = _load(FIRST_0004, "first_0004")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        with Operations.context(MigrationContext.configure(conn)):
            first.upgrade()
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '0004'"))
    engine.dispose()


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- what a schema is ----------------------------------------------------------------------


def _schema(url: str) -> dict[str, Any]:
    """Every table's columns (in order, with types, nullability and defaults), primary key,
    indexes, unique constraints and foreign keys; on SQLite also each CREATE statement."""
    engine = sa.create_engine(url)
    found = sa.inspect(engine)
    tables = {
        table: {
            "columns": [{**c, "type": str(c["type"])} for c in found.get_columns(table)],
            "primary key": found.get_pk_constraint(table),
            "indexes": sorted(found.get_indexes(table), key=repr),
            "unique": sorted(found.get_unique_constraints(table), key=repr),
            "foreign keys": sorted(found.get_foreign_keys(table), key=repr),
        }
        for table in sorted(found.get_table_names())
    }
    with engine.connect() as conn:
        version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one()
        statements = (
            sorted(map(tuple, conn.execute(sa.text("SELECT type, name, sql FROM sqlite_master"))))
            if conn.dialect.name == "sqlite"
            else []
        )
    engine.dispose()
    return {"tables": tables, "version": version, "statements": statements}


@pytest.fixture
def fresh(database_url: str, tmp_path: Path) -> Iterator[Any]:
    """A new empty database per call: another SQLite file, or the PostgreSQL database of
    the session emptied again (conftest's ``database_url`` empties it after the test)."""
    made = 0

    def database() -> str:
        nonlocal made
        made += 1
        if database_url.startswith("sqlite"):
            return f"sqlite:///{tmp_path / f'way{made}.sqlite3'}"
        reset_postgres(database_url)
        return database_url

    yield database


def test_every_way_to_head_builds_the_same_schema(fresh) -> None:  # type: ignore[no-untyped-def]
    schemas = {}
    for name, way in WAYS.items():
        url = fresh()
        way(url)
        schemas[name] = _schema(url)
    empty = schemas["empty"]
    assert empty["version"] == HEAD
    assert {"runs", "listings", "price_changes", "price_packs"} <= set(empty["tables"])
    assert "packed" in [c["name"] for c in empty["tables"]["runs"]["columns"]]
    for name, built in schemas.items():
        assert built == empty, name


def test_the_first_0004_store_lacks_what_0006_adds(fresh) -> None:  # type: ignore[no-untyped-def]
    """The premise: 0004 as it first landed made no price_packs and no runs.packed."""
    url = fresh()
    _upgrade(url, "0003")
    _first_0004(url)
    built = _schema(url)
    assert built["version"] == "0004"
    assert "price_packs" not in built["tables"]
    assert "packed" not in [c["name"] for c in built["tables"]["runs"]["columns"]]


@pytest.mark.parametrize("way", ["0003", "first 0004"])
def test_a_store_with_history_reads_it_back_at_head(
    fresh, way: str, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Each stored run's catalog reads back as written; the next run of the same offers
    finds its listings (0005 re-keyed them) and writes nothing; the older changes pack."""
    url = fresh()
    WAYS[way](url)
    store = Store(url)
    try:
        _reads_back(store)
        changes = count_rows(store, price_changes)
        for adapter in ("aws", "vast"):
            last = next(w for a, _, w, s in reversed(HISTORY) if a == adapter and s == "ok")
            store.record_run(adapter, last, T0 + timedelta(hours=7))
        assert count_rows(store, price_changes) == changes  # nothing moved
        monkeypatch.setattr("pricing.store.upkeep.KEEP_RAW_RUNS", 1)
        monkeypatch.setattr("pricing.store.upkeep.PACK_EVERY_RUNS", 1)
        assert store.pack("aws") > 0
        with store.connect() as conn:
            packed = conn.execute(sa.select(runs.c.id).where(runs.c.packed)).scalars().all()
        assert packed
        _reads_back(store)
    finally:
        store.dispose()


def _reads_back(store: Store) -> None:
    for adapter, hour, written, status in HISTORY:
        if status != "ok":
            continue
        moment = T0 + timedelta(hours=hour)
        back = store.current_offers(adapter, at=moment)
        assert sorted(_priced(s.offer) for s in back) == sorted(map(_priced, written)), hour
        assert {s.fetched_at for s in back} == {moment}


def _priced(one: Offer) -> tuple[object, ...]:
    """What identifies an offer and its price; a past moment shows each listing's latest
    description (notes), so those are left out."""
    return (one.provider, one.product, one.region, one.usd_per_hour, one.price_as_of)


# -- revisions are frozen ------------------------------------------------------------------

# What a revision may import: the migration tools and the standard library, never the
# project's own modules, whose later edits would change what a revision does.
PROJECT = {"pricing", "service", "hardware", "bench", "tests"}


@pytest.mark.parametrize("path", sorted(VERSIONS.glob("*.py")), ids=lambda p: p.name)
def test_a_revision_imports_nothing_of_the_project(path: Path) -> None:
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported & PROJECT == set(), path.name


def test_the_head_revision_is_the_last_file() -> None:
    assert sorted(VERSIONS.glob("*.py"))[-1].name.startswith(HEAD)
