"""Hostile-client benchmark (issue 28): deep history pages and new past moments on a large
store, against a real `breakeven serve`, while /health is probed.

The store is seeded as bench/history.py seeds it (100,000 offers, 2 % of on-demand and 20 %
of spot prices moved at each 6-hourly refresh) for ``RUNS`` runs: over a million price
spans. Four clients then loop for ``LOAD_SECONDS``: two on deep history pages
(``offset=10,000,000``; a ``since`` just before now; a page of 10,000 from two days back and
its ``next`` links), two on ``at=`` moments in eight different run windows, while a fifth
asks /health every 0.1 s. On 762400a one deep page took 15-20 s and /health answered 3
probes in 90 s.

``python -m bench.hostile`` runs this alone (about 4 minutes) and rewrites its section of
bench/results.md.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests

from bench.history import Simulation, database, run_times, write_two_years
from bench.http import serve
from bench.results import replace_section

RUNS = 100  # refreshes seeded: 100,000 listings and about 1.2 M price spans
LOAD_SECONDS = 60
PROBE_EVERY_S = 0.1
HEALTH_P99_BUDGET_MS = 250.0
FOLLOW = 5  # `next` links a history client follows before it starts a new walk
MOMENTS = 8  # distinct past moments the at= clients cycle through, one per run window
HEADING = "## Hostile clients: deep history and past moments on a large store"


def _attack(base: str, paths: itertools.cycle, stop: float, seen: dict[str, Any]) -> None:
    """Ask the paths in turn; a history page's `next` is followed up to FOLLOW pages deep."""
    session = requests.Session()
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
        took = time.perf_counter() - started
        with seen["lock"]:
            seen["statuses"][status] = seen["statuses"].get(status, 0) + 1
            if took > seen["worst_s"]:
                seen["worst_s"], seen["worst_path"] = took, path
        if "/history" not in path:
            following = None


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


def run_backend(backend: str) -> dict[str, Any]:
    now = datetime.now(UTC)
    sim = Simulation(now.date())
    with database(backend, "hostile") as url:
        print(f"hostile: seeding {RUNS} runs on {backend} ...", file=sys.stderr)
        seeded = write_two_years(url, sim, now, refreshes=RUNS)
        figures = hammer(url, now, RUNS)
    return {
        "backend": backend,
        "listings": len(sim.offers),
        "spans": int(seeded["changes"]),
        **figures,
    }


def hammer(url: str, now: datetime, runs: int, seconds: float = LOAD_SECONDS) -> dict[str, Any]:
    """The four clients and the probe against `breakeven serve` on the store at ``url``,
    whose ``runs`` refreshes bench/history.py wrote up to ``now``."""
    moments = run_times(now, runs)
    picks = [moments[i * (runs - 2) // MOMENTS + 1] + timedelta(minutes=30) for i in range(MOMENTS)]
    quote = requests.utils.quote
    history = itertools.cycle(
        [
            "/offers/history?limit=10&offset=10000000",
            f"/offers/history?limit=10000&since={quote((now - timedelta(seconds=5)).isoformat())}",
            f"/offers/history?limit=10000&since={quote((now - timedelta(days=2)).isoformat())}",
        ]
    )
    past = [f"/offers?limit=1&at={quote(m.isoformat())}" for m in picks]
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as data:
        process, base, _ = serve(Path(data), workers=2, BREAKEVEN_DATABASE_URL=url)
        try:
            seen: dict[str, Any] = {
                "lock": threading.Lock(),
                "statuses": {},
                "worst_s": 0.0,
                "worst_path": "",
            }
            latencies: list[float] = []
            stop = time.monotonic() + seconds
            clients = [history, history, itertools.cycle(past), itertools.cycle(past[::-1])]
            threads = [
                threading.Thread(target=_attack, args=(base, c, stop, seen)) for c in clients
            ]
            threads.append(threading.Thread(target=_probe, args=(base, stop, latencies)))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            peak = _peak_rss_mb(process.pid)
        finally:
            process.terminate()
            process.wait(timeout=60)
    ordered = sorted(latencies)
    return {
        "probes": len(ordered),
        "health_p50_ms": ordered[len(ordered) // 2] * 1000,
        "health_p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
        "health_max_ms": ordered[-1] * 1000,
        "statuses": dict(sorted(seen["statuses"].items())),
        "worst_s": seen["worst_s"],
        "worst_path": seen["worst_path"],
        "peak_worker_rss_mb": peak,
    }


def section(results: list[dict[str, Any]]) -> list[str]:
    lines = [
        HEADING,
        "",
        f"`bench/hostile.py`, run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: a store seeded with "
        f"{RUNS} 6-hourly refreshes of 100,000 offers, `breakeven serve` with 2 workers; 4 "
        f"clients for {LOAD_SECONDS} s (2 on deep `/offers/history` pages and their `next` "
        f"links, 2 on `/offers?at=` in {MOMENTS} run windows) and /health every "
        f"{PROBE_EVERY_S} s.",
        "",
        "| backend | listings / price spans | /health p50 / p99 / max | budget | answers "
        "| worst request | peak worker RSS |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        answers = ", ".join(f"{k}: {v:,}" for k, v in r["statuses"].items())
        lines.append(
            f"| {r['backend']} | {r['listings']:,} / {r['spans']:,} "
            f"| {r['health_p50_ms']:.1f} / {r['health_p99_ms']:.1f} / {r['health_max_ms']:.1f} ms "
            f"| p99 < {HEALTH_P99_BUDGET_MS:g} ms: "
            f"{'met' if r['health_p99_ms'] < HEALTH_P99_BUDGET_MS else 'MISSED'} "
            f"| {answers} | {r['worst_s'] * 1000:.0f} ms (`{r['worst_path'][:60]}`) "
            f"| {r['peak_worker_rss_mb']:.0f} MB |"
        )
    lines += [
        "",
        "A 503 is the per-worker budget of two heavy reads refusing a third at once "
        "(service/http/budget.py), with Retry-After.",
        "",
    ]
    return lines


def run() -> list[dict[str, Any]]:
    return [run_backend(backend) for backend in ("sqlite", "postgresql")]


def verdict(results: list[dict[str, Any]]) -> bool:
    return all(r["health_p99_ms"] < HEALTH_P99_BUDGET_MS for r in results)


def main() -> int:
    """Run this benchmark alone and rewrite its section of bench/results.md."""
    results = run()
    lines = section(results)
    print("\n".join(lines))
    replace_section(HEADING, lines)
    return 0 if verdict(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
