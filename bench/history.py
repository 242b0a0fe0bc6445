"""History benchmark: two simulated years of 6-hourly refreshes of 100,000 offers.

Each refresh moves 2 % of on-demand prices and 20 % of spot prices (issue 22); the share of
spot offers is the bundled catalog's. Both layouts, on SQLite and on PostgreSQL:

- **changes** (the store today): the two years are written straight into the tables as the
  store's writer lays them out, in run order (the order a real refresh writes them); then
  real refreshes go through ``Store.record_run`` on top, and the queries run through the app.
- **full copy** (revision 0003: one row per offer per run): writing 2,920 copies of 100,000
  offers (292 M rows) does not fit this machine's time, so ``FULL_COPY_RUNS`` runs are
  written the way 0003's store wrote them; size is that per run times 2,920 (the layout
  grows by exactly one copy a run) and the queries are timed on those runs only, which
  flatters the full copy: at two years each query has 2,920 / ``FULL_COPY_RUNS`` times the
  rows to look through.

``python -m bench.history`` runs this alone and rewrites its section of bench/results.md.
"""

from __future__ import annotations

import csv
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from hardware import load_hardware
from pricing import changes, schema
from pricing.offer import Offer, PricingModel
from pricing.packs import KEEP_RAW_RUNS
from pricing.store import Store, listings, price_changes, price_series, runs
from service.http.app import create_app
from service.settings import Settings

OFFERS = 100_000
REFRESHES = 2 * 365 * 4  # two years, every 6 hours
REFRESH_EVERY = timedelta(hours=6)
ON_DEMAND_MOVES = 0.02  # share of on-demand prices that change at each refresh (issue 22)
SPOT_MOVES = 0.20  # ... and of spot prices
TIMED_REFRESHES = 5  # real refreshes written on top of the two years
QUERIES = 21  # timed requests per query kind (odd: the median is one of them)
FULL_CATALOG_QUERIES = 3  # /offers?at= with no filter reads the whole catalog then: slow
# Runs written between two calls of Store.pack (which acts once a month's changes gathered).
PACK_CHECK_EVERY = 40
FULL_COPY_RUNS = 30  # runs of the full-copy layout actually written (7.5 days)
HISTORY_PAGE = 1_000  # points per /offers/history page in the timed requests
SEED = 20261201
ADAPTER = "bench"
REGIONS = [f"region-{i}" for i in range(24)]
PROVIDERS = ["aws", "gcp", "azure", "lambda", "runpod", "vast"]
BUDGET_STORE_GB = 2.0
BUDGET_REFRESH_S = 10.0
BUDGET_QUERY_MS = 50.0
POSTGRES_URL = os.environ.get(
    "BREAKEVEN_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
SNAPSHOT = Path(__file__).parents[1] / "pricing" / "data" / "snapshot.csv"


def spot_share() -> float:
    """Spot among the bundled catalog's on-demand and spot offers."""
    with SNAPSHOT.open(newline="") as handle:
        kinds = [row["pricing"] for row in csv.DictReader(handle)]
    spot, on_demand = kinds.count("spot"), kinds.count("on_demand")
    return spot / (spot + on_demand)


class Simulation:
    """The catalog and its price moves, seeded: every layout and backend gets the same."""

    def __init__(self, today: date) -> None:
        rng = random.Random(SEED)
        accelerators = [a.id for a in load_hardware().registry]
        self.spot_share = spot_share()
        self.today = today.isoformat()
        self.offers: list[Offer] = []
        for i in range(OFFERS):
            count = rng.choice([1, 1, 2, 4, 8])
            spot = rng.random() < self.spot_share
            self.offers.append(
                Offer(
                    provider=rng.choice(PROVIDERS),
                    product=f"type-{i}",
                    region=rng.choice(REGIONS),
                    accelerator=rng.choice(accelerators),
                    count=count,
                    pricing=PricingModel.SPOT if spot else PricingModel.ON_DEMAND,
                    usd_per_hour=round(rng.uniform(0.2, 4.0) * count, 4),
                    price_as_of=self.today,  # as every live adapter writes it: read today
                    source="synthetic",
                    service="compute",
                )
            )
        self.spot = np.array([o.pricing == PricingModel.SPOT for o in self.offers])
        self.prices = np.array([o.usd_per_hour for o in self.offers])  # moved as runs go by
        self.accelerators = sorted({o.accelerator for o in self.offers})
        self.generator = np.random.default_rng(SEED)

    def moves(self, prices: np.ndarray) -> np.ndarray:
        """Indices whose price moves at one refresh; their new prices are written into
        ``prices`` (±10 %, to a hundredth of a cent)."""
        spot = np.flatnonzero(self.spot)
        on_demand = np.flatnonzero(~self.spot)
        moved = np.concatenate(
            [
                self.generator.choice(on_demand, round(len(on_demand) * ON_DEMAND_MOVES), False),
                self.generator.choice(spot, round(len(spot) * SPOT_MOVES), False),
            ]
        )
        factor = self.generator.uniform(0.9, 1.1, len(moved))
        before = prices[moved]
        prices[moved] = np.round(before * factor, 4)
        return np.sort(moved[prices[moved] != before])  # a move that rounds away is none


@contextmanager
def database(backend: str, name: str) -> Iterator[str]:
    """A fresh database of its own, removed afterwards."""
    if backend == "sqlite":
        folder = tempfile.mkdtemp(prefix=f"bench-{name}-")
        try:
            yield f"sqlite:///{folder}/store.sqlite3"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    url = make_url(POSTGRES_URL)
    admin = url.set(drivername="postgresql").render_as_string(hide_password=False)
    database_name = f"bench_history_{name}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database_name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{database_name}"')
    try:
        yield url.set(database=database_name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database_name}" WITH (FORCE)')


def store_bytes(engine: sa.Engine, tables: list[str]) -> int:
    with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(sa.text("CHECKPOINT"))
            return sum(
                conn.execute(sa.text("SELECT pg_total_relation_size(:t)"), {"t": t}).scalar_one()
                for t in tables
            )
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    database = engine.url.database
    assert database is not None
    return sum(p.stat().st_size for p in Path(database).parent.glob("store.sqlite3*"))


def run_times(now: datetime, count: int) -> list[datetime]:
    """``count`` refreshes 6 hours apart, the last an hour before ``now``."""
    last = now - timedelta(hours=1)
    return [last - REFRESH_EVERY * (count - 1 - i) for i in range(count)]


# The runs table as revision 0003 left it, for the full-copy layout.
RUNS_0003 = sa.table(
    "runs",
    *(sa.column(name) for name in ("id", "adapter", "started_at", "finished_at", "status")),
    *(sa.column(name) for name in ("row_count", "error", "source_version", "worker")),
)


def _insert_runs(
    conn: sa.Connection, moments: list[datetime], rows: int, table: Any = runs
) -> list[int]:
    values = [
        {
            "adapter": ADAPTER,
            "started_at": moment - timedelta(minutes=1),
            "finished_at": moment,
            "status": "ok",
            "row_count": rows,
            "error": "",
            "source_version": "simulated",
            "worker": "bench",
        }
        for moment in moments
    ]
    made = sa.insert(table).returning(table.c.id, sort_by_parameter_order=True)
    return list(conn.execute(made, values).scalars())


class DailySeries:
    """The price_series rows a day's last run writes (pricing/store/series.py), computed on
    the simulation's arrays: per accelerator, provider and tier, the low and the median per
    accelerator-hour."""

    def __init__(self, sim: Simulation) -> None:
        keys = [(o.accelerator, o.provider, str(o.pricing)) for o in sim.offers]
        self.lines = sorted(set(keys))
        index = {key: i for i, key in enumerate(self.lines)}
        self.codes = np.array([index[key] for key in keys])
        self.counts = np.array([o.count for o in sim.offers], dtype=np.float64)

    def rows(self, day: date, prices: np.ndarray) -> list[dict[str, object]]:
        per_hour = prices / self.counts
        order = np.lexsort((per_hour, self.codes))
        codes, sorted_prices = self.codes[order], per_hour[order]
        starts = np.searchsorted(codes, np.arange(len(self.lines)))
        ends = np.searchsorted(codes, np.arange(len(self.lines)), side="right")
        found = []
        for line, (a, b) in enumerate(zip(starts, ends, strict=True)):
            if a == b:
                continue
            accelerator, provider, pricing = self.lines[line]
            found.append(
                {
                    "accelerator": accelerator,
                    "day": day,
                    "adapter": ADAPTER,
                    "provider": provider,
                    "pricing": pricing,
                    "low": float(sorted_prices[a]),
                    "median": float(np.median(sorted_prices[a:b])),
                    "offers": int(b - a),
                }
            )
        return found


# -- the change layout ----------------------------------------------------------------------


def write_two_years(
    url: str, sim: Simulation, now: datetime, refreshes: int = REFRESHES
) -> dict[str, float]:
    """The two years (or ``refreshes`` runs) as the store's writer lays them out, written in
    run order."""
    store = Store(url)
    store.create_schema()
    clock = time.perf_counter()
    prices = sim.prices
    keyed = changes.listed(sim.offers, frozenset({sim.today}))
    digests = list(keyed)  # the simulation's offers are distinct: one listing each, in order
    moments = run_times(now, refreshes)
    with store.engine.begin() as conn:
        rows = [keyed[d].row(ADAPTER) for d in digests]
        made = sa.insert(listings).returning(listings.c.id, sort_by_parameter_order=True)
        listing_ids = np.array(list(conn.execute(made, rows).scalars()))
    written, pack_seconds = 0, []
    loader = _postgres_loader if store.engine.dialect.name == "postgresql" else _sqlite_loader
    daily = DailySeries(sim)
    for start in range(0, refreshes, PACK_CHECK_EVERY):
        block = moments[start : start + PACK_CHECK_EVERY]
        with store.engine.begin() as conn:
            run_ids = _insert_runs(conn, block, OFFERS)
        days = []
        with loader(store.engine) as load:
            for i, run_id in enumerate(run_ids, start=start):
                moved = np.arange(OFFERS) if i == 0 else sim.moves(prices)
                load(listing_ids[moved], run_id, prices[moved])
                written += len(moved)
                last_of_day = i + 1 == len(moments) or moments[i + 1].date() != moments[i].date()
                if last_of_day:  # as the writer keeps the day's last run
                    days += daily.rows(moments[i].date(), prices)
        with store.engine.begin() as conn:
            conn.execute(sa.insert(price_series), days)
        packing = time.perf_counter()
        if store.pack(ADAPTER):  # the refresh job asks after every run; it acts monthly
            pack_seconds.append(time.perf_counter() - packing)
        print(f"  history: {start + len(block):,} of {refreshes:,} runs", file=sys.stderr)
    with store.engine.begin() as conn:  # each listing's price now: its last change
        conn.execute(
            sa.update(listings)
            .where(listings.c.id == sa.bindparam("listing"))
            .values(usd_per_hour=sa.bindparam("price")),
            [
                {"listing": int(i), "price": float(p)}
                for i, p in zip(listing_ids, prices, strict=True)
            ],
        )
    _analyze(store.engine)
    seconds = time.perf_counter() - clock
    size = store_bytes(store.engine, ["runs", "listings", "price_changes", "price_packs"])
    store.dispose()
    return {
        "changes": written,
        "load_s": seconds,
        "bytes": size,
        "packs": len(pack_seconds),
        "pack_p50_s": statistics.median(pack_seconds) if pack_seconds else 0.0,
        "pack_max_s": max(pack_seconds, default=0.0),
    }


@contextmanager
def _postgres_loader(engine: sa.Engine) -> Iterator[Callable[[Any, int, Any], None]]:
    raw = psycopg.connect(engine.url.set(drivername="postgresql").render_as_string(False))
    try:
        # The rows are the writer's own; its foreign-key check would only cost the load time.
        raw.execute("SET session_replication_role = replica")
        with (
            raw.cursor() as cursor,
            cursor.copy("COPY price_changes (listing_id, run_id, usd_per_hour) FROM STDIN") as copy,
        ):

            def load(ids: Any, run_id: int, usd: Any) -> None:
                text = "".join(
                    f"{i}\t{run_id}\t{p!r}\n"
                    for i, p in zip(ids.tolist(), usd.tolist(), strict=True)
                )
                copy.write(text)

            yield load
        raw.commit()
    finally:
        raw.close()


@contextmanager
def _sqlite_loader(engine: sa.Engine) -> Iterator[Callable[[Any, int, Any], None]]:
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA cache_size = -1000000")  # the load's own connection
        statement = sa.insert(price_changes)

        def load(ids: Any, run_id: int, usd: Any) -> None:
            conn.execute(
                statement,
                [
                    {"listing_id": i, "run_id": run_id, "usd_per_hour": p}
                    for i, p in zip(ids.tolist(), usd.tolist(), strict=True)
                ],
            )

        yield load
        conn.commit()


def _analyze(engine: sa.Engine) -> None:
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE")
    else:
        with engine.begin() as conn:
            conn.exec_driver_sql("ANALYZE")


def timed_refreshes(url: str, sim: Simulation) -> list[float]:
    """Real refreshes through the store on top of the two years."""
    store = Store(url)
    prices = sim.prices
    seconds = []
    for _ in range(TIMED_REFRESHES):
        before = _count_changes(store)
        moved = len(sim.moves(prices))
        batch = [
            replace(o, usd_per_hour=p) for o, p in zip(sim.offers, prices.tolist(), strict=True)
        ]
        clock = time.perf_counter()
        store.record_run(ADAPTER, batch, datetime.now(UTC), "simulated")
        seconds.append(time.perf_counter() - clock)
        # the writer found the simulated listings: it wrote the moved prices and nothing more
        assert _count_changes(store) - before == moved, "the simulation is not the writer's layout"
    assert len(store.current_offers(ADAPTER)) == OFFERS
    store.dispose()
    return seconds


def _count_changes(store: Store) -> int:
    with store.engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(price_changes)).scalar_one()


def timed_queries(url: str, sim: Simulation, now: datetime, data_dir: Path) -> dict[str, float]:
    """Server time of the app's answers (Flask's test client: no socket, no load)."""
    app = create_app(Settings(database_url=url, data_dir=data_dir, catalog_check_seconds=3600))
    client = app.test_client()
    rng = random.Random(SEED)
    since = (now - timedelta(days=2 * 365 + 1)).date().isoformat()
    first = now - REFRESH_EVERY * (REFRESHES - 2)

    def moment() -> str:
        return f"{first + (now - first) * rng.random():%Y-%m-%dT%H:%M:%SZ}"

    def p50(paths: list[str]) -> float:
        times = []
        for path in paths:
            clock = time.perf_counter()
            response = client.get(path)
            times.append(time.perf_counter() - clock)
            assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])
        return statistics.median(times) * 1000

    picks = [rng.choice(sim.accelerators) for _ in range(QUERIES)]
    history = [f"/offers/history?accelerator={a}&since={since}&limit={HISTORY_PAGE}" for a in picks]
    probe = client.get(history[0]).get_json()
    figures = {
        "history_p50_ms": p50(history),
        "history_points": probe["count"],
        "history_full_page_p50_ms": p50(
            [f"/offers/history?accelerator={a}&since={since}" for a in picks[:5]]
        ),
        "at_accelerator_p50_ms": p50(
            [f"/offers?at={moment()}&accelerator={a}&limit=100" for a in picks]
        ),
        "at_full_p50_ms": p50(
            [f"/offers?at={moment()}&limit=100" for _ in range(FULL_CATALOG_QUERIES)]
        ),
        "series_p50_ms": p50([f"/offers/series?accelerator={a}" for a in picks]),
        "series_points": client.get(f"/offers/series?accelerator={picks[0]}").get_json()["count"],
    }
    # The store's own calls, to set beside the full copy's queries (which have no app)
    store = app.extensions["breakeven"].store
    two_years_ago = now - timedelta(days=2 * 365 + 1)
    figures["history_store_p50_ms"] = _p50_ms(
        lambda a: store.history(two_years_ago, accelerator=a, limit=HISTORY_PAGE), picks
    )
    figures["at_store_p50_ms"] = _p50_ms(
        lambda a: store.current_offers(at=datetime.fromisoformat(moment()), accelerator=a), picks
    )
    store.dispose()
    return figures


# -- the full-copy layout (revision 0003) ----------------------------------------------------

COPY_COLUMNS = (
    "provider", "service", "product", "region", "zone", "accelerator", "count", "memory_gb",
    "pricing", "usd_per_hour", "host_included", "estimated", "suspect", "confidence",
    "price_as_of", "source", "notes", "market", "reliability", "interruption",
)  # fmt: skip
full_copies = sa.table(
    "offers", sa.column("id"), sa.column("run_id"), *(sa.column(c) for c in COPY_COLUMNS)
)


def full_copy_layout(url: str, sim: Simulation, now: datetime) -> dict[str, float]:
    engine = sa.create_engine(url)
    schema.upgrade(engine, "0003")
    prices = sim.prices
    base = [
        {c: getattr(o, c) for c in COPY_COLUMNS} | {"pricing": str(o.pricing)} for o in sim.offers
    ]
    seconds = []
    moments = run_times(now, FULL_COPY_RUNS)
    run_ids = []
    for i, moment in enumerate(moments):
        if i:
            sim.moves(prices)
        clock = time.perf_counter()
        with engine.begin() as conn:  # as 0003's Store.record_run: one run, all its offers
            (run_id,) = _insert_runs(conn, [moment], OFFERS, RUNS_0003)
            conn.execute(
                sa.insert(full_copies),
                [
                    row | {"usd_per_hour": p, "run_id": run_id}
                    for row, p in zip(base, prices.tolist(), strict=True)
                ],
            )
        seconds.append(time.perf_counter() - clock)
        run_ids.append(run_id)
    _analyze(engine)
    size = store_bytes(engine, ["runs", "offers"])
    rng = random.Random(SEED)
    picks = [rng.choice(sim.accelerators) for _ in range(QUERIES)]
    since = moments[0] - timedelta(days=1)

    def history(accelerator: str) -> None:  # 0003's Store.history, one page
        query = (
            sa.select(full_copies, runs.c.finished_at)
            .join(runs, runs.c.id == full_copies.c.run_id)
            .where(runs.c.status == "ok", runs.c.finished_at >= since)
            .where(full_copies.c.accelerator == accelerator)
            .order_by(runs.c.finished_at, full_copies.c.id)
            .limit(HISTORY_PAGE)
        )
        with engine.connect() as conn:
            conn.execute(query).all()

    def at(accelerator: str) -> None:  # 0003's catalog at a moment: that run's rows
        run_id = rng.choice(run_ids)
        query = sa.select(full_copies).where(
            full_copies.c.run_id == run_id, full_copies.c.accelerator == accelerator
        )
        with engine.connect() as conn:
            conn.execute(query).all()

    figures = {
        "write_p50_s": statistics.median(seconds),
        "bytes_measured": size,
        "bytes_two_years": size / FULL_COPY_RUNS * REFRESHES,
        "history_p50_ms": _p50_ms(history, picks),
        "at_accelerator_p50_ms": _p50_ms(at, picks),
    }
    engine.dispose()
    return figures


def _p50_ms(call: Callable[[str], None], arguments: list[str]) -> float:
    times = []
    for argument in arguments:
        clock = time.perf_counter()
        call(argument)
        times.append(time.perf_counter() - clock)
    return statistics.median(times) * 1000


# -- the run and its section of bench/results.md --------------------------------------------


def run() -> dict[str, Any]:
    now = datetime.now(UTC)
    results: dict[str, Any] = {"spot_share": spot_share()}
    for backend in ("postgresql", "sqlite"):
        sim = Simulation(now.date())
        print(f"history: {backend}, change layout, two years ...", file=sys.stderr)
        with database(backend, "changes") as url:
            written = write_two_years(url, sim, now)
            refreshes = timed_refreshes(url, sim)
            with tempfile.TemporaryDirectory() as data_dir:
                queries = timed_queries(url, sim, now, Path(data_dir))
        results[backend] = {
            **written,
            "refresh_p50_s": statistics.median(refreshes),
            "refresh_max_s": max(refreshes),
            **queries,
        }
        print(f"history: {backend}, full copy, {FULL_COPY_RUNS} runs ...", file=sys.stderr)
        with database(backend, "copies") as url:
            results[backend]["full_copy"] = full_copy_layout(url, Simulation(now.date()), now)
        print(f"  {results[backend]}", file=sys.stderr)
    return results


def verdict(results: dict[str, Any]) -> bool:
    pg = results["postgresql"]
    return (
        pg["bytes"] < BUDGET_STORE_GB * 1e9
        and pg["refresh_max_s"] < BUDGET_REFRESH_S
        and pg["history_p50_ms"] < BUDGET_QUERY_MS
        and pg["at_accelerator_p50_ms"] < BUDGET_QUERY_MS
        and pg["series_p50_ms"] < BUDGET_QUERY_MS
    )


def section(results: dict[str, Any]) -> list[str]:
    pg, lite = results["postgresql"], results["sqlite"]

    def mb(value: float) -> str:
        return f"{value / 1e6:,.0f} MB"

    rows = [
        ("store size after two years", mb(pg["bytes"]), mb(lite["bytes"]),
         f"{mb(pg['full_copy']['bytes_two_years'])} (extrapolated)",
         f"{mb(lite['full_copy']['bytes_two_years'])} (extrapolated)",
         f"< {BUDGET_STORE_GB:g} GB"),
        ("write per refresh of 100,000 offers, p50 (max)",
         f"{pg['refresh_p50_s']:.2f} s ({pg['refresh_max_s']:.2f} s)",
         f"{lite['refresh_p50_s']:.2f} s ({lite['refresh_max_s']:.2f} s)",
         f"{pg['full_copy']['write_p50_s']:.2f} s", f"{lite['full_copy']['write_p50_s']:.2f} s",
         f"< {BUDGET_REFRESH_S:g} s"),
        (f"`/offers/history` one accelerator, two years, page of {HISTORY_PAGE:,}: p50",
         f"{pg['history_p50_ms']:.1f} ms", f"{lite['history_p50_ms']:.1f} ms",
         "no app: the store row below", "no app: the store row below",
         f"< {BUDGET_QUERY_MS:g} ms"),
        ("`/offers?at=` a random moment, one accelerator: p50",
         f"{pg['at_accelerator_p50_ms']:.1f} ms", f"{lite['at_accelerator_p50_ms']:.1f} ms",
         "no app: the store row below", "no app: the store row below",
         f"< {BUDGET_QUERY_MS:g} ms"),
        (f"`/offers/series` one accelerator, two years ({pg['series_points']:,} points): p50",
         f"{pg['series_p50_ms']:.1f} ms", f"{lite['series_p50_ms']:.1f} ms",
         "no series", "no series", f"< {BUDGET_QUERY_MS:g} ms"),
        (f"the history and `at=` rows, the store's calls alone (full copy: its queries, over "
         f"{FULL_COPY_RUNS} runs only): p50",
         f"{pg['history_store_p50_ms']:.1f} ms, {pg['at_store_p50_ms']:.1f} ms",
         f"{lite['history_store_p50_ms']:.1f} ms, {lite['at_store_p50_ms']:.1f} ms",
         f"{pg['full_copy']['history_p50_ms']:.1f} ms, "
         f"{pg['full_copy']['at_accelerator_p50_ms']:.1f} ms",
         f"{lite['full_copy']['history_p50_ms']:.1f} ms, "
         f"{lite['full_copy']['at_accelerator_p50_ms']:.1f} ms",
         ""),
        ("packing a month of older changes (the refresh job, monthly): p50 (max)",
         f"{pg['pack_p50_s']:.1f} s ({pg['pack_max_s']:.1f} s), {pg['packs']} packs",
         f"{lite['pack_p50_s']:.1f} s ({lite['pack_max_s']:.1f} s), {lite['packs']} packs",
         "", "", ""),
        ("`/offers/history` the same, default page (10,000 points): p50",
         f"{pg['history_full_page_p50_ms']:.1f} ms", f"{lite['history_full_page_p50_ms']:.1f} ms",
         "", "", ""),
        ("`/offers?at=` a random moment, whole catalog (first read of that moment): p50",
         f"{pg['at_full_p50_ms']:,.0f} ms", f"{lite['at_full_p50_ms']:,.0f} ms", "", "", ""),
        ("price changes stored", f"{pg['changes']:,}", f"{lite['changes']:,}",
         f"{OFFERS * REFRESHES:,} offer rows", f"{OFFERS * REFRESHES:,} offer rows", ""),
    ]  # fmt: skip
    lines = [
        "## Price history: two years of 6-hourly refreshes, changes against full copies",
        "",
        f"`bench/history.py`, seeded: {OFFERS:,} offers ({results['spot_share']:.1%} spot, the "
        f"bundled catalog's share), {REFRESHES:,} refreshes 6 hours apart; each moves "
        f"{ON_DEMAND_MOVES:.0%} of on-demand and {SPOT_MOVES:.0%} of spot prices by up to "
        f"10 %. Changes layout: the two years written as the store lays them out, in run "
        f"order, with the real `Store.pack` every {PACK_CHECK_EVERY} runs (it packs each "
        f"month's changes once {KEEP_RAW_RUNS} newer runs exist), then {TIMED_REFRESHES} "
        f"real refreshes through `Store.record_run` on top; the "
        f"requests go through the app (server time, Flask's test client). Full copy "
        f"(revision 0003): {FULL_COPY_RUNS} runs written as 0003's store wrote them; its "
        f"two-year size is {REFRESHES:,}/{FULL_COPY_RUNS} times theirs, and its queries are "
        f"timed on those {FULL_COPY_RUNS} runs only, which flatters it.",
        "",
        "| figure | changes, PostgreSQL | changes, SQLite | full copy, PostgreSQL "
        "| full copy, SQLite | budget (PostgreSQL) |",
        "|---|---|---|---|---|---|",
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
        f"Verdict: {'within budget' if verdict(results) else 'OVER BUDGET'}.",
    ]
    return lines


def main() -> int:
    """Run this benchmark alone and rewrite its section of bench/results.md."""
    from bench.results import replace_section

    results = run()
    replace_section("## Price history", section(results))
    print("\n".join(section(results)))
    return 0 if verdict(results) else 1


if __name__ == "__main__":
    sys.exit(main())
