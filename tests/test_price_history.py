"""Prices stored once per change, on SQLite and on the real PostgreSQL: what a run writes,
what every past moment reads back, retention, readers during writes, and migration 0004
from the full-copy layout with its history kept."""

from __future__ import annotations

import importlib.util
import random
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest
import sqlalchemy as sa
from sqlalchemy import select

from pricing import schema
from pricing.changes import READ_ON_RUN_DAY
from pricing.offer import Offer
from pricing.packs import Pack, price_at
from pricing.store import Store, listings, price_changes, price_packs, utcnow
from pricing.store import runs as runs_table
from tests.conftest import reset_postgres
from tests.helpers import count_rows, downgrade, offer


def _prices(store: Store, at: datetime | None = None) -> dict[str, float]:
    return {s.offer.product: s.offer.usd_per_hour for s in store.current_offers("aws", at=at)}


def _aws(product: str, usd: float, **fields: object) -> Offer:
    return offer(provider="aws", product=product, usd_per_hour=usd, **fields)


def test_a_price_repeated_by_every_run_is_stored_once(store: Store) -> None:
    batch = [_aws(f"p{i}", 1.0 + i) for i in range(50)]
    for _ in range(4):
        store.record_run("aws", batch, utcnow())
    assert (count_rows(store, listings), count_rows(store, price_changes)) == (50, 50)
    assert len(store.current_offers("aws")) == 50


def test_a_run_writes_only_what_moved_and_every_moment_reads_back(store: Store) -> None:
    first = store.record_run("aws", [_aws("a", 1.0), _aws("b", 2.0), _aws("c", 3.0)], utcnow())
    second = store.record_run("aws", [_aws("a", 1.0), _aws("b", 2.5), _aws("d", 4.0)], utcnow())
    failed = store.record_failure("aws", utcnow(), "down")
    third = store.record_run("aws", [_aws("a", 1.0), _aws("b", 2.5), _aws("c", 3.0)], utcnow())
    # 3 first prices; b moved, c went, d came; d went, c came back: 3 + 3 + 2
    assert count_rows(store, price_changes) == 8
    assert count_rows(store, listings) == 4  # c came back as the listing it was
    assert _prices(store, first.finished_at) == {"a": 1.0, "b": 2.0, "c": 3.0}
    assert _prices(store, second.finished_at) == {"a": 1.0, "b": 2.5, "d": 4.0}
    assert _prices(store, failed.finished_at) == _prices(store, second.finished_at)
    assert _prices(store, third.finished_at) == _prices(store) == {"a": 1.0, "b": 2.5, "c": 3.0}
    assert {s.run_id for s in store.current_offers("aws", at=second.finished_at)} == {second.id}


def test_history_gives_each_price_once_with_its_span(store: Store) -> None:
    runs = [store.record_run("aws", [_aws("b", usd)], utcnow()) for usd in (2.0, 2.0, 2.5)]
    runs.append(store.record_run("aws", [], utcnow()))  # b is no longer listed
    spans = store.history(since=runs[0].finished_at - timedelta(days=1)).spans
    assert [(s.offer.usd_per_hour, s.run_id) for s in spans] == [
        (2.0, runs[0].id),
        (2.5, runs[2].id),
    ]
    assert [s.fetched_at for s in spans] == [runs[0].finished_at, runs[2].finished_at]
    assert [s.until for s in spans] == [runs[2].finished_at, runs[3].finished_at]
    # a window that opens after the 2.0 span ended sees the 2.5 one only
    assert [s.offer.usd_per_hour for s in store.history(since=runs[2].finished_at).spans] == [2.5]


def test_a_price_read_on_the_runs_day_keeps_one_listing_from_day_to_day(store: Store) -> None:
    """Live adapters write price_as_of as the day they read the price: stored as "the run's
    day", the listing stays one listing, and readers get each run's own day back."""
    yesterday = utcnow() - timedelta(days=1)
    day = yesterday.date().isoformat()
    first = store.record_run("aws", [_aws("a", 1.0, price_as_of=day)], yesterday)
    today = utcnow().date().isoformat()
    store.record_run("aws", [_aws("a", 1.0, price_as_of=today)], utcnow())
    assert (count_rows(store, listings), count_rows(store, price_changes)) == (1, 1)
    with store.engine.connect() as conn:
        assert conn.execute(select(listings.c.price_as_of)).scalar_one() == READ_ON_RUN_DAY
    assert store.current_offers("aws")[0].offer.price_as_of == today
    assert store.current_offers("aws", at=first.finished_at)[0].offer.price_as_of == day
    store.record_run("aws", [_aws("a", 1.0, price_as_of="2025-06")], utcnow())  # a dated price
    assert store.current_offers("aws")[0].offer.price_as_of == "2025-06"


def test_offers_alike_but_for_price_are_each_kept(store: Store) -> None:
    batch = [_aws("a", 2.0), _aws("a", 2.0), _aws("a", 3.0)]
    store.record_run("aws", batch, utcnow())
    store.record_run("aws", list(reversed(batch)), utcnow())  # the same rows, another order
    assert sorted(s.offer.usd_per_hour for s in store.current_offers("aws")) == [2.0, 2.0, 3.0]
    assert count_rows(store, price_changes) == 3


def test_a_reader_never_sees_half_a_run(store: Store) -> None:
    """A writer alternates two runs of 2,000 offers (all at 1.0, then all at 2.0) while a
    reader reads the catalog: every read is one whole run."""
    rows = 2_000
    batches = [[_aws(f"p{i}", usd) for i in range(rows)] for usd in (1.0, 2.0)]
    store.record_run("aws", batches[0], utcnow())
    done = threading.Event()
    seen: list[tuple[int, frozenset[float], frozenset[int]]] = []

    def read() -> None:
        while not done.is_set():
            served = store.current_offers("aws")
            prices = frozenset(s.offer.usd_per_hour for s in served)
            seen.append((len(served), prices, frozenset(s.run_id for s in served)))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for turn in range(6):
            store.record_run("aws", batches[(turn + 1) % 2], utcnow())
    finally:
        done.set()
        reader.join()
    assert len(seen) > 3
    assert all(n == rows and len(p) == 1 and len(r) == 1 for n, p, r in seen), seen[:3]
    assert {p for _, p, _ in seen} == {frozenset({1.0}), frozenset({2.0})}


def test_pruning_forgets_before_the_cutoff_and_answers_every_later_moment(store: Store) -> None:
    runs = []
    for usd, extra in ((2.0, [_aws("c", 3.0)]), (2.1, []), (2.2, []), (2.3, [_aws("c", 3.0)])):
        runs.append(store.record_run("aws", [_aws("a", 1.0), _aws("b", usd), *extra], utcnow()))
        if len(runs) == 1:
            store.record_failure("aws", utcnow(), "down")
    cutoff = runs[1].finished_at + (runs[2].finished_at - runs[1].finished_at) / 2
    later = [_prices(store, run.finished_at) for run in runs[1:]]
    since = store.history(since=cutoff).spans
    # the failed run goes; runs 1 and 2 stay, each the start of a price held at the cutoff
    assert store.prune("aws", keep_after=cutoff) == 1
    assert [_prices(store, run.finished_at) for run in runs[1:]] == later
    assert [(s.offer.product, s.offer.usd_per_hour) for s in store.history(since=cutoff).spans] == [
        (s.offer.product, s.offer.usd_per_hour) for s in since
    ]
    # a's price from run 1 held at the cutoff and stays; b's 2.0, and c's first span, go
    assert count_rows(store, price_changes) == 1 + 3 + 1
    assert store.prune("aws", keep_after=cutoff) == 0  # pruning again changes nothing
    assert count_rows(store, price_changes) == 5


def test_the_writer_holds_its_lock_from_read_to_commit(store: Store) -> None:
    """Two writers of one source at once: both runs land, each diffed against the other's."""
    store.record_run("aws", [_aws("a", 1.0)], utcnow())
    errors: list[BaseException] = []

    def write(usd: float) -> None:
        try:
            store.record_run("aws", [_aws("a", usd), _aws(f"only-{usd}", usd)], utcnow())
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(usd,)) for usd in (2.0, 3.0)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    last = max(store.current_runs().values(), key=lambda run: run.id)
    usd = store.current_offers("aws")[0].offer.usd_per_hour
    assert sorted(_prices(store)) == ["a", f"only-{usd}"] and last.row_count == 2
    # one change per run for a, and each "only" listing came and (for the first) went
    assert count_rows(store, price_changes) == 1 + 2 + 2 + 1


# -- migration 0004: the full-copy layout's history, folded -----------------------------------

T0 = datetime(2026, 6, 1, 12, tzinfo=UTC)


def _migration() -> ModuleType:
    path = Path(schema.__file__).parent / "migrations" / "versions" / "0004_price_changes.py"
    spec = importlib.util.spec_from_file_location("migration_0004", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _old_run(
    conn: sa.Connection,
    m: ModuleType,
    adapter: str,
    hour: int,
    rows: list[Offer],
    status: str = "ok",
) -> int:
    moment = T0 + timedelta(hours=hour)
    run_id = conn.execute(
        sa.insert(m.runs)
        .values(
            adapter=adapter,
            started_at=moment - timedelta(minutes=1),
            finished_at=moment,
            status=status,
            row_count=len(rows),
            error="" if status == "ok" else "down",
            source_version="v",
            worker="test",
        )
        .returning(m.runs.c.id)
    ).scalar_one()
    for row in rows:
        values = {name: getattr(row, name) for name, _ in m.OFFER_COLUMNS}
        conn.execute(
            sa.insert(m.offers).values(values | {"pricing": str(row.pricing), "run_id": run_id})
        )
    return run_id


def test_migration_0004_keeps_the_history_already_stored(database_url: str) -> None:
    m = _migration()
    engine = sa.create_engine(database_url)
    schema.upgrade(engine, "0003")
    day = T0.date().isoformat()
    a, c = _aws("a", 1.0, price_as_of=day), _aws("c", 3.0, notes="third")
    written = {
        1: [a, _aws("b", 2.0), c],
        3: [a, _aws("b", 2.5), _aws("d", 4.0, memory_gb=80.0)],
        4: [a, _aws("b", 2.5), c, _aws("d", 4.0, memory_gb=80.0)],
    }
    with engine.begin() as conn:
        _old_run(conn, m, "bundled", 0, [offer(provider="gcp", product="g", usd_per_hour=9.0)])
        for hour in (1, 3, 4):
            _old_run(conn, m, "aws", hour, written[hour])
            if hour == 1:
                _old_run(conn, m, "aws", 2, [], status="failed")
        old = {
            run_id: conn.execute(sa.select(m.offers).where(m.offers.c.run_id == run_id)).all()
            for run_id in conn.execute(
                sa.select(m.runs.c.id).where(m.runs.c.status == "ok")
            ).scalars()
        }
    schema.upgrade(engine, "head")
    store = Store(database_url)
    try:
        for hour, rows in written.items():
            moment = T0 + timedelta(hours=hour)
            back = store.current_offers("aws", at=moment)
            assert sorted(map(repr, (s.offer for s in back))) == sorted(map(repr, rows)), hour
            assert {s.fetched_at for s in back} == {moment}
        assert _prices(store, T0 + timedelta(hours=2)) == {"a": 1.0, "b": 2.0, "c": 3.0}
        assert [s.offer.product for s in store.current_offers("bundled")] == ["g"]
        # a: 1 change; b: 2; c: 3 (there, gone, back); d: 1; bundled g: 1
        assert count_rows(store, price_changes) == 8
        b = [s for s in store.history(since=T0, provider="aws").spans if s.offer.product == "b"]
        assert [(s.offer.usd_per_hour, s.until) for s in b] == [
            (2.0, T0 + timedelta(hours=3)),
            (2.5, None),
        ]
        assert store.current_offers("aws", at=T0) == []
    finally:
        store.dispose()
    schema.upgrade(engine, "head")  # a second upgrade finds it done
    downgrade(engine, "0003")
    with engine.connect() as conn:
        copies = {
            run_id: conn.execute(sa.select(m.offers).where(m.offers.c.run_id == run_id)).all()
            for run_id in old
        }
    without_ids = lambda rows: sorted(repr(tuple(r)[1:]) for r in rows)  # noqa: E731
    assert {k: without_ids(v) for k, v in copies.items()} == {
        k: without_ids(v) for k, v in old.items()
    }
    engine.dispose()


# -- packing: older changes, one row per listing per range of runs ----------------------------


def _random_runs(store: Store, count: int, seed: int) -> list:  # type: ignore[type-arg]
    """``count`` runs over 12 offers: prices move, offers go and come back, a run fails."""
    rng = random.Random(seed)
    prices = {f"p{i}": 1.0 + i for i in range(12)}
    made = []
    for turn in range(count):
        for product in rng.sample(sorted(prices), 4):
            prices[product] = round(prices[product] * rng.uniform(0.8, 1.2), 4)
        listed = [p for p in sorted(prices) if rng.random() > 0.15]
        made.append(store.record_run("aws", [_aws(p, prices[p]) for p in listed], utcnow()))
        if turn % 5 == 2:
            store.record_failure("aws", utcnow(), "down")
        store.pack("aws")  # as every refresh does
    return made


def _every_moment(store: Store, made: list) -> list:  # type: ignore[type-arg]
    moments = [_prices(store, run.finished_at) for run in made]
    spans = [
        (s.offer.product, s.offer.usd_per_hour, s.run_id, s.fetched_at, s.until)
        for s in store.history(since=made[0].finished_at - timedelta(days=1)).spans
    ]
    return [moments, spans, _prices(store)]


def test_packed_changes_answer_every_moment_as_rows_did(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same runs written twice, packing off and on (3 runs kept as rows, packed every
    2): every past moment, the history and the current catalog read the same."""
    monkeypatch.setattr("pricing.store.upkeep.KEEP_RAW_RUNS", 10_000)
    unpacked_runs = _random_runs(store, 14, seed=7)
    unpacked = _every_moment(store, unpacked_runs)
    rows_unpacked = count_rows(store, price_changes)
    other = Store(store.url)  # same database: start again for the packed run
    with other.engine.begin() as conn:
        for table in (price_packs, price_changes, listings, runs_table):
            conn.execute(sa.delete(table))
    monkeypatch.setattr("pricing.store.upkeep.KEEP_RAW_RUNS", 3)
    monkeypatch.setattr("pricing.store.upkeep.PACK_EVERY_RUNS", 2)
    packed_runs = _random_runs(other, 14, seed=7)
    assert count_rows(other, price_packs) > 0
    assert count_rows(other, price_changes) < rows_unpacked
    shift = packed_runs[0].id - unpacked_runs[0].id  # run ids and times differ: compare shape
    packed = _every_moment(other, packed_runs)
    assert packed[0] == unpacked[0] and packed[2] == unpacked[2]
    # a source too large to look up listing by listing: listed now, less what changed since
    monkeypatch.setattr("pricing.store.read.PAST_LOOKUPS", 0)
    assert _every_moment(other, packed_runs)[0] == unpacked[0]
    assert [(p, u, r - shift) for p, u, r, _, _ in packed[1]] == [
        (p, u, r) for p, u, r, _, _ in unpacked[1]
    ]
    assert [(at, until) for _, _, _, at, until in packed[1]] != []
    other.dispose()


def test_pruning_inside_a_pack_keeps_every_later_moment(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pricing.store.upkeep.KEEP_RAW_RUNS", 2)
    monkeypatch.setattr("pricing.store.upkeep.PACK_EVERY_RUNS", 2)
    made = _random_runs(store, 12, seed=11)
    assert count_rows(store, price_packs) > 0
    cutoff_run = made[4]
    cutoff = cutoff_run.finished_at + (made[5].finished_at - cutoff_run.finished_at) / 2
    later = [_prices(store, run.finished_at) for run in made[4:]]
    spans = [
        (s.offer.product, s.offer.usd_per_hour, s.run_id) for s in store.history(since=cutoff).spans
    ]
    store.prune("aws", keep_after=cutoff)
    assert [_prices(store, run.finished_at) for run in made[4:]] == later
    assert [
        (s.offer.product, s.offer.usd_per_hour, s.run_id) for s in store.history(since=cutoff).spans
    ] == spans
    change_runs: list[int] = []
    with store.engine.connect() as conn:
        for pack in conn.execute(select(price_packs)):
            change_runs += Pack.decode(pack.runs, pack.prices).runs
        change_runs += conn.execute(select(price_changes.c.run_id)).scalars()
    # of the changes up to the cutoff, only each listing's price then is left
    assert len([run for run in change_runs if run <= cutoff_run.id]) == len(later[0])


def test_a_pack_round_trips_and_answers_each_run() -> None:
    pack = Pack.of([(3, 1.5), (7, None), (9, 2.25)])
    back = Pack.decode(*pack.encode())
    assert back.changes() == [(3, 1.5), (7, None), (9, 2.25)]
    assert [back.at(run) for run in (2, 3, 6, 7, 8, 9, 100)] == [
        None, (3, 1.5), (3, 1.5), (7, None), (7, None), (9, 2.25), (9, 2.25)
    ]  # fmt: skip
    assert back.closing == 2.25 and Pack.of([(1, None)]).closing is None
    assert len(pack.encode()[0]) == 3 * 4 and len(pack.encode()[1]) == 3 * 8


def test_a_packs_price_read_in_place_matches_the_decoded_pack() -> None:
    pack = Pack.of([(3, 1.5), (7, None), (9, 2.25)])
    runs, prices = pack.encode()
    for run in range(0, 12):
        change = pack.at(run)
        assert price_at(runs, prices, run) == (change[1] if change else None), run


@pytest.fixture
def packing_postgres(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """A PostgreSQL store that packs every 2 runs and keeps 2 as rows: for what only
    PostgreSQL shows (rows kept in the order written, the transaction that wrote a row)."""
    monkeypatch.setattr("pricing.store.upkeep.KEEP_RAW_RUNS", 2)
    monkeypatch.setattr("pricing.store.upkeep.PACK_EVERY_RUNS", 2)
    store = Store(postgres_url)
    store.create_schema()
    yield store
    store.dispose()
    reset_postgres(postgres_url)


def test_a_months_packs_are_written_accelerator_by_accelerator(
    packing_postgres: Store,
) -> None:
    """Listings of two accelerators, interleaved by id: a pack job writes one accelerator's
    packs after the other's, so a past catalog of one accelerator reads a few pages of a
    month's packs, not a page per listing. PostgreSQL keeps rows in the order written (their
    physical position, ctid, shows it); SQLite keeps price_packs in key order whatever the
    order, so there is nothing to see there."""
    store = packing_postgres
    cards = ("h100-sxm", "a100-80gb")
    for turn in range(6):  # ids alternate between the two accelerators
        batch = [_aws(f"p{i}", 1.0 + i + turn, accelerator=cards[i % 2]) for i in range(20)]
        store.record_run("aws", batch, utcnow())
        store.pack("aws")
    with store.connect() as conn:
        known = conn.execute(select(listings.c.id, listings.c.accelerator))
        accelerator_of = {listing: accelerator for listing, accelerator in known}
        order = sa.text("SELECT listing_id, first_run FROM price_packs ORDER BY ctid")
        written = [tuple(row) for row in conn.execute(order)]
    jobs = sorted({first for _, first in written})
    assert len(jobs) >= 2 and len(written) >= 40  # two pack jobs, every listing in each
    for first in jobs:
        job = [accelerator_of[listing] for listing, f in written if f == first]
        assert job == sorted(job), job  # one accelerator's packs, then the other's


def test_a_pack_job_leaves_the_runs_packed_before_it_alone(packing_postgres: Store) -> None:
    """Each pack job flags the runs it packed, not every run before them again: PostgreSQL
    keeps the old copy of each row it rewrites, and a runs table rewritten monthly grew to
    ~8 rows a page on the history benchmark's store (a row's xmin names the transaction that
    wrote its live copy)."""
    store = packing_postgres
    written = sa.text("SELECT id, xmin::text FROM runs WHERE packed ORDER BY id")
    made = [store.record_run("aws", [_aws("p", 1.0 + turn)], utcnow()) for turn in range(4)]
    assert store.pack("aws")
    with store.connect() as conn:
        first = {run: xmin for run, xmin in conn.execute(written)}
    made += [store.record_run("aws", [_aws("p", 9.0 + turn)], utcnow()) for turn in range(3)]
    assert store.pack("aws")
    with store.connect() as conn:
        second = {run: xmin for run, xmin in conn.execute(written)}
    assert first and set(first) < set(second)  # the second job packed more runs
    assert {run: second[run] for run in first} == first  # and rewrote none of the first's
    assert made[0].id in first
