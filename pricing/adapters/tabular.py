"""Offers from CSV text: the shared parser of the bundled snapshot and of custom imports.

Both are tables a person edits, so errors name the line and the column, and every bad row
is reported at once instead of the first one only. The bounds here hold for any source; a
caller adds its own rules (custom imports: provider and date) through ``rules``. A column
the parser does not know is an error too: a misspelt `memory` would drop its data unseen.
"""

from __future__ import annotations

import codecs
import csv
import difflib
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date
from typing import Protocol

from pricing.controls import describe_character, forbidden_character
from pricing.errors import ImportRejected, RowError
from pricing.fx import BASE, CURRENCIES, FxError, Rate
from pricing.offer import (
    COMMITTED,
    INTERRUPTION_BANDS,
    MARKETS,
    PRICED,
    PURCHASE_OPTIONS,
    TERM_MONTHS,
    TEXT_LIMITS,
    Offer,
    PricingModel,
    named_date,
)

REQUIRED_COLUMNS = ("product", "region", "accelerator", "count", "pricing")
# A price: in dollars (usd_per_hour), or in its own currency (price_per_hour with currency),
# converted at the ECB's rate of its day, or at the rate the row states (fx_per_usd, fx_day).
PRICE_COLUMNS = ("usd_per_hour", "price_per_hour")
OPTIONAL_COLUMNS = (
    *PRICE_COLUMNS,
    "currency",
    "fx_per_usd",
    "fx_day",
    "provider",
    "service",
    "zone",
    "memory_gb",
    "host_included",
    "price_as_of",
    "confidence",
    "source",
    "notes",
    "market",
    "reliability",
    "interruption",
    "purchase_option",
    "upfront_share",
)
KNOWN_COLUMNS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}

# Most accelerators one offer may hold: a whole cluster's quote, never more.
MAX_COUNT = 100_000
# Ceiling of a whole offer's price. The largest cloud instances (8 x H200/B200) list near
# 100 USD/h; 10,000 leaves room for a negotiated cluster quote while every total the engine
# multiplies from it stays far from float overflow (1.7e308 gave null answers).
MAX_USD_PER_HOUR = 10_000.0
# Floor of a whole offer's price, a hundredth of a cent an hour: below it hours-per-dollar
# overflows (5e-324 was ranked first with a null figure).
MIN_USD_PER_HOUR = 0.0001
# Memory per accelerator: the same bound the API puts on `memory` (service/documents/queries.py).
MAX_MEMORY_GB = 4096.0
# A whole number with more digits is past every bound; int() refuses more than 4,300.
_MAX_DIGITS = 18
# How much of a bad value an error quotes: the line and column say where the rest is.
_QUOTED_CHARS = 40

# The rate of a currency on a day (None: the newest known): pricing.fx.ExchangeRates.rate.
RateOf = Callable[[str, date | None], Rate]

# Plain decimal numbers only: float() would also take "nan", "inf", "1_000" and " 5\n".
_DECIMAL = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WHOLE = re.compile(r"[0-9]+")


class _Reader(Protocol):
    line_num: int  # physical lines read so far

    def __next__(self) -> list[str]: ...


# A caller's own rule on one row: the row's values (defaults filled) -> (column, message)s.
RowRule = Callable[[Mapping[str, str]], Iterable[tuple[str, str]]]


def parse_offers_csv(
    text: str,
    resolve_accelerator: Callable[[str], str | None],
    defaults: dict[str, str],
    rules: Sequence[RowRule] = (),
    max_rows: int | None = None,
    identity: Callable[[Offer], tuple[object, ...]] = lambda offer: offer.identity,
    rates: RateOf | None = None,
) -> list[Offer]:
    """Parse every row or none: raises :class:`ImportRejected` listing all bad rows.

    ``resolve_accelerator`` maps any spelling to a canonical id (None if unknown);
    ``defaults`` fills optional columns a file leaves out (provider, source, price_as_of ...);
    a file of more than ``max_rows`` rows is refused as soon as the parser reaches one more;
    two rows of one ``identity`` are duplicates (a history holds one offer at many dates);
    ``rates`` converts a price given in another currency (without it, such a row must state
    its rate).
    """
    reader = csv.reader(_lines(text))
    errors: list[RowError] = []
    header = _header(reader, errors)
    parsed: list[tuple[int, Offer]] = []
    for line, row in _records(reader, header, errors, max_rows):
        offer = _parse_row(line, row, resolve_accelerator, defaults, rules, errors, rates)
        if offer is not None:
            parsed.append((line, offer))
    errors.extend(_duplicates(parsed, identity))
    if errors:
        raise ImportRejected(sorted(errors, key=lambda e: e.line))
    if not parsed:
        raise ImportRejected([RowError(2, "(file)", "no offer rows")])
    return [offer for _, offer in parsed]


def decode_utf8(data: bytes) -> str:
    """The file's text; a file that is not UTF-8 is rejected naming each bad line and byte."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ImportRejected([RowError(1, "(file)", "UTF-16 text: save the file as UTF-8")])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    lines = data.split(b"\n")  # a newline byte never occurs inside a UTF-8 sequence
    header = _split(lines[0].decode("utf-8-sig", "replace"))
    errors = []
    for number, line in enumerate(lines, start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = "(header)" if number == 1 else _column_at(header, line[: exc.start])
            bad = f"byte {exc.start + 1} of the line (0x{line[exc.start]:02x}) is not UTF-8"
            errors.append(RowError(number, where, f"{bad}: save the file as UTF-8"))
    raise ImportRejected(errors)


def shown(value: str) -> str:
    """A cell as an error quotes it: its repr (controls escaped), cut short if long."""
    if len(value) <= _QUOTED_CHARS:
        return repr(value)
    return f"{value[:_QUOTED_CHARS]!r}... ({len(value):,} characters)"


def _lines(text: str) -> Iterator[str]:
    """The text's lines one at a time, ends kept, split at "\n" only, as io.StringIO(text)
    splits them; but StringIO first copies the text at 4 bytes a character."""
    start = 0
    while start < len(text):
        end = text.find("\n", start) + 1 or len(text)
        yield text[start:end]
        start = end


def _split(line: str) -> list[str]:
    return next(csv.reader([line]), [])


def _column_at(header: list[str], before: bytes) -> str:
    """The column a byte falls in, from the cells the line holds before it."""
    index = max(len(_split(before.decode("utf-8", "replace"))) - 1, 0)
    return header[index].strip() if index < len(header) else f"column {index + 1}"


def _header(reader: _Reader, errors: list[RowError]) -> list[str]:
    """The column names; missing, unknown, repeated or control-holding names are errors on
    line 1. A name left empty (a trailing comma) is no column: its cells must be empty."""
    try:
        header = [name.strip() for name in next(reader, [])]
    except csv.Error as exc:
        raise ImportRejected([RowError(1, "(header)", f"not valid CSV: {exc}")]) from exc
    problems = []
    seen: set[str] = set()
    listed = False  # whether an error has listed the known columns yet
    for index, name in enumerate(header):
        character = forbidden_character(name)
        if character is not None:
            problems.append(
                RowError(1, f"column {index + 1}", f"holds {describe_character(character)}")
            )
        elif not name:
            continue  # no column: _records holds its cells to being empty
        elif name in seen:
            problems.append(RowError(1, name, "column appears more than once"))
        elif name not in KNOWN_COLUMNS:
            problems.append(RowError(1, name, _unknown_column(name, listed)))
            listed = listed or not _close_column(name)
        seen.add(name)
    missing = [name for name in REQUIRED_COLUMNS if name not in seen]
    if not seen & set(PRICE_COLUMNS):
        missing.append("usd_per_hour")  # or price_per_hour with currency
    if missing:
        missed = [RowError(1, c, "required column is missing") for c in missing]
        raise ImportRejected(missed + problems)
    errors.extend(problems)
    return header


def _unknown_column(name: str, listed: bool) -> str:
    """Why a name is refused, with the known name it was likely meant to be, or else the
    known names unless ``listed`` (a file of 5,000 extra columns gets them once)."""
    close = _close_column(name)
    if close:
        return f"unknown column {shown(name)}: did you mean {close!r}?"
    if listed:
        return f"unknown column {shown(name)}"
    return f"unknown column {shown(name)}: the columns are {', '.join(KNOWN_COLUMNS)}"


def _close_column(name: str) -> str | None:
    close = difflib.get_close_matches(name.lower(), KNOWN_COLUMNS, n=1)
    return close[0] if close else None


def _records(
    reader: _Reader, header: list[str], errors: list[RowError], max_rows: int | None = None
) -> Iterator[tuple[int, dict[str, str]]]:
    """Each row with the line it starts on (quoted cells may span lines; blank lines skip).

    Past ``max_rows`` rows the file is refused at once, before more of it is parsed."""
    line = reader.line_num
    rows = 0
    unnamed = [index for index, name in enumerate(header) if not name]
    while True:
        start = line + 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            errors.append(RowError(start, "(row)", f"not valid CSV: {exc}"))
            return
        line = reader.line_num
        if not cells:
            continue
        rows += 1
        if max_rows is not None and rows > max_rows:
            too_many = f"the file has more than {max_rows:,} rows; split it into several imports"
            raise ImportRejected([RowError(start, "(file)", too_many)])
        if len(cells) > len(header):
            errors.append(RowError(start, "(row)", "more fields than the header has"))
            continue
        for index in unnamed:
            if index < len(cells) and cells[index].strip():
                message = "holds a value, but the header gives this column no name"
                errors.append(RowError(start, f"column {index + 1}", message))
        yield start, dict(zip(header, cells, strict=False))


def _parse_row(
    line: int,
    row: dict[str, str],
    resolve_accelerator: Callable[[str], str | None],
    defaults: dict[str, str],
    rules: Sequence[RowRule],
    errors: list[RowError],
    rates: RateOf | None = None,
) -> Offer | None:
    values = {
        name: (row.get(name) or "").strip() or defaults.get(name, "")
        for name in REQUIRED_COLUMNS + OPTIONAL_COLUMNS
    }

    def value(name: str) -> str:
        return values[name]

    def fail(column: str, message: str) -> None:
        errors.append(RowError(line, column, message))

    before = len(errors)
    for name, cell in row.items():
        character = forbidden_character(cell) if name else None
        if character is not None:
            fail(name, f"holds {describe_character(character)}")
    for name in ("product", "region", "provider", "source", "price_as_of"):
        if not value(name):
            fail(name, "must not be empty")
    for name, limit in TEXT_LIMITS.items():
        if len(value(name)) > limit:
            fail(name, f"longer than {limit} characters")
    for rule in rules:
        for column, message in rule(values):
            fail(column, message)
    accelerator = resolve_accelerator(value("accelerator"))
    if accelerator is None:
        fail("accelerator", f"unknown accelerator {shown(value('accelerator'))}")
    count = _integer(value("count"))
    if count is None or not 1 <= count <= MAX_COUNT:
        fail("count", f"must be a whole number from 1 to {MAX_COUNT}, got {shown(value('count'))}")
    priced = _price(values, rates, fail)
    pricing = value("pricing")
    if pricing not in {str(p) for p in PRICED}:
        fail("pricing", f"must be one of {', '.join(sorted(PRICED))}, got {shown(pricing)}")
    upfront = _committed_terms(values, pricing, fail)
    memory = None
    if value("memory_gb"):
        memory = _number(value("memory_gb"))
        if memory is None or not 0 < memory <= MAX_MEMORY_GB:
            fail(
                "memory_gb",
                f"must be a number of GB above 0 and at most {MAX_MEMORY_GB:g} per "
                f"accelerator, got {shown(value('memory_gb'))}",
            )
    host = value("host_included").lower() or "true"
    if host not in _TRUE | _FALSE:
        fail("host_included", f"must be true or false, got {shown(host)}")
    market = value("market") or "cloud"
    if market not in MARKETS:
        fail("market", f"must be one of {', '.join(MARKETS)}, got {shown(market)}")
    reliability = None
    if value("reliability"):
        reliability = _number(value("reliability"))
        if reliability is None or not 0 <= reliability <= 1:
            fail("reliability", f"must be a number from 0 to 1, got {shown(value('reliability'))}")
    if value("interruption") and value("interruption") not in INTERRUPTION_BANDS:
        fail(
            "interruption",
            f"must be empty or one of {', '.join(INTERRUPTION_BANDS)}, "
            f"got {shown(value('interruption'))}",
        )
    if len(errors) > before:
        return None
    assert accelerator is not None and count is not None and priced is not None
    price, given = priced
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
        market=market,
        reliability=reliability,
        interruption=value("interruption"),
        purchase_option=value("purchase_option"),
        upfront_share=upfront,
        **given,
    )


def _price(
    values: Mapping[str, str], rates: RateOf | None, fail: Callable[[str, str], None]
) -> tuple[float, dict[str, object]] | None:
    """The offer's price in dollars and, for one given in another currency, what was given
    and the rate that converted it; None (and the errors said) for a row that cannot be
    priced. The dollar bounds hold for every currency, once converted."""
    currency = values["currency"].upper() or BASE
    if currency == BASE:
        for name in ("price_per_hour", "fx_per_usd", "fx_day"):
            if values[name]:
                fail(name, "only a price in another currency has one; give dollars in usd_per_hour")
        usd = _number(values["usd_per_hour"])
        if usd is None or not MIN_USD_PER_HOUR <= usd <= MAX_USD_PER_HOUR:
            fail(
                "usd_per_hour",
                f"must be a number of USD from {MIN_USD_PER_HOUR:g} to {MAX_USD_PER_HOUR:g} "
                f"for the whole offer, got {shown(values['usd_per_hour'])}",
            )
            return None
        return usd, {}
    if currency not in CURRENCIES:
        fail("currency", f"must be one of {', '.join(CURRENCIES)}, got {shown(values['currency'])}")
        return None
    given = _number(values["price_per_hour"])
    if given is None or given <= 0:
        fail(
            "price_per_hour",
            f"must be a number above 0, in {currency}, for the whole offer, got "
            f"{shown(values['price_per_hour'])}",
        )
        return None
    converted = _rate(values, currency, rates, fail)
    if converted is None:
        return None
    per_usd, day = converted
    usd = given / per_usd
    if values["usd_per_hour"]:
        stated = _number(values["usd_per_hour"])
        if stated is None or not math.isclose(stated, usd, rel_tol=1e-6):
            fail(
                "usd_per_hour",
                f"{shown(values['usd_per_hour'])} is not price_per_hour at the rate "
                f"({usd:.6g}): give the price in one currency",
            )
            return None
    if not MIN_USD_PER_HOUR <= usd <= MAX_USD_PER_HOUR:
        fail(
            "price_per_hour",
            f"{given:g} {currency} is {usd:.6g} USD at {per_usd:.6g} {currency} per USD ({day}), "
            f"outside {MIN_USD_PER_HOUR:g} to {MAX_USD_PER_HOUR:g} USD for the whole offer",
        )
        return None
    conversion = {"currency": currency, "price_per_hour": given, "fx_per_usd": per_usd}
    return usd, {**conversion, "fx_day": day}


def _rate(
    values: Mapping[str, str], currency: str, rates: RateOf | None, fail: Callable[[str, str], None]
) -> tuple[float, str] | None:
    """The rate a row's price converts at: the one it states, else the ECB's of its day."""
    if values["fx_per_usd"] or values["fx_day"]:
        per_usd = _number(values["fx_per_usd"])
        if per_usd is None or per_usd <= 0:
            fail("fx_per_usd", f"must be a number above 0, got {shown(values['fx_per_usd'])}")
            return None
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", values["fx_day"]):
            fail("fx_day", f"must be the rate's day, YYYY-MM-DD, got {shown(values['fx_day'])}")
            return None
        return per_usd, values["fx_day"]
    if rates is None:
        fail("currency", f"no exchange rates here to convert {currency}: give usd_per_hour")
        return None
    try:
        # the newest rate on or before the day the price names (None: the newest known)
        rate = rates(currency, named_date(values["price_as_of"]))
    except FxError as exc:
        fail("currency", str(exc))
        return None
    return rate.per_usd, rate.day.isoformat()


def _committed_terms(
    values: Mapping[str, str], pricing: str, fail: Callable[[str, str], None]
) -> float | None:
    """A committed row's upfront share (its purchase option checked); None for an hourly
    row, which may carry neither: a term's price read as hourly would undercut every rate."""
    option, share = values["purchase_option"], values["upfront_share"]
    if pricing not in {str(p) for p in COMMITTED}:
        for name in ("purchase_option", "upfront_share"):
            if values[name]:
                fail(
                    name,
                    f"only a committed row ({', '.join(TERM_MONTHS)}) has one, got "
                    f"{shown(values[name])} on a {shown(pricing)} row",
                )
        return None
    if option not in PURCHASE_OPTIONS:
        fail(
            "purchase_option", f"must be one of {', '.join(PURCHASE_OPTIONS)}, got {shown(option)}"
        )
    upfront = _number(share) if share else 0.0
    if upfront is None or not 0 <= upfront <= 1:
        fail(
            "upfront_share",
            f"must be a number from 0 to 1 (the share of the term's total "
            f"paid upfront), got {shown(share)}",
        )
        return None
    return upfront


def _duplicates(
    parsed: Sequence[tuple[int, Offer]], identity: Callable[[Offer], tuple[object, ...]]
) -> list[RowError]:
    """A row offering what an earlier row offers: the import would silently keep one."""
    first: dict[tuple[object, ...], int] = {}
    errors = []
    for line, offer in parsed:
        key = identity(offer)
        if key in first:
            message = (
                f"duplicates line {first[key]} (same product, region, zone, accelerator, "
                "count, pricing and purchase option)"
            )
            errors.append(RowError(line, "(row)", message))
        else:
            first[key] = line
    return errors


def _integer(text: str) -> int | None:
    """The whole number, or None; one too long for int() is past every bound anyway."""
    if not _WHOLE.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"
    return int(digits) if len(digits) <= _MAX_DIGITS else None


def _number(text: str) -> float | None:
    return float(text) if _DECIMAL.fullmatch(text) else None
