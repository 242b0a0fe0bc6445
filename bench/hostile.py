"""Hostile-client benchmark (issue 28): deep history pages and new past moments on a large
store, against a real `breakeven serve`, while /health is probed.

The store is seeded as bench/history.py seeds it (100,000 offers, 2 % of on-demand and 20 %
of spot prices moved at each 6-hourly refresh) for ``RUNS`` runs: over a million price
spans. Four clients then loop for ``LOAD_SECONDS``: two on deep history pages
(``offset=10,000,000``; a ``since`` just before now; a page of 10,000 from two days back and
its ``next`` links), two on ``at=`` moments in eight different run windows, while a fifth
asks /health every 0.1 s. On 762400a one deep page took 15-20 s and /health answered 3
probes in 90 s.

Issue 58 adds four rounds, each client from an address of its own on 127.0.0.0/8 (the
per-client heavy-read slots and connection caps see them as different clients): four clients
each asking a new `at=` moment every time while a fifth reads one past moment (it must be
answered within ``WATCHED_BUDGET_S``), four clients paging through the catalog 10,000 offers
at a time, and, once, 4,000 idle sockets and 4,000 half-sent chunked bodies from 20
addresses (bench/flood.py). /health is probed through each.

``python -m bench.hostile`` runs this alone (about 10 minutes) and rewrites its section of
bench/results.md.
"""

from __future__ import annotations

import itertools
import random
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from bench.flood import Flood, addresses, health_under
from bench.history import Simulation, database, run_times, write_two_years
from bench.http import serve
from bench.results import replace_section

RUNS = 100  # refreshes seeded: 100,000 listings and about 1.2 M price spans
LOAD_SECONDS = 60
ROUND_SECONDS = 30  # each of issue 58's rounds
PROBE_EVERY_S = 0.1
HEALTH_P99_BUDGET_MS = 250.0
WATCHED_BUDGET_S = 2.0  # another client's past read, while four ask new moments
FOLLOW = 5  # `next` links a history client follows before it starts a new walk
MOMENTS = 8  # distinct past moments the at= clients cycle through, one per run window
PAGE = 10_000  # offers a page in the large-pages round
FLOOD_SOURCES, FLOOD_SOCKETS = 20, 4_000
HEADING = "## Hostile clients: deep history and past moments on a large store"
BEFORE = (
    "Before (the hostile run of 2026-12-06 on fbc65c3, `../shared/reviews/hostil"
    "e-run-2026-12-06.md`): 2,100 idle or half-sent sockets from 20 addresses took /health to p"
    "50 256 ms-3.0 s (11-13 probes answered in 28 s); one client on new `at=` moments left ever"
    "yone else's past reads a 503 99.5 % of the time; four clients on 10,000-row pages took /he"
    "alth to p50 407 ms, p99 987 ms."
)


class _FromAddress(HTTPAdapter):
    """Connections from one loopback address: a client of its own to the server."""

    def __init__(self, address: str) -> None:
        self._address = address
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        kwargs["source_address"] = (self._address, 0)
        super().init_poolmanager(*args, **kwargs)


def _session(address: str) -> requests.Session:
    session = requests.Session()
    session.mount("http://", _FromAddress(address))
    return session


@dataclass
class _Seen:
    """What the clients of one round got: statuses, the slowest request, and the watched
    client's answers (its slowest and its failures)."""

    lock: threading.Lock
    statuses: dict[str, int]
    worst_s: float = 0.0
    worst_path: str = ""
    watched_first_s: float = 0.0
    watched_worst_s: float = 0.0  # of the reads after the first
    watched_failed: int = 0
    watched_statuses: dict[str, int] = field(default_factory=dict)

    def count(self, status: str, took: float, path: str) -> None:
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if took > self.worst_s:
                self.worst_s, self.worst_path = took, path


def _attack(base: str, address: str, paths: Iterator[str], stop: float, seen: _Seen) -> None:
    """Ask the paths in turn; a history page's `next` is followed up to FOLLOW pages deep."""
    session = _session(address)
    following: str | None = None
    depth = 0
    while time.monotonic() < stop:
        path = following if following and depth < FOLLOW else next(paths)
        depth = depth + 1 if path == following else 0
        started = time.perf_counter()
        try:
            answer = session.get(base + path, timeout=30)
            status = str(answer.status_code)
            following = answer.json().get("next") if answer.status_code == 200 else None
        except (requests.RequestException, ValueError) as error:
            status, following = type(error).__name__, None
        seen.count(status, time.perf_counter() - started, path)
        if "/history" not in path:
            following = None


def _watch(base: str, path: str, stop: float, seen: _Seen) -> None:
    """Another client's read of one past moment, every half second, in a window the workers
    remember (_remember): how long the attack makes it wait, and whether it is answered."""
    session = _session("127.0.0.99")
    first = True
    while time.monotonic() < stop:
        started = time.perf_counter()
        try:
            status = str(session.get(base + path, timeout=30).status_code)
        except requests.RequestException as error:
            status = type(error).__name__
        ok = status == "200"
        took = time.perf_counter() - started
        with seen.lock:
            seen.watched_statuses[status] = seen.watched_statuses.get(status, 0) + 1
            if first:
                seen.watched_first_s = took
            else:
                seen.watched_worst_s = max(seen.watched_worst_s, took)
            seen.watched_failed += not ok
        first = False
        time.sleep(0.5)


def _remember(base: str, path: str) -> None:
    """Read ``path`` on fresh connections until both workers hold its window's table (each
    worker remembers its own): the watched client's window is a known one, as N1 is about."""
    answered = 0
    for _ in range(40):
        with _session("127.0.0.98") as session:
            started = time.perf_counter()
            ok = session.get(base + path, timeout=60).status_code == 200
            answered = answered + 1 if ok and time.perf_counter() - started < 0.2 else 0
        if answered >= 6:  # six fast answers in a row, on new connections: both remember it
            return


def _probe(base: str, stop: float, latencies: list[float]) -> None:
    session = requests.Session()
    while time.monotonic() < stop:
        started = time.perf_counter()
        try:
            session.get(base + "/health", timeout=10).raise_for_status()
            latencies.append(time.perf_counter() - started)
        except requests.RequestException:
            latencies.append(float("inf"))
        time.sleep(PROBE_EVERY_S)


def _peak_rss_mb(server_pid: int) -> float:
    """The largest worker's peak resident memory (VmHWM), from /proc."""
    peaks = []
    for status in Path("/proc").glob("*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        if fields.get("PPid", "").strip() == str(server_pid):
            peaks.append(int(fields.get("VmHWM", "0 kB").split()[0]) / 1024)
    return max(peaks, default=0.0)


def _health(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "probes": len(ordered),
        "health_p50_ms": ordered[len(ordered) // 2] * 1000,
        "health_p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
        "health_max_ms": ordered[-1] * 1000,
    }


def _round(
    base: str,
    clients: list[Iterator[str]],
    seconds: float,
    watched: str | None = None,
) -> dict[str, Any]:
    """The clients, each from its own address, the watched read and the probe, together."""
    seen = _Seen(threading.Lock(), {})
    latencies: list[float] = []
    if watched is not None:
        _remember(base, watched)
    stop = time.monotonic() + seconds
    threads = [
        threading.Thread(target=_attack, args=(base, f"127.0.0.{10 + i}", paths, stop, seen))
        for i, paths in enumerate(clients)
    ]
    threads.append(threading.Thread(target=_probe, args=(base, stop, latencies)))
    if watched is not None:
        threads.append(threading.Thread(target=_watch, args=(base, watched, stop, seen)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    figures: dict[str, Any] = {
        **_health(latencies),
        "statuses": dict(sorted(seen.statuses.items())),
        "worst_s": seen.worst_s,
        "worst_path": seen.worst_path,
    }
    if watched is not None:
        figures["watched_first_s"] = seen.watched_first_s
        figures["watched_worst_s"] = seen.watched_worst_s
        figures["watched_failed"] = seen.watched_failed
        figures["watched_statuses"] = dict(sorted(seen.watched_statuses.items()))
    return figures


def _new_moments(moments: list[datetime], seed: int) -> Iterator[str]:
    """A new `at=` moment each request: a run window at random, a second in it at random."""
    rng = random.Random(seed)
    quote = requests.utils.quote
    while True:
        window = rng.randrange(len(moments) - 1)
        moment = moments[window] + timedelta(seconds=rng.uniform(60, 6 * 3600 - 60))
        yield f"/offers?limit=1&at={quote(moment.isoformat())}"


def _pages(start: int, listings: int) -> Iterator[str]:
    for offset in itertools.cycle(range(start * PAGE, listings, PAGE)):
        yield f"/offers?limit={PAGE}&offset={offset}"


def run_backend(backend: str, floods: bool) -> dict[str, Any]:
    now = datetime.now(UTC)
    sim = Simulation(now.date())
    with database(backend, "hostile") as url:
        print(f"hostile: seeding {RUNS} runs on {backend} ...", file=sys.stderr)
        seeded = write_two_years(url, sim, now, refreshes=RUNS)
        rounds = hammer(url, now, RUNS, len(sim.offers), floods)
    return {
        "backend": backend,
        "listings": len(sim.offers),
        "spans": int(seeded["changes"]),
        "rounds": rounds,
    }


def hammer(
    url: str, now: datetime, runs: int, listings: int, floods: bool, seconds: float = LOAD_SECONDS
) -> dict[str, dict[str, Any]]:
    """Every round against one `breakeven serve` on the store at ``url``, whose ``runs``
    refreshes bench/history.py wrote up to ``now``."""
    moments = run_times(now, runs)
    picks = [moments[i * (runs - 2) // MOMENTS + 1] + timedelta(minutes=30) for i in range(MOMENTS)]
    quote = requests.utils.quote
    history = [
        "/offers/history?limit=10&offset=10000000",
        f"/offers/history?limit=10000&since={quote((now - timedelta(seconds=5)).isoformat())}",
        f"/offers/history?limit=10000&since={quote((now - timedelta(days=2)).isoformat())}",
    ]
    past = [f"/offers?limit=1&at={quote(m.isoformat())}" for m in picks]
    rounds: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as data:
        process, base, _ = serve(Path(data), workers=2, BREAKEVEN_DATABASE_URL=url)
        try:
            rounds["history and 8 past moments"] = _round(
                base,
                [
                    itertools.cycle(history),
                    itertools.cycle(history[::-1]),
                    itertools.cycle(past),
                    itertools.cycle(past[::-1]),
                ],
                seconds,
            )
            rounds["new at= moments"] = _round(
                base, [_new_moments(moments, seed) for seed in range(4)], ROUND_SECONDS, past[0]
            )
            rounds["10,000-offer pages"] = _round(
                base, [_pages(i, listings) for i in range(4)], ROUND_SECONDS
            )
            if floods:
                sources = addresses(FLOOD_SOURCES, first=30)
                port = int(base.rsplit(":", 1)[1])
                for name, idle, half in (
                    ("4,000 idle sockets", FLOOD_SOCKETS, 0),
                    ("4,000 half-sent bodies", 0, FLOOD_SOCKETS),
                ):
                    flood = Flood(port, sources, idle=idle, half_sent=half)
                    flood.fill()
                    try:
                        probed = health_under(base, flood, ROUND_SECONDS, PROBE_EVERY_S)
                    finally:
                        flood.close()
                    failures = len(probed.failures)
                    rounds[name] = {
                        **_health(probed.latencies),
                        "statuses": {"200": len(probed.latencies) - failures, "failed": failures},
                        "worst_s": 0.0,
                        "worst_path": f"{flood.opened:,} sockets opened",
                    }
            peak = _peak_rss_mb(process.pid)
        finally:
            process.terminate()
            process.wait(timeout=60)
    for figures in rounds.values():
        figures["peak_worker_rss_mb"] = peak
    return rounds


def section(results: list[dict[str, Any]]) -> list[str]:
    lines = [
        HEADING,
        "",
        f"`bench/hostile.py`, run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: a store seeded with "
        f"{RUNS} 6-hourly refreshes of 100,000 offers, `breakeven serve` with 2 workers, "
        f"/health every {PROBE_EVERY_S} s from 127.0.0.1 through each round; each client from "
        "an address of its own. Rounds: 4 clients for "
        f"{LOAD_SECONDS} s (2 on deep `/offers/history` pages and their `next` links, 2 on "
        f"`/offers?at=` in {MOMENTS} run windows); then for {ROUND_SECONDS} s each, 4 clients "
        "each asking a new `at=` moment every time while another client reads one past moment "
        "every 0.5 s, in a run window the workers remember (each read must be answered, "
        f"within {WATCHED_BUDGET_S:g} s), 4 clients reading "
        f"pages of {PAGE:,} offers, and on SQLite {FLOOD_SOCKETS:,} idle sockets, then "
        f"{FLOOD_SOCKETS:,} half-sent chunked bodies, from {FLOOD_SOURCES} addresses "
        "(bench/flood.py; any the server lets go of is opened again).",
        "",
        "| backend | round | /health p50 / p99 / max | budget | answers | worst request "
        "| another client's past read | peak worker RSS |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for name, f in r["rounds"].items():
            answers = ", ".join(f"{k}: {v:,}" for k, v in f["statuses"].items())
            met = f["health_p99_ms"] < HEALTH_P99_BUDGET_MS
            worst = (
                f"{f['worst_s'] * 1000:,.0f} ms (`{f['worst_path'][:60]}`)"
                if f["worst_s"]
                else f["worst_path"]
            )
            watched = ""
            if "watched_worst_s" in f:
                ok = _watched_ok(f)
                watched = (
                    f"first {f['watched_first_s'] * 1000:,.0f} ms, then "
                    f"slowest {f['watched_worst_s'] * 1000:,.0f} ms ("
                    + ", ".join(f"{k}: {v}" for k, v in f["watched_statuses"].items())
                    + f"): {'met' if ok else 'MISSED'}"
                )
            lines.append(
                f"| {r['backend']} | {name} "
                f"| {f['health_p50_ms']:.1f} / {f['health_p99_ms']:.1f} / "
                f"{f['health_max_ms']:.1f} ms "
                f"| p99 < {HEALTH_P99_BUDGET_MS:g} ms: {'met' if met else 'MISSED'} "
                f"| {answers} | {worst} | {watched} | {f['peak_worker_rss_mb']:.0f} MB |"
            )
    lines += [
        "",
        "A 503 is a heavy-read budget refusing a read with Retry-After (service/http/budget.py:"
        " two a worker, one a client at once).",
        "",
        BEFORE,
        "",
    ]
    return lines


def run() -> list[dict[str, Any]]:
    return [
        run_backend(backend, floods=backend == "sqlite") for backend in ("sqlite", "postgresql")
    ]


def _watched_ok(figures: dict[str, Any]) -> bool:
    slowest = max(figures["watched_first_s"], figures["watched_worst_s"])
    return slowest < WATCHED_BUDGET_S and not figures["watched_failed"]


def verdict(results: list[dict[str, Any]]) -> bool:
    for r in results:
        for f in r["rounds"].values():
            if f["health_p99_ms"] >= HEALTH_P99_BUDGET_MS:
                return False
            if "watched_worst_s" in f and not _watched_ok(f):
                return False
    return True


def main() -> int:
    """Run this benchmark alone and rewrite its section of bench/results.md."""
    results = run()
    lines = section(results)
    print("\n".join(lines))
    replace_section(HEADING, lines)
    return 0 if verdict(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
