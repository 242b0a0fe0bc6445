"""Answers in the asker's currency (`currency=`): money in, money out, at a dated rate.

Every price is kept, and every cost worked out, in US dollars; a question in another
currency is converted at the edges. Going in, the amounts the question states (a card's
price, a budget, the electricity tariff, a host's cost ...) are divided by the rate into
dollars. Coming out, every amount of the answer whose name says ``usd`` gets a sibling
named for the currency (``total_usd`` -> ``total_cny``, ``usd_per_hour`` ->
``cny_per_hour``, ``reference_hours_per_usd`` -> ``reference_hours_per_cny``): the dollar
figures stay, so no client that reads them is misled. The ``fx`` block says which rate,
from which day and source, and how old it is; the summary is in it, the other sentences
stay in dollars, and the note says so.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, date, datetime
from typing import Any

from pricing.fx import BASE, USD, FxError, Rate
from service.documents.errors import InvalidQuestion
from service.engine.assumptions import BOUND_SIGNS, MAX_USD, MONEY_ASSUMPTIONS, bounds
from service.engine.request import QUESTION_BOUNDS
from service.runtime import Rates

# Amounts a question may state beside the assumptions: a card's price, a budget.
MONEY_INPUTS = ("price", "budget", *MONEY_ASSUMPTIONS)
_USD = re.compile(r"(^|_)usd(_|$)")
_PER_USD = re.compile(r"per_(1000_)?usd$")  # the dollar is the denominator: divide


def asked_rate(rates: Rates, currency: str | None, on: date | None = None) -> Rate | None:
    """The rate a question's ``currency`` asks for (None: dollars, nothing to convert)."""
    if currency is None or currency == BASE:
        return None
    try:
        return rates.rate(currency, on)
    except FxError as exc:
        raise InvalidQuestion("currency", str(exc)) from exc


def in_dollars(query: Any, rate: Rate | None) -> Any:
    """The query with the amounts it states in ``rate``'s currency turned into dollars. The
    bounds are in dollars, checked here for every currency, the dollar too: the parser lets
    amounts through up to CURRENCY_SPAN times them (a server priced in won), and one within
    them in its own currency can fall outside once converted (90 million EUR of host): a
    400 naming it, never a failure inside."""
    rate = rate or USD
    given = {name: amount / rate.per_usd for name, amount in _stated(query).items()}
    for name, usd in given.items():
        for kind, limit in _dollar_bounds(name).items():
            if not _HOLDS[kind](usd, limit):
                converted = (
                    ""
                    if rate is USD
                    else f" is {usd:,.6g} USD at {rate.per_usd:.6g} {rate.currency} per USD "
                    f"({rate.day}),"
                )
                raise InvalidQuestion(
                    name,
                    f"{getattr(query, name):g} {rate.currency}{converted} past its bound in "
                    f"dollars ({BOUND_SIGNS[kind]} {limit:,})",
                )
    if rate is USD:
        return query
    return query.model_copy(update=given) if given else query


def _stated(query: Any) -> dict[str, float]:
    """The amounts of money the question states, in its own currency."""
    fields = type(query).model_fields
    return {
        name: getattr(query, name)
        for name in MONEY_INPUTS
        if name in fields and getattr(query, name) is not None
    }


def _dollar_bounds(name: str) -> dict[str, float]:
    """A money input's bounds in dollars: an assumption's own (service/engine/assumptions.py),
    a price's (service/engine/request.py), a budget's."""
    if name in MONEY_ASSUMPTIONS:
        return bounds(name)
    return QUESTION_BOUNDS["price"] if name == "price" else {"gt": 0, "le": MAX_USD}


_HOLDS = {
    "gt": lambda value, limit: value > limit,
    "ge": lambda value, limit: value >= limit,
    "lt": lambda value, limit: value < limit,
    "le": lambda value, limit: value <= limit,
}


def fx_document(
    query: Any, rate: Rate | None, stale_after_days: float, today: date | None = None
) -> dict[str, Any]:
    """The answer's ``fx`` block: the rate, its day, source and age, and what it turned."""
    if rate is None:
        return {
            "currency": BASE,
            "per_usd": 1.0,
            "as_of": None,
            "age_days": None,
            "stale": False,
            "source": "no conversion: every price is kept in US dollars",
            "inputs": {},
            "note": "amounts in US dollars; ask currency= (ISO 4217) for another",
        }
    today = today or datetime.now(UTC).date()
    age = rate.age_days(today)
    inputs = {
        name: {"given": amount, "usd": amount / rate.per_usd}
        for name, amount in _stated(query).items()
    }
    stale = age > stale_after_days
    old = f"; the rate is {age} days old (STALE: no newer rate has been fetched)" if stale else ""
    code = rate.currency.lower()
    return {
        "currency": rate.currency,
        "per_usd": rate.per_usd,
        "as_of": rate.day.isoformat(),
        "age_days": age,
        "stale": stale,
        "source": rate.source,
        "inputs": inputs,
        "note": (
            f"1 USD = {rate.per_usd:.6g} {rate.currency} ({rate.day}); amounts you stated in "
            f"{rate.currency} were turned into dollars at it, every amount named usd has a "
            f"{code} sibling, and the summary is in {rate.currency}; the other sentences "
            f"(sensitivity, notes) stay in dollars{old}"
        ),
    }


def with_currency(document: Any, rate: Rate | None) -> Any:
    """``document`` with a sibling in ``rate``'s currency for every amount named ``usd``."""
    if rate is None:
        return document
    code = rate.currency.lower()
    return _convert(document, rate.per_usd, code)


@functools.lru_cache(maxsize=4096)
def sibling(key: str, currency: str) -> str:
    """The name of a dollar amount's sibling in ``currency``: total_usd -> total_cny.
    Remembered: an answer has a few dozen names, each asked for every figure."""
    code = currency.lower()
    return _USD.sub(lambda m: f"{m[1]}{code}{m[2]}", key)


class Asked:
    """An answer's amounts in the currency it was asked in: each dollar amount's sibling
    (total_usd -> total_cny), the dollars where no other currency was asked."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.code: str = (document.get("fx") or {}).get("currency") or BASE

    def __call__(self, holder: dict[str, Any], key: str) -> Any:
        return holder[key] if self.code == BASE else holder[sibling(key, self.code)]


def _convert(value: Any, per_usd: float, code: str) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out[key] = _convert(item, per_usd, code)
            if isinstance(key, str) and _USD.search(key):
                converted = _amount(item, per_usd, dividing=bool(_PER_USD.search(key)))
                if converted is not _SKIP:
                    out[sibling(key, code)] = converted
        return out
    if isinstance(value, list):
        return [_convert(item, per_usd, code) for item in value]
    return value


_SKIP = object()


def _amount(value: Any, per_usd: float, dividing: bool) -> Any:
    if value is None:
        return None  # an amount not known in dollars is not known in any currency
    if isinstance(value, bool):
        return _SKIP
    if isinstance(value, int | float):
        return value / per_usd if dividing else value * per_usd
    if isinstance(value, list) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        return [v / per_usd if dividing else v * per_usd for v in value]
    return _SKIP
