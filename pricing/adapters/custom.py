"""Offers a user imports: negotiated rates, quotes, an on-prem cluster's internal price.

``breakeven offers import FILE.csv`` merges the file into the current custom offers (a row
with the same product, region, zone, accelerator, count and pricing replaces the old one)
and writes the result as one new run, so an import is all-or-nothing and older imports
survive. Imported rows are always provider ``custom``: a file may not speak for a cloud, so
it can never hide or replace another source's offers.

A file is at most MAX_BYTES and MAX_ROWS rows, and every column must be one the parser
knows (pricing/adapters/tabular.py); text cells must hold no character a terminal acts on
(pricing/controls.py).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date, timedelta
from pathlib import Path

from pricing.adapters import Batch
from pricing.adapters.tabular import RateOf, RowRule, decode_utf8, parse_offers_csv, shown
from pricing.controls import escape_controls
from pricing.errors import ImportRejected, RowError
from pricing.offer import Offer

CUSTOM = "custom"

# A user east of UTC may date a quote by a local today that is already UTC's tomorrow.
CLOCK_SLACK = timedelta(days=1)
# Oldest year price_date() reads (pricing/offer.py); an older as-of would read as undated.
EARLIEST_YEAR = 1990
# ISO day or month: the forms price_date() reads exactly, so age and staleness are right.
_ISO_AS_OF = re.compile(r"([0-9]{4})-([0-9]{2})(?:-([0-9]{2}))?")
# Most rows and bytes one file may hold. Every row is parsed and held before anything is
# written (all or none), so these bound an import's memory: 300,000 rows (44 MB) once took
# 1.17 GB. 32 MiB holds MAX_ROWS rows of 300 bytes; a larger catalog is several imports.
MAX_ROWS = 100_000
MAX_BYTES = 32 * 1024 * 1024


def read_custom_file(
    path: Path,
    resolve_accelerator: Callable[[str], str | None],
    today: date,
    rates: RateOf | None = None,
) -> list[Offer]:
    """Parse an import file; rows without source or date get the file name and today. A
    price in another currency (price_per_hour, currency) is converted at ``rates``' rate of
    its day, and keeps what was given beside the dollars."""
    text = decode_utf8(_read_capped(path))
    defaults = {
        "provider": CUSTOM,
        "source": f"imported from {escape_controls(path.name)}",
        "price_as_of": today.isoformat(),
        "confidence": "user",
    }
    rules: list[RowRule] = [_provider_is_custom, _price_as_of_rule(today)]
    return parse_offers_csv(
        text, resolve_accelerator, defaults, rules, max_rows=MAX_ROWS, rates=rates
    )


def _read_capped(path: Path) -> bytes:
    """The file's bytes; one past MAX_BYTES is refused before it is read (a pipe, whose
    size is unknown, as soon as it passes)."""
    with path.open("rb") as file:
        status = os.fstat(file.fileno())
        if stat.S_ISREG(status.st_mode) and status.st_size > MAX_BYTES:
            raise _too_large(f" ({status.st_size:,} bytes)")
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise _too_large("")
    return data


def _too_large(size: str) -> ImportRejected:
    limit = f"{MAX_BYTES / 2**20:g} MiB"
    message = f"the file is larger than {limit}{size}; split it into several imports"
    return ImportRejected([RowError(1, "(file)", message)])


def _provider_is_custom(values: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """A cloud's name would make the row pass for that cloud's own offers."""
    if values["provider"] != CUSTOM:
        yield (
            "provider",
            f"imported offers are always provider {CUSTOM!r}, got {shown(values['provider'])} "
            "(name the seller in service or notes, or leave the column out)",
        )


def _price_as_of_rule(today: date) -> RowRule:
    def rule(values: Mapping[str, str]) -> Iterator[tuple[str, str]]:
        problem = _as_of_problem(values["price_as_of"], today)
        if problem:
            yield "price_as_of", f"{problem}, got {shown(values['price_as_of'])}"

    return rule


def _as_of_problem(text: str, today: date) -> str:
    """Why an as-of is unusable ('' if fine): a free or future date would read as fresh."""
    match = _ISO_AS_OF.fullmatch(text)
    if match is None:
        return "must be an ISO date, YYYY-MM-DD or YYYY-MM"
    year, month, day = (int(part) if part else 1 for part in match.groups())
    try:
        start = date(year, month, day)
    except ValueError:
        return "is not a calendar date"
    if year < EARLIEST_YEAR:
        return f"must not be before {EARLIEST_YEAR}"
    if start > today + CLOCK_SLACK:
        return f"lies in the future (today is {today.isoformat()})"
    return ""


def merge(current: Sequence[Offer], imported: Sequence[Offer], replace: bool) -> Batch:
    """The next custom run: the import alone (replace) or laid over the current offers."""
    merged = {} if replace else {o.identity: o for o in current}
    merged.update({o.identity: o for o in imported})
    version = f"{len(imported)} imported, {len(merged)} total"
    return Batch(offers=list(merged.values()), source_version=version)
