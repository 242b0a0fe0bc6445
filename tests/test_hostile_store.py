"""Hostile run 3's store findings: history and past moments that cost the whole store, one
instant read three ways on SQLite, and runs that rewrite an unchanged catalog.

Each test fails on 762400a: there history built every span up to offset + limit, a past
moment read every listing ever stored, SQLite compared an instant's wall-clock digits, and
every descriptive field was part of a listing's key.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import timedelta, timezone
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy import func, select

from pricing import schema
from pricing.offer import PricingModel
from pricing.store import Store, listings, price_changes, utcnow
from pricing.store import history as history_module
from pricing.store import read as read_module
from service.cli import cli
from tests.fakes import vast
from tests.helpers import count_rows, downgrade, offer

# -- #6: an unchanged price writes nothing, whatever its description does --------------------


def test_five_refreshes_of_an_unchanged_marketplace_add_no_listing_and_no_change(
    httpserver, settings, database_url
) -> None:  # type: ignore[no-untyped-def]
    """Vast's machine ids, offer counts and reliability move between calls; its prices do
    not. On 762400a each refresh wrote every offer again (560 listings a run)."""
    hosts = vast.VastFake(offers=vast.sample()["offers"])
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_DATABASE_URL": database_url,
        "BREAKEVEN_REFRESH_PROVIDERS": "vast",
        "BREAKEVEN_VAST_URL": hosts.install(httpserver),
        "BREAKEVEN_VAST_API_KEY": vast.API_KEY,
        "BREAKEVEN_HTTP_RETRIES": "1",
    }
    store = Store(database_url)
    counts = []
    for call in range(5):
        for i, row in enumerate(hosts.offers):
            row["machine_id"] = 10_000 * (call + 1) + i
            row["reliability2"] = row["reliability"] = 0.99 - call / 100
        result = CliRunner().invoke(cli, ["refresh", "--provider", "vast"], env=env)
        assert result.exit_code == 0 and "vast: ok" in result.output, result.output
        counts.append(_rows_of(store, "vast"))
    assert counts == [counts[0]] * 5 and counts[0][0] > 0
    served = [s.offer for s in store.current_offers(adapter="vast")]
    assert {o.reliability for o in served} == {0.95}  # the description is the latest one
    assert all("machine 5" in o.notes for o in served if "machine" in o.notes)
    store.dispose()


def test_one_file_imported_under_five_names_adds_no_listing_and_no_change(
    tmp_path: Path, settings, database_url
) -> None:  # type: ignore[no-untyped-def]
    """An import's default source names its file: 25 names made 1,252,484 listings."""
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir), "BREAKEVEN_DATABASE_URL": database_url}
    body = "product,region,accelerator,count,pricing,usd_per_hour\n" + "".join(
        f"box-{i},us-west,rtx3090,1,on_demand,{0.3 + i / 100:.2f}\n" for i in range(40)
    )
    store = Store(database_url)
    counts = []
    for name in ("a", "b", "c", "d", "e"):
        path = tmp_path / f"quotes-{name}.csv"
        path.write_text(body)
        result = CliRunner().invoke(cli, ["offers", "import", str(path), "--replace"], env=env)
        assert result.exit_code == 0, result.output
        counts.append(_rows_of(store, "custom"))
    assert counts == [(40, 40)] * 5
    sources = {s.offer.source for s in store.current_offers(adapter="custom")}
    assert sources == {"imported from quotes-e.csv"}
    store.dispose()


def _rows_of(store: Store, adapter: str) -> tuple[int, int]:
    """The adapter's listings and price changes."""
    mine = select(listings.c.id).where(listings.c.adapter == adapter)
    with store.engine.connect() as conn:
        made = conn.execute(select(func.count()).select_from(mine.subquery())).scalar_one()
        changed = price_changes.c.listing_id.in_(mine)
        moved = conn.execute(select(func.count()).where(changed)).scalar_one()
    return made, moved


# -- #4: one instant, one catalog --------------------------------------------------------------


def test_every_spelling_of_an_instant_reads_the_same_runs(store: Store) -> None:
    first = store.record_run("aws", [offer(provider="aws", usd_per_hour=1.0)], utcnow())
    second = store.record_run("aws", [offer(provider="aws", usd_per_hour=2.0)], utcnow())
    between = first.finished_at + (second.finished_at - first.finished_at) / 2
    before = first.finished_at - timedelta(microseconds=1)
    for moment, expected in ((between, first.id), (second.finished_at, second.id)):
        for hours in (1, -1, 5, -9):
            spelled = moment.astimezone(timezone(timedelta(hours=hours)))
            assert store.current_runs(at=spelled)["aws"].id == expected, spelled.isoformat()
    assert store.current_runs(at=before.astimezone(timezone(timedelta(hours=1)))) == {}
    later = before.astimezone(timezone(timedelta(hours=-1)))
    assert store.current_runs(at=later) == {}


def test_at_spelled_with_an_offset_answers_as_in_utc(client, app) -> None:  # type: ignore[no-untyped-def]
    """On SQLite, 19:30:04+01:00 gave 2,492 offers where 18:30:04Z gave 2,484."""
    store = app.extensions["breakeven"].store
    mine = store.record_run("custom", [offer(product="late", usd_per_hour=9.0)], utcnow())
    just_before = mine.finished_at - timedelta(microseconds=1)
    totals = set()
    for hours in (0, 1, -1):
        spelled = just_before.astimezone(timezone(timedelta(hours=hours))).isoformat()
        answer = client.get("/offers", query_string={"at": spelled, "provider": "custom"})
        assert answer.status_code == 200, (spelled, answer.get_json())
        totals.add(answer.get_json()["total"])
    assert totals == {0}


# -- #1: a history page costs what it holds ----------------------------------------------------


def _history_store(store: Store, listed: int = 30, runs: int = 4) -> None:
    """``listed`` offers over ``runs`` runs; every third moves each run, every fifth goes."""
    for run in range(runs):
        batch = [
            offer(provider="aws", product=f"p{i}", usd_per_hour=1 + (run if i % 3 == 0 else 0))
            for i in range(listed)
            if not (i % 5 == 0 and run == runs - 1)
        ]
        store.record_run("aws", batch, utcnow())


def _walk(store: Store, since, limit: int) -> list[tuple[str, float, int]]:  # type: ignore[no-untyped-def]
    seen, after = [], None
    for _ in range(10_000):
        page = store.history(since, limit=limit, after=after)
        seen += [(s.offer.product, s.offer.usd_per_hour, s.run_id) for s in page.spans]
        if page.resume is None:
            return seen
        after = page.resume
    raise AssertionError("the walk did not end")


def test_a_keyset_walk_under_a_tiny_budget_visits_every_span_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _history_store(store)
    since = utcnow() - timedelta(days=1)
    whole = _walk(store, since, limit=10_000)
    # 20 listings hold one price; 8 of every third hold four, and 2 that went at last three
    assert len(whole) == len(set(whole)) == 20 + 8 * 4 + 2 * 3
    monkeypatch.setattr(history_module, "HISTORY_SCAN_LISTINGS", 4)
    monkeypatch.setattr(history_module, "HISTORY_FIRST_WINDOW", 1)
    for limit in (1, 2, 7):
        assert _walk(store, since, limit=limit) == whole


def test_a_deep_page_reads_no_more_than_its_budget(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """offset=10,000,000 walked the whole store (19.6 s); now it reads one budget's worth of
    listings and says where to go on, or, past the end, that nothing is left."""
    _history_store(store, listed=60, runs=2)
    since = utcnow() - timedelta(days=1)
    read: list[int] = []
    spans = history_module._spans
    monkeypatch.setattr(
        history_module,
        "_spans",
        lambda conn, chosen, *rest: read.append(len(chosen)) or spans(conn, chosen, *rest),
    )
    monkeypatch.setattr(history_module, "HISTORY_SCAN_LISTINGS", 16)
    deep = store.history(since, limit=10, offset=10_000_000)
    assert deep.spans == [] and deep.resume is not None and sum(read) <= 16
    assert 10_000_000 - 16 * 2 <= deep.skip < 10_000_000  # what it looked at was skipped
    monkeypatch.setattr(history_module, "HISTORY_SCAN_LISTINGS", 100_000)
    past_end = store.history(since, limit=10, offset=10_000_000)
    assert past_end.spans == [] and past_end.resume is None


def test_history_reads_only_listings_with_a_span_after_since(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listings gone before ``since`` are never read: they hold no span after it."""
    store.record_run("aws", [offer(provider="aws", product=f"old{i}") for i in range(50)], utcnow())
    store.record_run("aws", [offer(provider="aws", product="kept")], utcnow())
    since = utcnow()
    store.record_run("aws", [offer(provider="aws", product="kept", usd_per_hour=3.0)], utcnow())
    chosen: list[str] = []
    spans = history_module._spans
    monkeypatch.setattr(
        history_module,
        "_spans",
        lambda conn, rows, *rest: (
            chosen.extend(r.product for r in rows) or spans(conn, rows, *rest)
        ),
    )
    page = store.history(since)
    assert [(s.offer.product, s.offer.usd_per_hour) for s in page.spans] == [
        ("kept", 1.0),
        ("kept", 3.0),
    ]
    assert chosen == ["kept"]


# -- #2: a past moment costs what was live then ------------------------------------------------


def test_a_past_moment_resolves_only_the_listings_that_changed_after_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = [offer(provider="aws", product=f"p{i}", usd_per_hour=1.0) for i in range(100)]
    then = store.record_run("aws", batch, utcnow())
    for run in range(3):  # two listings move, one goes, one arrives
        moved = [o if o.product not in ("p1", "p2") else _priced(o, 2.0 + run) for o in batch]
        store.record_run(
            "aws",
            [o for o in moved if o.product != "p3"] + [offer(provider="aws", product=f"new{run}")],
            utcnow(),
        )
    direct = sorted(
        (s.offer.product, s.offer.usd_per_hour) for s in store.current_offers(at=then.finished_at)
    )
    monkeypatch.setattr(read_module, "PAST_LOOKUPS", 10)  # a source too large to look up whole
    resolved: list[int] = []
    prices_then = read_module._prices_then
    monkeypatch.setattr(
        read_module,
        "_prices_then",
        lambda conn, run, ids: resolved.extend(ids) or prices_then(conn, run, ids),
    )
    past = store.current_offers(at=then.finished_at)
    assert (
        sorted((s.offer.product, s.offer.usd_per_hour) for s in past)
        == direct
        == sorted((o.product, o.usd_per_hour) for o in batch)
    )
    assert len(resolved) == 2 + 1 + 3  # p1, p2, p3 and the three that came later


def _priced(o, usd: float):  # type: ignore[no-untyped-def]
    return offer(provider=o.provider, product=o.product, usd_per_hour=usd)


def test_a_spot_listing_alike_in_all_but_notes_is_one_listing(store: Store) -> None:
    """Offers alike in identity differ in description only: they still rank by price."""
    two = [
        offer(provider="aws", product="p", pricing=PricingModel.SPOT, usd_per_hour=u, notes=n)
        for u, n in ((1.0, "machine 1"), (2.0, "machine 2"))
    ]
    store.record_run("aws", two, utcnow())
    swapped = [
        offer(provider="aws", product="p", pricing=PricingModel.SPOT, usd_per_hour=u, notes=n)
        for u, n in ((1.0, "machine 9"), (2.0, "machine 8"))
    ]
    store.record_run("aws", swapped, utcnow())
    assert count_rows(store, listings) == 2 and count_rows(store, price_changes) == 2
    served = sorted((s.offer.usd_per_hour, s.offer.notes) for s in store.current_offers())
    assert served == [(1.0, "machine 9"), (2.0, "machine 8")]


# -- a worker's heavy reads are bounded ----------------------------------------------------------


def test_past_a_workers_heavy_read_budget_the_next_is_a_503_with_retry_after(client) -> None:  # type: ignore[no-untyped-def]
    from service.http.budget import HEAVY_READS_PER_WORKER, heavy_read

    answers = []

    def hold(depth: int) -> None:
        if depth:
            heavy_read(lambda: hold(depth - 1))
            return
        busy = client.get("/offers/history?limit=1")
        answers.append((busy.status_code, busy.headers.get("Retry-After"), busy.get_json()))
        answers.append(client.get("/offers?limit=1").status_code)  # no at=: a quote's cost

    hold(HEAVY_READS_PER_WORKER)
    (status, retry, problem), plain = answers
    assert status == 503 and retry == "1" and problem["type"].endswith(":busy")
    assert plain == 200
    assert client.get("/offers/history?limit=1").status_code == 200


# -- migration 0005: the listed offers re-keyed -------------------------------------------------


def test_migration_0005_rekeys_listed_offers_so_the_next_run_writes_nothing(
    database_url: str,
) -> None:
    """A store from before 0005 keyed each listing by every field but the price: re-keyed by
    identity, the same offers with new notes and source find their listings again."""
    engine = sa.create_engine(database_url)
    old = [
        offer(provider="aws", product=f"p{i}", usd_per_hour=1.0 + i, notes=f"machine {i}")
        for i in range(5)
    ]
    schema.upgrade(engine, "head")
    writer = Store(database_url)
    run = writer.record_run("aws", old, utcnow())  # today's writer, at head
    writer.dispose()
    downgrade(engine, "0004")  # then back to the schema 0005 re-keys
    with engine.begin() as conn:  # the keys 0004's writer made: anything but the new ones
        for i, listing_id in enumerate(conn.execute(sa.select(listings.c.id)).scalars()):
            conn.execute(
                sa.update(listings)
                .where(listings.c.id == listing_id)
                .values(digest=hashlib.blake2b(b"old %d" % i, digest_size=16).digest())
            )
    schema.upgrade(engine, "head")
    store = Store(database_url)
    renamed = [replace(o, notes="machine 9", source="imported from b.csv") for o in old]
    store.record_run("aws", renamed, utcnow())
    assert _rows_of(store, "aws") == (5, 5)  # no new listing, no change: one per listing
    assert {s.run_id for s in store.current_offers("aws")} != {run.id}
    assert {s.offer.notes for s in store.current_offers("aws")} == {"machine 9"}
    store.dispose()
    engine.dispose()


# -- migration 0007: committed terms, listing keys unchanged -----------------------------------


def test_migration_0007_keeps_the_keys_of_listed_offers_so_the_next_run_writes_nothing(
    database_url: str,
) -> None:
    """A store from before committed terms (revision 0006) keeps its listings' keys: the
    same offers read again after the upgrade find their listings and write no listing and
    no change, and a committed offer beside them is a listing of its own."""
    engine = sa.create_engine(database_url)
    schema.upgrade(engine, "head")
    old = [offer(provider="aws", product=f"p{i}", usd_per_hour=1.0 + i) for i in range(4)]
    writer = Store(database_url)
    writer.record_run("aws", old, utcnow())
    writer.dispose()
    downgrade(engine, "0006")  # the store as 0006 left it: no purchase_option column
    schema.upgrade(engine, "head")
    store = Store(database_url)
    store.record_run("aws", old, utcnow())
    assert _rows_of(store, "aws") == (4, 4)  # one listing and one first price each
    term = offer(
        provider="aws",
        product="p0",
        pricing=PricingModel.RESERVED_1Y,
        usd_per_hour=0.6,
        purchase_option="no_upfront",
        upfront_share=0.0,
    )
    store.record_run("aws", [*old, term], utcnow())
    assert _rows_of(store, "aws") == (5, 5)
    (stored,) = [s for s in store.current_offers("aws") if s.offer.pricing != "on_demand"]
    assert (stored.offer.purchase_option, stored.offer.upfront_share) == ("no_upfront", 0.0)
    store.dispose()
    engine.dispose()


def test_one_client_holds_one_heavy_read_slot_and_leaves_the_other(app) -> None:  # type: ignore[no-untyped-def]
    """Issue 58, N1: one client looping on new `at=` moments took both of a worker's slots,
    and 99.5 % of everyone else's past reads got 503s. A client holds one at a time: its
    second is refused, another client's is served beside it."""
    from service.http.budget import heavy_read
    from service.http.problems import Problem

    said = {}

    def as_client(address: str, read):  # type: ignore[no-untyped-def]
        with app.test_request_context(environ_base={"REMOTE_ADDR": address}):
            return heavy_read(read)

    def first_read() -> str:
        try:
            as_client("10.0.0.1", lambda: "never")
        except Problem as refused:
            said["same client"] = (refused.status_code, refused.headers["Retry-After"])
        said["another client"] = as_client("10.0.0.2", lambda: "served")
        return "first"

    assert as_client("10.0.0.1", first_read) == "first"
    assert said == {"same client": (503, "1"), "another client": "served"}
    assert as_client("10.0.0.1", lambda: "again") == "again"  # its slot came back


def test_a_page_of_thousands_of_offers_is_a_heavy_read(client) -> None:  # type: ignore[no-untyped-def]
    """Issue 58: four clients on 10,000-row /offers pages took /health to p50 407 ms: such a
    page is encoded off the event loop, in a heavy-read slot (a 503 when none is free); a
    page of a hundred stays a quote's cost."""
    from service.http.budget import HEAVY_READS_PER_WORKER, heavy_read
    from service.http.routes.offers import LARGE_PAGE

    answers = []

    def hold(depth: int) -> None:
        if depth:
            heavy_read(lambda: hold(depth - 1))
            return
        answers.append(client.get(f"/offers?limit={LARGE_PAGE + 1}").status_code)
        answers.append(client.get(f"/offers?limit={LARGE_PAGE}").status_code)

    hold(HEAVY_READS_PER_WORKER)
    assert answers == [503, 200]
    assert client.get(f"/offers?limit={LARGE_PAGE + 1}").status_code == 200
