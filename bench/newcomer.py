"""What a newcomer meets: a fresh clone to the first answer with `make run`, the virtual
environment it builds, the bundled catalog it serves, and the size of the answers on the
wire.

`python -m bench.newcomer [REPO]` clones REPO (default: this checkout) into a temporary
folder, runs `make run` there on a free port, and times the first 200 from /breakeven; then
measures the answers, plain and gzipped, and rewrites its section of bench/results.md. It
uses the network (PyPI, or pip's cache) as a newcomer would; it is not part of `make bench`.
Budget: the first answer within 45 s here.
"""

from __future__ import annotations

import gzip
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import requests

FIRST_ANSWER_BUDGET_S = 45.0
QUESTION = "/breakeven?gpu=rtx3090&hours=500"
SIZED = (QUESTION, QUESTION + "&detail=full", "/rank?hours=500", "/offers?limit=10000")
HEADING = "## First answer: a fresh clone, `make run`"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def run(repo: str) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="newcomer-"))
    port = _free_port()
    env = {**os.environ, "BREAKEVEN_PORT": str(port), "BREAKEVEN_DATA_DIR": str(work / "data")}
    started = time.monotonic()
    subprocess.run(["git", "clone", "-q", repo, str(work / "repo")], check=True)
    server = subprocess.Popen(
        ["make", "run"], cwd=work / "repo", env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if requests.get(base + QUESTION, timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if server.poll() is not None:
                raise RuntimeError("make run stopped before answering")
            time.sleep(0.2)
        first_answer_s = time.monotonic() - started
        sizes = {}
        for path in SIZED:
            plain = requests.get(base + path, headers={"Accept-Encoding": "identity"}, timeout=60)
            zipped = requests.get(
                base + path, headers={"Accept-Encoding": "gzip"}, stream=True, timeout=60
            )
            raw = zipped.raw.read()
            assert zipped.headers.get("Content-Encoding") == "gzip", path
            assert len(gzip.decompress(raw)) == len(plain.content), path
            sizes[path] = (len(plain.content), len(raw))
        venv_mb = _size(work / "repo" / ".venv") / 1e6
        catalog = requests.get(base + "/providers", timeout=60).json()["catalog"]
        snapshot = work / "repo" / "pricing" / "data" / "snapshot.csv"
        bundled = {
            "providers": len(catalog),
            "offers": sum(line["offers"] for line in catalog),
            "dated": sum(line["dated"] for line in catalog),
            "snapshot_bytes": snapshot.stat().st_size,
        }
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    return {"first_answer_s": first_answer_s, "venv_mb": venv_mb, "sizes": sizes, **bundled}


def section(r: dict[str, object]) -> list[str]:
    sizes: dict[str, tuple[int, int]] = r["sizes"]  # type: ignore[assignment]
    lines = [
        HEADING,
        "",
        "`python -m bench.newcomer`: `git clone`, `make run` (a virtual environment with the "
        "service's own dependencies, pip's cache warm), until `/breakeven` answers.",
        "",
        "| figure | value | budget |",
        "|---|---|---|",
        f"| clone to first answer | {r['first_answer_s']:.1f} s "
        f"| <= {FIRST_ANSWER_BUDGET_S:.0f} s |",
        f"| virtual environment | {r['venv_mb']:,.0f} MB | |",
        f"| bundled catalog | {r['offers']:,} offers from {r['providers']} providers, "
        f"{r['dated']:,} dated; snapshot.csv {r['snapshot_bytes']:,} bytes | |",
        "",
        "| answer | bytes | gzipped |",
        "|---|---|---|",
    ]
    lines += [f"| `{path}` | {plain:,} | {zipped:,} |" for path, (plain, zipped) in sizes.items()]
    ok = float(r["first_answer_s"]) <= FIRST_ANSWER_BUDGET_S  # type: ignore[arg-type]
    return [*lines, "", f"Verdict: {'within budget' if ok else 'OVER BUDGET'}."]


def main() -> int:
    from bench.results import replace_section
    from bench.run import machine

    repo = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parents[1])
    results = run(repo)
    lines = section(results)
    lines[1:1] = ["", f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on: {machine()}."]
    replace_section(HEADING, lines)
    print("\n".join(lines))
    return 0 if float(results["first_answer_s"]) <= FIRST_ANSWER_BUDGET_S else 1  # type: ignore[arg-type]


if __name__ == "__main__":
    sys.exit(main())
