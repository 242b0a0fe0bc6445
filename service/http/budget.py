"""The reads that cost more than a quote: a history page and the catalog of a past moment
(`at=`). Each is bounded (a history page reads one scan budget, pricing/store/history.py; a past
catalog costs what was live then, a second or two for 100,000 offers), and each runs off the
worker's event loop, in a thread of gevent's pool: SQLite's statements and the Python that
builds a catalog would otherwise hold the loop, and /health with it, for their whole time.
Four clients looping on them would still hold four such reads, and their memory, in one
worker: past HEAVY_READS_PER_WORKER at once the next is refused with a 503 and Retry-After,
at once, rather than queued. The slots are shared: one client (an address) holds at most
HEAVY_READS_PER_CLIENT of a worker's at once, so one looping on new `at=` moments leaves the
others theirs (it took every slot, and 99.5 % of everyone else's past reads got 503s).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

from flask import has_request_context, request

from service.http.problems import Problem

HEAVY_READS_PER_WORKER = 2
HEAVY_READS_PER_CLIENT = 1  # of one worker's slots, at once: the other stays another client's
RETRY_AFTER_S = 1
T = TypeVar("T")

# One per process (a worker forks with it full); a non-blocking acquire never waits, so it
# serves threads and greenlets alike.
_SLOTS = threading.BoundedSemaphore(HEAVY_READS_PER_WORKER)
_HELD: Counter[str] = Counter()  # slots held, by client address
_HELD_LOCK = threading.Lock()
# .request: the request whose heavy read this thread runs; .off_the_loop: in gevent's pool
_WITHIN = threading.local()
_NO_REQUEST = object()


def _within_one() -> bool:
    """Whether this is part of a heavy read already in its slot: in gevent's pool thread
    (only heavy reads run there, with no request at hand), or, where the read runs in place,
    asked by the same request. Another request asked meanwhile is not."""
    if getattr(_WITHIN, "off_the_loop", False):
        return True
    holder = getattr(_WITHIN, "request", None)
    return holder is not None and has_request_context() and request._get_current_object() is holder


def heavy_read(read: Callable[[], T], needed: bool = True) -> T:
    """``read()`` in one of the worker's heavy-read slots, off the event loop; a 503 when
    every slot is taken, or the asking client holds its share. ``needed`` False: a quote's
    cost, read in place; so is a heavy read within one (the past table a large /offers?at=
    page builds), in the slot it already holds."""
    if not needed or _within_one():
        return read()  # a quote's cost, or a part of a heavy read already in its slot
    asking = request._get_current_object() if has_request_context() else _NO_REQUEST
    client = request.remote_addr or "" if has_request_context() else None
    with _HELD_LOCK:
        if client is not None and _HELD[client] >= HEAVY_READS_PER_CLIENT:
            raise _busy(f"you are already served {HEAVY_READS_PER_CLIENT} such read here")
        if not _SLOTS.acquire(blocking=False):
            raise _busy(f"this worker is already serving {HEAVY_READS_PER_WORKER} such reads")
        if client is not None:
            _HELD[client] += 1

    def within() -> T:
        _WITHIN.request = asking  # a past table this read builds (service/catalog.py): its part
        try:
            return read()
        finally:
            _WITHIN.request = None

    try:
        return _off_the_loop(within)
    finally:
        _SLOTS.release()
        if client is not None:
            with _HELD_LOCK:
                _HELD[client] -= 1
                if not _HELD[client]:
                    del _HELD[client]


def _busy(why: str) -> Problem:
    return Problem(
        503,
        "busy",
        f"{why} (history or past-moment reads); retry in a second",
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


def _off_the_loop(read: Callable[[], T]) -> T:
    """In a gevent worker, in a thread of the hub's pool (the greenlet waits, the loop goes
    on serving); anywhere else, here. A failure comes back as a value and is raised here,
    in the request's greenlet: raised in the pool's thread, gevent's hub printed each one's
    chained traceback besides (4.5 KB a request while the database was away)."""
    from gevent import get_hub, monkey

    if not monkey.is_module_patched("threading"):
        return read()

    def caught() -> tuple[T | None, BaseException | None]:
        _WITHIN.off_the_loop = True
        try:
            return read(), None
        except Exception as error:  # handed to the caller, who answers it
            return None, error
        finally:
            _WITHIN.off_the_loop = False

    value, error = get_hub().threadpool.apply(caught)
    if error is not None:
        raise error
    return value  # type: ignore[return-value]
