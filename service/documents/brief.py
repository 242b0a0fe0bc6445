"""The answer a person reads (`detail=compact`, /breakeven's default): a few KB.

The full answer (`detail=full`) carries everything the engine knows: every listed rental
with its notes and source, each tier's best in full, the assumptions, the curves, the work's
derivation. At a terminal nobody reads 32 KB, so the default is the answer itself: the
sentence and verdict, the question as read, the buy side's total and its parts, the three
cheapest rentals, one line per tier, the same card rented, what a gate left out, the
crossing, currency and freshness. Every name in it is the full answer's, so a client that
needs more asks `detail=full` and reads the same fields.

Money is given to the cent and hours to a tenth (the figures a person signs), in dollars and,
where a currency was asked, in it too (`total_usd`, `total_eur`). Each rental names its
price's source by `source_ref` into the answer's `sources`: no figure without its origin.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from pricing.tiers import TERM_NAMES
from service.documents.money import sibling

RENT_LINES = 3  # the cheapest rentals shown; detail=full lists the question's `top`
HOURS = re.compile(r"(^|_)(hours|days)$")
# The rental fields a person reads: the offer as its provider sells it (`name`: count x card,
# provider, where), its tier, the price with its date and confidence, the hours and
# instances, the total and its present value (what the verdict compares).
RENT_FIELDS = (
    "name",
    "pricing",
    "usd_per_hour",
    "price_as_of",
    "confidence",
    "instances",
    "wall_clock_hours",
    "total_usd",
    "present_usd",
)
BUY_PARTS = ("purchase_usd", "replacement_usd", "host_usd", "network_usd", "energy_usd")
BUY_PARTS += ("site_usd", "resale_usd")
ASKED_PARTS = ("own", "sensitivity", "ranges", "cost_spread")  # own=, sensitivity=, a job's spread
FULL = "detail=full adds every listed rental, the assumptions, the curves, the work's derivation"


def brief(
    document: dict[str, Any], currency: str = "USD", listed: int | None = None
) -> dict[str, Any]:
    """The compact answer from the full one (before its per-request `prices` and `fx`),
    whose amounts are in dollars and, where asked, in ``currency``. ``listed``: the rentals
    the full answer lists, where ``document`` renders only the first few (None: all)."""
    sources: list[str] = []
    code = currency.lower()

    def source_ref(line: dict[str, Any]) -> int:
        text = line["source"]
        if text not in sources:
            sources.append(text)
        return sources.index(text)

    def rental(line: dict[str, Any] | None) -> dict[str, Any] | None:
        if line is None:
            return None
        kept = _fields(line, RENT_FIELDS, code)
        kept["source_ref"] = source_ref(line)
        return kept

    buy, deadline, work = document["buy"], document["deadline"], document["work"]
    same = document["same_card"]
    left = document["left_out"]
    breakeven = document["breakeven"]
    answer = {
        "summary": document["summary"],
        "verdict": document["verdict"],
        "question": {
            "gpu": document["gpu"],
            "gpus": buy["gpus"],
            "hours": _figure(document["hours"], "hours", code),
            "workload": document["workload"],
            "reading": work["reading"],
            "deadline_hours": _figure(deadline["hours"], "deadline_hours", code),
            "deadline_days": _figure(deadline["days"], "deadline_days", code),
            "pricing": document["compared_with"]["pricing"],
            "site": buy["site"],
        },
        "buy": {
            "gpus": buy["gpus"],
            "system": buy["system"],
            **_fields(buy, ("wall_clock_hours", "total_usd", "present_usd"), code),
            "parts": _fields(buy, BUY_PARTS, code),
        },
        "rent": [rental(line) for line in document["rent"][:RENT_LINES]],
        "listed": len(document["rent"]) if listed is None else listed,
        "candidates": document["candidates"],
        **_tiers(document, code),
        "same_card": (
            None if same is None else {"offers": same["offers"], **(rental(same["cheapest"]))}
        ),
        "left_out": (
            None
            if left is None
            else {
                "platforms": left["platforms"],
                "offers": left["offers"],
                "best": rental(left["best"]),
            }
        ),
        "memory_gate": _fields(document["memory_gate"], ("per_accelerator_gb", "removed"), code),
        **_fields(document, ("savings_usd",), code),
        "breakeven": (
            None
            if breakeven is None
            else _fields(breakeven, ("hours", "days", "within_life", "crossing_hours"), code)
        ),
        "payoff": document["payoff"],
        "never_because": (
            None if document["never_because"] is None else document["never_because"]["reason"]
        ),
        # what the question asked for by name comes as the full answer gives it
        **{
            key: _rounded(document[key], code, key)
            for key in ASKED_PARTS
            if document.get(key) is not None
        },
        "sources": sources,
        "detail": FULL,
    }
    return answer


def _tiers(document: dict[str, Any], code: str) -> dict[str, Any]:
    """A line per hourly tier and one committed term: the cheapest in present value, and the
    one the headline compares with where that is another. Seven terms from a month to five
    years would otherwise be most of the answer; ``other_terms`` names those left out (each
    with an offer) for ``detail=full``, which gives every tier."""
    tiers = document["tiers"]
    headline = document["compared_with"]["tier"]
    terms = [t for t in tiers if t["tier"] in TERM_NAMES and t["best"] is not None]
    cheapest = min(terms, key=lambda t: t["present_usd"], default=None)
    kept = {headline} | ({cheapest["tier"]} if cheapest is not None else set())
    shown = [t for t in tiers if t["tier"] not in TERM_NAMES or t["tier"] in kept]
    return {
        "tiers": [_tier(tier, code) for tier in shown],
        "other_terms": [t["tier"] for t in terms if t["tier"] not in kept],
    }


def _tier(tier: dict[str, Any], code: str) -> dict[str, Any]:
    """A pricing tier's best offer in a line: its name, hours and totals (the tier's, which
    are its best's), and its verdict."""
    line = {"tier": tier["tier"], "verdict": tier["verdict"]}
    best = tier["best"]
    if best is not None:
        line["name"] = best["name"]
        line.update(_fields(tier, ("wall_clock_hours", "total_usd", "present_usd"), code))
    return line


def _fields(holder: dict[str, Any], names: tuple[str, ...], code: str) -> dict[str, Any]:
    """``names`` from ``holder``, rounded (:func:`_figure`), each amount with its sibling in
    the currency asked (``code``: total_usd, total_eur)."""
    kept = {}
    for name, digits, local, local_digits in _picking(names, code):
        kept[name] = _to(holder[name], digits)
        if local is not None and local in holder:
            kept[local] = _to(holder[local], local_digits)
    return kept


def _to(value: Any, digits: int | None) -> Any:
    """``value`` to ``digits`` decimals where it is a float (None: all of them)."""
    return round(value, digits) if digits is not None and isinstance(value, float) else value


@functools.lru_cache(maxsize=256)
def _picking(
    names: tuple[str, ...], code: str
) -> tuple[tuple[str, int | None, str | None, int | None], ...]:
    """How :func:`_fields` picks ``names``: each with its decimals (:func:`_digits`), its
    sibling in ``code`` (None: not an amount, or dollars asked) and the sibling's decimals;
    worked out once per set of names, not per figure."""
    picked = []
    for name in names:
        local: str | None = sibling(name, code)
        local = None if local == name else local
        local_digits = None if local is None else _digits(local, code)
        picked.append((name, _digits(name, code), local, local_digits))
    return tuple(picked)


def _rounded(value: Any, code: str, key: str = "") -> Any:
    """:func:`_figure` through a part of the full answer given whole (``own=``)."""
    if isinstance(value, dict):  # a text, a count or a flag is kept as it is, uncalled
        return {k: _rounded(v, code, k) if isinstance(v, _WALKED) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(item, code, key) if isinstance(item, _WALKED) else item for item in value]
    return _figure(value, key, code)


def _figure(value: Any, key: str, code: str) -> Any:
    """A float under ``key`` rounded by its name: money (in dollars or ``code``) to the cent,
    hours and days to a tenth; a price per hour keeps four decimals (a cent is a quarter of
    some rates). Each figure is rounded as the answer picks it, not in a walk of it after."""
    return value if not isinstance(value, float) else _to(value, _digits(key, code))


_WALKED = (dict, list, float)  # what _rounded looks into or rounds


@functools.lru_cache(maxsize=1024)
def _digits(key: str, code: str) -> int | None:
    """The decimals a float under ``key`` keeps (None: all), by its name: an answer has a
    few dozen names, each read once, not once per figure."""
    if "per_hour" in key:
        return 4
    if re.search(rf"(^|_)(usd|{re.escape(code)})(_|$)", key):
        return 2
    if HOURS.search(key):
        return 1
    return None
