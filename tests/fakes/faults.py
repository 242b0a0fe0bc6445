"""Faults a fake can inject on demand, each fake rendering them in its own wire format.

One ``Faults`` per faulted API: a burst of statuses answered first (429s, 5xx), a status
answered to every call after that (5xx past the retry budget), a stall before answering (a
hung backend; ``release()`` ends it, so no server thread outlives its test), a page that
always fails, a page cut off mid-body, a page served verbatim, and empty pages that still
carry a next link. Pages are 1-based and counted as the client sees them, empty ones
included, so the items of the real pages keep their order.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class Faults:
    statuses: list[int] = field(default_factory=list)  # the next calls answer these, in order
    status: int | None = None  # then every call answers this
    delay_seconds: float = 0.0  # every call stalls this long first (until released)
    fail_page: int | None = None  # this page always answers HTTP 500
    truncate_page: int | None = None  # this page's body is cut off halfway
    bodies: dict[int, str] = field(default_factory=dict)  # page -> serve this text verbatim
    empty_pages: set[int] = field(default_factory=set)  # pages with no items, yet a next link
    _released: threading.Event = field(default_factory=threading.Event, repr=False)

    def release(self) -> None:
        self._released.set()

    def stall(self) -> None:
        if self.delay_seconds > 0:
            self._released.wait(self.delay_seconds)

    def error_status(self, page: int = 1) -> int | None:
        """The error status this call answers, or None for a normal answer."""
        if self.statuses:
            return self.statuses.pop(0)
        if self.status is not None:
            return self.status
        return 500 if self.fail_page == page else None

    def window(self, count: int, page_size: int, page: int) -> tuple[int, int, bool]:
        """(start, stop, has_next): the slice of ``count`` items that ``page`` serves."""
        pages = -(-count // page_size) + len(self.empty_pages)
        if page in self.empty_pages:
            return 0, 0, page < pages
        real = page - 1 - len([p for p in self.empty_pages if p < page])
        start = real * page_size
        return start, min(start + page_size, count), page < pages

    def body(self, page: int, text: str) -> str:
        """The text this page is served as: verbatim, cut off, or as rendered."""
        if page in self.bodies:
            return self.bodies[page]
        if self.truncate_page == page:
            return text[: len(text) // 2]  # the connection died mid-body
        return text
