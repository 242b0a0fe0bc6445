"""`make bench`: run every benchmark and write bench/results.md with the machine and date."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from bench import aws_bulk, engine, history, hostile, http
from bench.results import RESULTS, machine

INGEST_MIN_MB_S = 100.0  # design section 7: stream a 1 GB regional file at >= 100 MB/s
INGEST_MAX_RSS_MB = 250.0  # ... with peak memory <= 250 MB


def main() -> int:
    print("engine: 100,000 offers ...", file=sys.stderr)
    e = engine.run()
    print("ingest: AWS offer file >= 1 GB ...", file=sys.stderr)
    a = aws_bulk.run()
    print("http: gunicorn, 50,000 offers, wrk ...", file=sys.stderr)
    h = http.run()
    http_ok = http.verdict(h)
    engine_ok = engine.verdict(e)
    ingest_ok = a["stream_mb_s"] >= INGEST_MIN_MB_S and a["stream_peak_rss_mb"] <= INGEST_MAX_RSS_MB
    lines = [
        "# Benchmark results",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `make bench` on: {machine()}.",
        "",
        *engine.section(e),
        "",
        "## Ingest: streaming an AWS regional offer file",
        "",
        f"A generated {a['file_mb']:,.0f} MB `index.csv` (`bench/aws_bulk.py`): the real "
        "91-column header, CPU and GPU types, six operating systems, three tenancies, "
        "reserved terms with their upfront-fee rows. Each reader runs in its own process; "
        "peak RSS is that process's maximum resident set.",
        "",
        "| reader | MB/s | peak RSS | budget |",
        "|---|---|---|---|",
        f"| `pricing.adapters.aws.bulk.parse_offer_file` ({a['stream_offers']:.0f} offers) "
        f"| {a['stream_mb_s']:,.0f} | {a['stream_peak_rss_mb']:,.0f} MB "
        f"| >= {INGEST_MIN_MB_S:.0f} MB/s, <= {INGEST_MAX_RSS_MB:.0f} MB |",
        f"| `pandas.read_csv` of the same file (baseline) | {a['pandas_mb_s']:,.0f} "
        f"| {a['pandas_peak_rss_mb']:,.0f} MB | |",
        "",
        f"The store's write of a 50,000-offer run (one transaction, SQLite): "
        f"{h['store_write_s']:.2f} s.",
        "",
        f"Verdict: {_verdict(ingest_ok)}.",
        "",
        *http.section(h),
        "",
    ]
    print("hostile: 4 clients on a store of a million price spans ...", file=sys.stderr)
    b = hostile.run()
    lines += [*hostile.section(b), ""]
    print("history: two years of refreshes, both layouts, both databases ...", file=sys.stderr)
    p = history.run()
    lines += [*history.section(p), ""]
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))
    budgets = (engine_ok, ingest_ok, http_ok, hostile.verdict(b), history.verdict(p))
    return 0 if all(budgets) else 1


def _verdict(ok: bool) -> str:
    return "within budget" if ok else "OVER BUDGET"


if __name__ == "__main__":
    sys.exit(main())
