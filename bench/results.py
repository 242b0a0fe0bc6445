"""bench/results.md: where every benchmark writes its figures, a section each.

A benchmark run alone (`python -m bench.history`, `python -m bench.http`) rewrites its own
section and leaves the others as the last run of theirs wrote them; `make bench` writes the
whole file.
"""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).with_name("results.md")


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores visible; Python {platform.python_version()}, "
        f"numpy {np.__version__}, {platform.system()} {platform.release()}"
    )


def ran_alone() -> list[str]:
    """The line a section run alone opens with: the whole file's header dates another run,
    maybe on another machine, and figures in milliseconds mean little without theirs."""
    return ["", f"Run alone {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on: {machine()}."]


def replace_section(heading: str, lines: list[str]) -> None:
    """Put ``lines`` where the section starting with ``heading`` was (at the end if none)."""
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    new = "\n".join(lines).rstrip("\n") + "\n"
    start = text.find(heading)
    if start == -1:
        RESULTS.write_text(text.rstrip("\n") + "\n\n" + new)
        return
    end = text.find("\n## ", start + 1)
    rest = text[end + 1 :] if end != -1 else ""
    RESULTS.write_text(text[:start] + new + ("\n" + rest if rest else ""))
