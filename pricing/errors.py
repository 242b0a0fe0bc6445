"""The exceptions the pricing package raises, from general to specific.

PricingError                 base of everything below
├── AdapterNotConfigured     no credentials or settings: the adapter is skipped, not failed
├── AdapterError             fetching or parsing a provider failed: the run is kept as failed
└── ImportRejected           a custom offers file has bad rows: nothing of it is imported
"""

from __future__ import annotations

from dataclasses import dataclass


class PricingError(Exception):
    """Base class: catch this to handle any pricing failure."""


class AdapterNotConfigured(PricingError):
    """The adapter lacks what it needs (an API key, a project); refresh skips it."""


class AdapterError(PricingError):
    """A provider could not be read; the previous current run keeps serving."""


@dataclass(frozen=True)
class RowError:
    line: int  # 1-based line in the file; the header is line 1
    column: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, {self.column}: {self.message}"


class ImportRejected(PricingError):
    """Raised with every bad row at once, so a user fixes the file in one pass."""

    def __init__(self, errors: list[RowError]) -> None:
        self.errors = errors
        shown = "; ".join(str(e) for e in errors[:10])
        more = f" (and {len(errors) - 10} more)" if len(errors) > 10 else ""
        super().__init__(f"{len(errors)} bad row(s), nothing imported: {shown}{more}")
