"""AWS's price list CSV files as they stream: the EC2 offer file and the Savings Plans file.

Both are hundreds of MB per region and share a shape: five preamble lines (FormatVersion,
Disclaimer, Publication Date, Version, and the offer's code), a header row, then one quoted
row per price. They are read in 1 MiB chunks and split into lines by hand, so memory stays
flat; a line is decoded only when a reader's byte tests say it could be wanted.

A body that ends early must not pass for the whole file: a last line cut off mid-row is
refused even when it is a row the reader would skip, and a file with no row after its header
is never a region's prices (:meth:`PriceFile.check_end`).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator

from pricing.errors import AdapterError

CHUNK_BYTES = 1 << 20
PREAMBLE_LINES = 5


def lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Split a byte stream into lines without holding more than one chunk."""
    rest = b""
    for chunk in chunks:
        if not chunk:
            continue
        parts = (rest + chunk).split(b"\n")
        rest = parts.pop()
        yield from parts
    if rest:
        yield rest


def csv_fields(line: bytes) -> list[str]:
    return next(csv.reader([line.decode("utf-8").rstrip("\r")]), [])


class PriceFile:
    """One file's lines after its header, with the preamble, the header and what the end
    check needs (the bytes read, the last line, whether the body ended with a newline)."""

    def __init__(self, chunks: Iterable[bytes], name: str) -> None:
        self.name = name  # what errors call it: "offer file", "savings plans file"
        self.bytes_read = 0
        self.last: bytes | None = None
        self._ends_with_newline = True
        self._lines = self._split(chunks)
        self.preamble: dict[str, str] = {}
        for _ in range(PREAMBLE_LINES):
            row = csv_fields(next(self._lines, b""))
            if len(row) >= 2:
                self.preamble[row[0]] = row[1]
        header = next(self._lines, b"")
        self.header = csv_fields(header)
        self._header_line = header  # the last line until a row follows it

    def __iter__(self) -> Iterator[bytes]:
        return self._lines

    def check_end(self, region: str) -> None:
        """Refuse a file with no row after its header, or whose last line is cut off."""
        if self.last is None or self.last is self._header_line:
            raise AdapterError(
                f"{region}: {self.name} has no rows after its header (empty or cut off)"
            )
        if not self._ends_with_newline and not _whole_row(self.last, len(self.header)):
            raise AdapterError(f"{region}: {self.name} truncated: its last line is cut off mid-row")

    def _split(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """:func:`lines`, noting the bytes read and the last line a chunk at a time (not per
        line: the loop over lines is the reader's hot path)."""
        rest = b""
        for chunk in chunks:
            if not chunk:
                continue
            self.bytes_read += len(chunk)
            self._ends_with_newline = chunk.endswith(b"\n")
            parts = (rest + chunk).split(b"\n")
            rest = parts.pop()
            if parts:
                self.last = parts[-1]
            yield from parts
        if rest:
            self.last = rest
            yield rest


def _whole_row(line: bytes, width: int) -> bool:
    """A whole row: every field there and every quote closed."""
    text = line.decode("utf-8", errors="replace").rstrip("\r")
    try:
        return len(next(csv.reader([text], strict=True), [])) == width
    except csv.Error:
        return False
