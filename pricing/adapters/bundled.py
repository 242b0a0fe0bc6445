"""The dated reference snapshot shipped in the package, so the service answers offline.

Loaded on first start and again whenever a new package ships a different snapshot; its rows
stand in for each cloud until that cloud's live adapter has a current run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from pricing.adapters import Batch
from pricing.adapters.tabular import parse_offers_csv
from pricing.offer import BUNDLED


def snapshot_text(path: Path | None = None) -> str:
    """The snapshot's text: the package's, or the file ``path`` names (a frozen test
    catalog, so answers recorded against it do not move when the bundled prices do)."""
    if path is not None:
        return path.read_text(encoding="utf-8")
    return (resources.files("pricing") / "data" / "snapshot.csv").read_text(encoding="utf-8")


def snapshot_version(text: str) -> str:
    """Content hash: a changed snapshot file means a reload, an unchanged one none."""
    return "snapshot sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


class BundledAdapter:
    name = BUNDLED

    def __init__(
        self, resolve_accelerator: Callable[[str], str | None], path: Path | None = None
    ) -> None:
        self._resolve = resolve_accelerator
        self._path = path

    def fetch(self) -> Batch:
        text = snapshot_text(self._path)
        offers = parse_offers_csv(text, self._resolve, defaults={})
        return Batch(offers=offers, source_version=snapshot_version(text))
