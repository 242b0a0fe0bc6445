"""Offers from CSV text: the shared parser of the bundled snapshot and of custom imports.

Both are tables a person edits, so errors name the line and the column, and every bad row
is reported at once instead of the first one only.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable

from pricing.errors import ImportRejected, RowError
from pricing.offer import HOURLY, TEXT_LIMITS, Offer, PricingModel

REQUIRED_COLUMNS = ("product", "region", "accelerator", "count", "pricing", "usd_per_hour")
OPTIONAL_COLUMNS = (
    "provider",
    "service",
    "zone",
    "memory_gb",
    "host_included",
    "price_as_of",
    "confidence",
    "source",
    "notes",
)
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


def parse_offers_csv(
    text: str,
    resolve_accelerator: Callable[[str], str | None],
    defaults: dict[str, str],
) -> list[Offer]:
    """Parse every row or none: raises :class:`ImportRejected` listing all bad rows.

    ``resolve_accelerator`` maps any spelling to a canonical id (None if unknown);
    ``defaults`` fills optional columns a file leaves out (provider, source, price_as_of ...).
    """
    reader = csv.DictReader(io.StringIO(text))
    header = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if missing:
        raise ImportRejected([RowError(1, c, "required column is missing") for c in missing])
    reader.fieldnames = header
    offers: list[Offer] = []
    errors: list[RowError] = []
    for line, row in enumerate(reader, start=2):
        if None in row:
            errors.append(RowError(line, "(row)", "more fields than the header has"))
            continue
        offer = _parse_row(line, row, resolve_accelerator, defaults, errors)
        if offer is not None:
            offers.append(offer)
    if errors:
        raise ImportRejected(errors)
    if not offers:
        raise ImportRejected([RowError(2, "(file)", "no offer rows")])
    return offers


def _parse_row(
    line: int,
    row: dict[str, str | None],
    resolve_accelerator: Callable[[str], str | None],
    defaults: dict[str, str],
    errors: list[RowError],
) -> Offer | None:
    def value(name: str) -> str:
        return (row.get(name) or "").strip() or defaults.get(name, "")

    def fail(column: str, message: str) -> None:
        errors.append(RowError(line, column, message))

    before = len(errors)
    for name in ("product", "region", "provider", "source", "price_as_of"):
        if not value(name):
            fail(name, "must not be empty")
    for name, limit in TEXT_LIMITS.items():
        if len(value(name)) > limit:
            fail(name, f"longer than {limit} characters")
    accelerator = resolve_accelerator(value("accelerator"))
    if accelerator is None:
        fail("accelerator", f"unknown accelerator {value('accelerator')!r}")
    count = _integer(value("count"))
    if count is None or not 1 <= count <= 100_000:
        fail("count", f"must be a whole number from 1 to 100000, got {value('count')!r}")
    pricing = value("pricing")
    if pricing not in {str(p) for p in HOURLY}:
        fail("pricing", f"must be one of {', '.join(sorted(HOURLY))}, got {pricing!r}")
    price = _positive(value("usd_per_hour"))
    if price is None:
        fail("usd_per_hour", f"must be a positive number of USD, got {value('usd_per_hour')!r}")
    memory = None
    if value("memory_gb"):
        memory = _positive(value("memory_gb"))
        if memory is None:
            fail("memory_gb", f"must be a positive number, got {value('memory_gb')!r}")
    host = value("host_included").lower() or "true"
    if host not in _TRUE | _FALSE:
        fail("host_included", f"must be true or false, got {host!r}")
    if len(errors) > before:
        return None
    assert accelerator is not None and count is not None and price is not None
    return Offer(
        provider=value("provider"),
        product=value("product"),
        region=value("region"),
        accelerator=accelerator,
        count=count,
        pricing=PricingModel(pricing),
        usd_per_hour=price,
        price_as_of=value("price_as_of"),
        source=value("source"),
        service=value("service"),
        zone=value("zone"),
        memory_gb=memory,
        host_included=host in _TRUE,
        confidence=value("confidence"),
        notes=value("notes"),
    )


def _integer(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def _positive(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) and number > 0 else None
