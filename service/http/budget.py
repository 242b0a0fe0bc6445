"""A per-worker budget for the reads that cost more than a quote: a history page and the
catalog of a past moment (`at=`).

Each is bounded (a history page reads one scan budget, pricing/store.py; a past catalog
costs what was live then) and pauses between batches so the worker's other requests are
answered meanwhile. Still, four clients looping on them would hold four such reads, and
their memory, in one worker: past HEAVY_READS_PER_WORKER at once the next is refused with
a 503 and Retry-After, at once, rather than queued.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from service.http.problems import Problem

HEAVY_READS_PER_WORKER = 2
RETRY_AFTER_S = 1

# One per process (a worker forks with it full); a non-blocking acquire never waits, so it
# serves threads and greenlets alike.
_SLOTS = threading.BoundedSemaphore(HEAVY_READS_PER_WORKER)


@contextmanager
def heavy_read(needed: bool = True) -> Iterator[None]:
    """Hold one of the worker's heavy-read slots for the block, or refuse (503)."""
    if not needed:
        yield
        return
    if not _SLOTS.acquire(blocking=False):
        raise Problem(
            503,
            "busy",
            f"this worker is already serving {HEAVY_READS_PER_WORKER} history or past-moment "
            "reads; retry in a second",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    try:
        yield
    finally:
        _SLOTS.release()
