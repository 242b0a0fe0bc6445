"""bench/results.md: where every benchmark writes its figures, a section each.

A benchmark run alone (`python -m bench.history`, `python -m bench.http`) rewrites its own
section and leaves the others as the last run of theirs wrote them; `make bench` writes the
whole file.
"""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).with_name("results.md")


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
