"""Load the bundled price snapshot into the store on first start and whenever it changes.

Kept apart from refresh.py, so the refresh machinery knows no concrete adapter, and from the
bundled adapter, so adapters know nothing of the store.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pricing.adapters.bundled import BundledAdapter, snapshot_text, snapshot_version
from pricing.offer import BUNDLED
from pricing.refresh import run_adapter
from pricing.store import Store


def ensure_snapshot(
    store: Store, resolve_accelerator: Callable[[str], str | None], path: Path | None = None
) -> bool:
    """Load the bundled snapshot (or the one ``path`` names) on first start or when the
    package ships a new one."""
    current = store.current_runs().get(BUNDLED)
    if current is not None and current.source_version == snapshot_version(snapshot_text(path)):
        return False
    result = run_adapter(store, BundledAdapter(resolve_accelerator, path), force=True)
    if result.status != "ok":
        raise RuntimeError(f"the bundled price snapshot failed to load: {result.error}")
    return True
