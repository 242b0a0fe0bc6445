"""Cut the frozen catalog the golden answers are recorded against (tests/golden/catalog.csv).

The golden file pins answers byte for byte; recorded against the bundled snapshot, every
price update rewrote it, and a refactor's diff drowned in data. So the golden answers run on
this cut, frozen: for each provider, accelerator and pricing model of the snapshot, its
cheapest offer per accelerator-hour and its cheapest in a us-east region (the golden
questions filter by region). Run it only to change the golden catalog on purpose:

    python tests/golden/cut_catalog.py && BREAKEVEN_UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path

SNAPSHOT = Path(__file__).parents[2] / "pricing" / "data" / "snapshot.csv"
FROZEN = Path(__file__).parent / "catalog.csv"


def per_accelerator_hour(row: dict[str, str]) -> float:
    """A row's price per accelerator-hour in dollars (a yuan row by its own dated rate)."""
    if row["usd_per_hour"]:
        usd = float(row["usd_per_hour"])
    else:
        usd = float(row["price_per_hour"]) / float(row["fx_per_usd"])
    return usd / int(row["count"])


def cut(text: str) -> str:
    rows = list(csv.DictReader(io.StringIO(text)))
    groups: dict[tuple[str, str, str], list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        groups[(row["provider"], row["accelerator"], row["pricing"])].append(row)
    kept: list[dict[str, str]] = []
    for group in groups.values():
        ordered = sorted(group, key=per_accelerator_hour)
        picks = [ordered[0]]
        east = [row for row in ordered if row["region"].startswith("us-east")]
        if east and east[0] is not ordered[0]:
            picks.append(east[0])
        kept.extend(picks)
    kept.sort(key=lambda row: rows.index(row))  # the snapshot's own order
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(kept)
    return out.getvalue()


if __name__ == "__main__":
    FROZEN.write_text(cut(SNAPSHOT.read_text(encoding="utf-8")), encoding="utf-8")
