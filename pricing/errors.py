"""The exceptions the pricing package raises, from general to specific.

PricingError                 base of everything below
├── AdapterNotConfigured     no credentials or settings: the adapter is skipped, not failed
├── AdapterError             fetching or parsing a provider failed: the run is kept as failed
├── ImportRejected           a custom offers file has bad rows: nothing of it is imported
├── RunSuperseded            a run fetched before the current one: its older prices are not kept
└── StoreError               the price store's database failed a read or a write
    └── StoreUnavailable     it did not answer: down, refusing, or past a timeout or a lock

The store (pricing/store) raises the last two in place of SQLAlchemy's errors, the original
as ``__cause__``, so no caller needs SQLAlchemy to tell a store failure from a bug of its own.
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


class RunSuperseded(PricingError):
    """A run started before the adapter's current run finished after it (a frozen or slow
    process, a refresh outside every lock): its prices are older, so it is not made current
    and the run is kept as failed."""


class ImportRejected(PricingError):
    """Raised with every bad row at once, so a user fixes the file in one pass."""

    def __init__(self, errors: list[RowError]) -> None:
        self.errors = errors
        shown = "; ".join(str(e) for e in errors[:10])
        more = f" (and {len(errors) - 10} more)" if len(errors) > 10 else ""
        super().__init__(f"{len(errors)} bad row(s), nothing imported: {shown}{more}")


class StoreError(PricingError):
    """The database failed: the answer needs the store and cannot be given now.

    The driver's message names the database server, its port and the role: it is for the
    log, never for a client. ``orig`` is the driver's exception (SQLAlchemy's own where no
    driver call failed) and ``kind`` the name of SQLAlchemy's class, as callers showed
    them before the store had errors of its own."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.orig: BaseException = getattr(error, "orig", None) or error
        self.kind = type(error).__name__


class StoreUnavailable(StoreError):
    """The database did not answer in time, or at all: SQLAlchemy's OperationalError (a
    connection refused or dropped, the statement timeout, a lock not granted in time; on
    SQLite also a table gone). Worth a retry; an import says so."""
