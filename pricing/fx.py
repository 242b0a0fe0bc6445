"""Exchange rates: the ECB's euro reference rates, and what a dollar is worth in another
currency on a day.

The ECB publishes, about 16:00 CET on each TARGET working day, how many units of some 30
currencies one euro buys ("for information purposes only"; free to reuse with the ECB cited
as the source). A dollar's worth in currency C is rate(C) / rate(USD) on the same day. The
rate that converts an amount is the newest published on or before the day asked; its age
goes with it, so an answer can say how old its rate is.

Two wire formats (both parsed here, tests feed both): the history file ``eurofxref-hist.csv``
(a ``Date`` column and one column per currency, newest day first, ``N/A`` where a currency
has no rate, a trailing comma on every line) and the XML feeds (``eurofxref-daily.xml``,
``eurofxref-hist-90d.xml``: ``<Cube time="YYYY-MM-DD">`` holding ``<Cube currency=
"USD" rate="1.1377"/>``).
"""

from __future__ import annotations

import bisect
import csv
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from importlib import resources
from typing import Literal, get_args
from xml.etree import ElementTree

BASE = "USD"  # what every price in the store is in
# The currencies a question may ask: those the bundled rates carry (tests/test_currency.py
# checks the file against this), the dollar and the euro among them.
Currency = Literal[
    "AUD", "CAD", "CHF", "CNY", "EUR", "GBP", "HKD", "INR", "JPY", "KRW", "SGD", "USD"
]
CURRENCIES: tuple[str, ...] = get_args(Currency)
ECB_SOURCE = "European Central Bank euro foreign exchange reference rates"
FETCHED_SOURCE = f"{ECB_SOURCE} (fetched from its feed, BREAKEVEN_ECB_RATES_URL)"
# A figure per euro outside this is no currency's the ECB lists (0.3 to about 20,000 per euro,
# the Kuwaiti dinar to the Indonesian rupiah): it is refused with the feed, so every cross rate
# a dollar is worth stays finite and sane.
PER_EUR_RANGE = (1e-3, 1e6)
CODE = re.compile(r"^[A-Z]{3}$")  # ISO 4217
_CUBE = "{http://www.ecb.int/vocabulary/2002-08-01/eurofxref}Cube"


class FxError(ValueError):
    """A currency no rate is known for, or a rate file that cannot be read."""


@dataclass(frozen=True, slots=True)
class EuroRate:
    """One published figure: how many units of ``currency`` one euro bought on ``day``."""

    day: date
    currency: str
    per_eur: float


@dataclass(frozen=True, slots=True)
class Rate:
    """What one US dollar is worth in ``currency``, as of ``day``."""

    currency: str
    per_usd: float
    day: date  # the ECB working day the rates were published
    source: str

    def age_days(self, today: date) -> int:
        return (today - self.day).days


USD = Rate(BASE, 1.0, date.min, "no conversion: every price is kept in US dollars")


class ExchangeRates:
    """Every published rate known, by currency and day; ``fetched``: the days a refresh
    brought (their rates name the ECB's feed as their source, the others the bundled copy)."""

    def __init__(
        self, rates: Iterable[EuroRate], source: str = ECB_SOURCE, fetched: Iterable[date] = ()
    ) -> None:
        self.source = source
        self.fetched = frozenset(fetched)
        series: dict[str, dict[date, float]] = {}
        for rate in rates:
            if rate.per_eur <= 0 or rate.per_eur != rate.per_eur:
                raise FxError(f"{rate.currency} on {rate.day}: rate {rate.per_eur!r}")
            series.setdefault(rate.currency, {})[rate.day] = rate.per_eur
        if BASE in series:  # the euro itself: one euro a euro, every day the dollar has
            series["EUR"] = dict.fromkeys(series[BASE], 1.0)
        self._days = {c: sorted(days) for c, days in series.items()}
        self._values = {c: [series[c][d] for d in self._days[c]] for c in series}
        self._usd_days = frozenset(self._days.get(BASE, ()))

    @property
    def currencies(self) -> tuple[str, ...]:
        """Every currency a dollar converts to: those with a rate on a day USD has one."""
        return tuple(sorted({*self._days, BASE})) if BASE in self._days else (BASE,)

    @property
    def latest_day(self) -> date | None:
        days = self._days.get(BASE)
        return days[-1] if days else None

    @property
    def earliest_day(self) -> date | None:
        days = self._days.get(BASE)
        return days[0] if days else None

    def rate(self, currency: str, on: date | None = None) -> Rate:
        """A dollar in ``currency``: the newest day on or before ``on`` (default: the newest
        known) on which both it and the dollar were published."""
        if currency == BASE:
            return USD
        if currency not in self._days or BASE not in self._days:
            raise FxError(f"no exchange rate for {currency!r}; known: {', '.join(self.currencies)}")
        day = self._common_day(currency, on)
        if day is None:
            raise FxError(f"no {currency} rate published on or before {on}")
        per_usd = self._value(currency, day) / self._value(BASE, day)
        return Rate(currency, per_usd, day, FETCHED_SOURCE if day in self.fetched else self.source)

    def latest(self, currency: str) -> float | None:
        """``currency``'s newest figure per euro: what a fetched one is held against."""
        values = self._values.get(currency)
        return values[-1] if values else None

    def merged(self, newer: Iterable[EuroRate]) -> ExchangeRates:
        """These rates with ``newer``, fetched, laid over them (a refreshed day replaces its
        figure)."""
        newer = list(newer)
        days = self.fetched | {rate.day for rate in newer}
        return ExchangeRates([*self.rows(), *newer], self.source, days)

    def rows(self) -> Iterator[EuroRate]:
        for currency, days in self._days.items():
            if currency == "EUR":
                continue
            for day, value in zip(days, self._values[currency], strict=True):
                yield EuroRate(day, currency, value)

    def _common_day(self, currency: str, on: date | None) -> date | None:
        days = self._days[currency]
        end = len(days) if on is None else bisect.bisect_right(days, on)
        return next((d for d in reversed(days[:end]) if d in self._usd_days), None)

    def _value(self, currency: str, day: date) -> float:
        days = self._days[currency]
        return self._values[currency][bisect.bisect_left(days, day)]


@dataclass(frozen=True)
class CheckedRates:
    """A fetched feed after :func:`check_fetched`: the rates to store, and the currencies
    held back, each with why."""

    kept: list[EuroRate]
    held: list[str]


def check_fetched(
    rates: Iterable[EuroRate], known: ExchangeRates, today: date, jump_factor: float
) -> CheckedRates:
    """A fetched feed checked as prices are (pricing/sanity.py) before anything is stored: a
    day after tomorrow (UTC) or a figure outside PER_EUR_RANGE refuses the whole feed (a
    FxError: the rates before stay); a currency whose newest figure moved more than
    ``jump_factor`` x either way from the newest one known is held back, and said."""
    rates = list(rates)
    for rate in rates:
        if rate.day > today + timedelta(days=1):
            raise FxError(f"{rate.currency} on {rate.day}: a rate dated in the future")
        low, high = PER_EUR_RANGE
        if not low <= rate.per_eur <= high:
            raise FxError(
                f"{rate.currency} on {rate.day}: {rate.per_eur:g} per euro, outside "
                f"{low:g}-{high:g}"
            )
    newest: dict[str, EuroRate] = {}
    for rate in rates:
        if rate.currency not in newest or rate.day > newest[rate.currency].day:
            newest[rate.currency] = rate
    held = {}
    for currency, rate in sorted(newest.items()):
        before = known.latest(currency)
        if before is not None and max(rate.per_eur / before, before / rate.per_eur) > jump_factor:
            held[currency] = (
                f"{currency}: {rate.per_eur:g} per euro on {rate.day} against {before:g} "
                f"before, more than {jump_factor:g} x: held back"
            )
    if BASE in held:  # every cross rate goes through the dollar: none can be trusted
        raise FxError(held[BASE])
    kept = [rate for rate in rates if rate.currency not in held]
    return CheckedRates(kept, list(held.values()))


def parse_history_csv(text: str) -> list[EuroRate]:
    """The ECB's ``eurofxref-hist.csv``: wide, newest first, ``N/A`` for no rate."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = [name.strip() for name in next(reader)]
    except StopIteration:
        raise FxError("an empty rate file") from None
    if not header or header[0] != "Date":
        raise FxError(f"not an ECB history file: its first column is {header[:1]}")
    currencies = [(i, c) for i, c in enumerate(header) if i and CODE.match(c)]
    rates = []
    for line in reader:
        if not line or not line[0].strip():
            continue
        day = _day(line[0])
        for i, currency in currencies:
            cell = line[i].strip() if i < len(line) else ""
            if cell and cell != "N/A":
                rates.append(EuroRate(day, currency, _number(cell, currency, day)))
    return rates


def parse_long_csv(text: str) -> list[EuroRate]:
    """The bundled copy (pricing/data/ecb_rates.csv): ``date,currency,per_eur`` a row."""
    rates = []
    for row in csv.DictReader(io.StringIO(text)):
        day = _day(row["date"])
        rates.append(EuroRate(day, row["currency"], _number(row["per_eur"], row["currency"], day)))
    return rates


def parse_xml(text: str | bytes) -> list[EuroRate]:
    """The ECB's XML feeds: ``<Cube time=...>`` days of ``<Cube currency= rate=>``."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise FxError(f"not an ECB rate feed: {exc}") from exc
    rates = []
    for cube in root.iter(_CUBE):
        when = cube.get("time")
        if when is None:
            continue
        day = _day(when)
        for item in cube.findall(_CUBE):
            currency, value = item.get("currency", ""), item.get("rate", "")
            if CODE.match(currency):
                rates.append(EuroRate(day, currency, _number(value, currency, day)))
    if not rates:
        raise FxError("the rate feed holds no rates")
    return rates


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError as exc:
        raise FxError(f"a rate's date {text!r} is not YYYY-MM-DD") from exc


def _number(text: str, currency: str, day: date) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise FxError(f"{currency} on {day}: {text!r} is not a rate") from exc
    if not value > 0 or value == float("inf"):
        raise FxError(f"{currency} on {day}: {text!r} is not a rate")
    return value


def bundled_rates() -> ExchangeRates:
    """The rates shipped with the service (pricing/data/ecb_rates.csv; its source and span
    in pricing/data/README.md): what answers convert with until a refresh brings newer."""
    text = (resources.files("pricing") / "data" / "ecb_rates.csv").read_text(encoding="utf-8")
    return ExchangeRates(parse_long_csv(text), f"{ECB_SOURCE} (bundled copy)")
