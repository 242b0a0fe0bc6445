"""Ingest benchmark: stream a >= 1 GB AWS regional offer file, against pandas.read_csv.

The file is generated (bench/aws_offer_file.py: the real 91-column header, a realistic mix
of operating systems, tenancies, terms and a few percent GPU rows) and cached under
bench/.cache. Each reader runs in its own process, so its peak RSS is its own.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

CACHE = Path(__file__).with_name(".cache")
FILE = CACHE / "aws-us-east-1-index.csv"
TARGET_BYTES = 1_100_000_000  # a bit over 1 GB
CHUNK = 1 << 20


def ensure_file() -> int:
    from bench.aws_offer_file import write_realistic_offer_file

    if not FILE.exists() or FILE.stat().st_size < TARGET_BYTES:
        CACHE.mkdir(exist_ok=True)
        print(f"generating {FILE} ...", file=sys.stderr)
        write_realistic_offer_file(FILE, TARGET_BYTES)
    return FILE.stat().st_size


def _stream() -> dict[str, float]:
    from pricing.adapters.aws.bulk import parse_offer_file
    from pricing.adapters.aws.common import skip_report
    from pricing.adapters.aws.instances import load_instance_map

    instances = load_instance_map()
    started = time.perf_counter()
    with FILE.open("rb") as handle:
        chunks = iter(lambda: handle.read(CHUNK), b"")
        result = parse_offer_file(chunks, "us-east-1", instances, "2026-11-29", skip_report())
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "offers": len(result.offers), "bytes": result.bytes_read}


def _pandas() -> dict[str, float]:
    import pandas as pd

    started = time.perf_counter()
    frame = pd.read_csv(FILE, skiprows=5)
    return {"seconds": time.perf_counter() - started, "rows": len(frame)}


def _child(name: str) -> dict[str, float]:
    """Run one reader in a fresh interpreter; it reports its figures and its own peak RSS."""
    code = (
        "import json, resource, sys; from bench import aws_bulk as b; "
        f"r = b._{name}(); "
        "r['peak_rss_mb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024; "
        "print(json.dumps(r))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run() -> dict[str, float]:
    size = ensure_file()
    stream = _child("stream")
    baseline = _child("pandas")
    mb = size / 1e6
    return {
        "file_mb": mb,
        "stream_mb_s": mb / stream["seconds"],
        "stream_peak_rss_mb": stream["peak_rss_mb"],
        "stream_offers": stream["offers"],
        "pandas_mb_s": mb / baseline["seconds"],
        "pandas_peak_rss_mb": baseline["peak_rss_mb"],
    }


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for key, value in run().items():
        print(f"{key}: {value:,.1f}")
