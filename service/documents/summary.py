"""One sentence an answer opens with, in the currency it was asked in: the verdict, the two
costs it weighs, and where buying pays off. A person reads it first; a tool that wants
figures reads the members it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pricing.dated import is_dated
from service.documents.money import Asked


def breakeven_summary(d: dict[str, Any]) -> str:
    """/breakeven's: which side wins, at what present cost against what, then the question
    as it was read (service/documents/question.py ``reading``)."""
    money = Asked(d)
    buy, rent = d["buy"], d["rent"][0]
    rental = f"{rent['name']} ({rent['pricing']})"
    own = d.get("own")
    if own is not None and own["gpu"] == d["gpu"]:
        return _keep_or_rent(d, money, own, rental)
    if d["verdict"] == "rent":
        head = (
            f"Rent: {rental} does the work for {_amount(money, rent, 'present_usd')}, against "
            f"{_amount(money, buy, 'present_usd')} to buy"
        )
    else:
        head = (
            f"Buy: the work costs {_amount(money, buy, 'present_usd')}, against "
            f"{_amount(money, rent, 'present_usd')} for the cheapest rental, {rental}"
        )
    tail = _payoff(d)
    price = _headline_price(d["rent"], lambda line: _amount(money, line, "present_usd"))
    spread = _spread_flip(d, money)
    owned = "" if own is None else _owned_paths(own, money)
    return (
        f"{head}{tail} (present values, {money.code}). {price}{owned}{spread}"
        f"The work: {d['work']['reading']}."
    )


def _owned_paths(own: dict[str, Any], money: Asked) -> str:
    """The owner's three paths (own=) in a sentence: an owner asks whether to upgrade, and
    the headline weighs buying the new card against renting, not keeping the old one."""
    paths = {path["name"]: path for path in own["paths"]}
    keep = paths["keep"]
    if keep["present_usd"] is None:
        kept = f"keeping your {own['gpu']} is no path: {keep['note']}"
    else:
        kept = (
            f"keeping your {own['gpu']} costs {_amount(money, keep, 'present_usd')} over "
            f"{figure(keep['wall_clock_hours'])} h of calendar time"
        )
    upgrade, rent = paths["upgrade"], paths["rent"]
    return (
        f"As its owner: {kept}, selling it to upgrade {_amount(money, upgrade, 'present_usd')}"
        f" over {figure(upgrade['wall_clock_hours'])} h, selling it to rent "
        f"{_amount(money, rent, 'present_usd')} over {figure(rent['wall_clock_hours'])} h; "
        f"the cheapest path is to {own['best']}. "
    )


def _spread_flip(d: dict[str, Any], money: Asked) -> str:
    """Where the job's hours, as far as the published runs spread (``cost_spread``), would
    turn the verdict: the end that does, in the same money."""
    spread = d.get("cost_spread")
    if not spread or not spread["flips"]:
        return ""
    said = []
    for end, words in (("fewer", "quick"), ("more", "slow")):
        at = spread[end]
        if at["verdict"] != d["verdict"]:
            side = "buying" if at["verdict"] == "buy" else "renting"
            said.append(
                f"at {figure(at['hours'])} h, as {words} as the published runs' spread allows, "
                f"{side} costs less ({_amount(money, at, 'buy_usd')} to buy, "
                f"{_amount(money, at, 'rent_usd')} to rent)"
            )
    return f"The verdict turns within the spread of the job's hours: {'; '.join(said)}. "


def _headline_price(rent: list[dict[str, Any]], cost: Callable[[dict[str, Any]], str]) -> str:
    """The headline rental's price date and confidence; where it is undated or of low
    confidence, the cheapest listed rental whose price is neither, at ``cost``, in the same
    sentence. /breakeven and /rank say it alike."""
    first = rent[0]
    if _sound(first):
        return f"Its price is of {first['price_as_of']}. "
    why = []
    if not is_dated(first["price_as_of"]):
        why.append(f"undated ({first['price_as_of']})")
    if first["confidence"] == "low":
        why.append("of low confidence")
    words = " and ".join(why)
    sound = next((line for line in rent if _sound(line)), None)
    if sound is None:
        return f"Its price is {words}, as are those of the {len(rent)} listed rentals. "
    return (
        f"Its price is {words}: the cheapest rental with a dated price is {sound['name']} "
        f"({sound['pricing']}, {sound['price_as_of']}) at {cost(sound)}. "
    )


def _sound(line: dict[str, Any]) -> bool:
    return sound_price(line["price_as_of"], line["confidence"])


def sound_price(price_as_of: str, confidence: str) -> bool:
    """A price one can sign: dated by its source, and not of low confidence."""
    return is_dated(price_as_of) and confidence != "low"


def _payoff(d: dict[str, Any]) -> str:
    """The answer's ``payoff`` case in words (documents/breakeven.py ``payoff_case``)."""
    be, life = d["breakeven"], d["assumptions"]["lifetime_years"]
    sets = d["buy"]["replacements"] + 1
    outlasts = f"; the work outlasts the cards' {life:g}-year life: {sets} sets of cards, one "
    words = {
        "after": lambda: f"; buying pays off after {figure(be['hours'])} h of such work",
        "not-within-life": lambda: (
            f"; buying does not pay off within the cards' {life:g}-year life"
        ),
        "never": lambda: "; buying never pays off against it",
        "outlasts-buy": lambda: outlasts + "bought as each life ends, cost less in all",
        "outlasts-rent": lambda: outlasts + "bought as each life ends, cost more in all",
        "committed": lambda: "; the rental's committed term is paid whole, more than buying",
        "this-work": lambda: "; buying costs less for this much work",
    }
    return words[d["payoff"]]()


def _keep_or_rent(d: dict[str, Any], money: Asked, own: dict[str, Any], rental: str) -> str:
    """The card asked about is the one owned: keep it or rent, nothing bought."""
    keep, rent = (next(p for p in own["paths"] if p["name"] == name) for name in ("keep", "rent"))
    card = own["gpu"]
    if keep["present_usd"] is None:
        cost = _amount(money, rent, "present_usd")
        head = f"Rent: {rental} does the work for {cost}; {keep['note']}"
    elif own["best"] == "keep":
        head = (
            f"Keep your {card}: the work costs {_amount(money, keep, 'present_usd')} on it "
            f"(power, site and the value it loses), against {_amount(money, rent, 'present_usd')} "
            f"for the cheapest rental, {rental}"
        )
    else:
        head = (
            f"Rent: {rental} does the work for {_amount(money, rent, 'present_usd')}, against "
            f"{_amount(money, keep, 'present_usd')} to keep doing it on your {card}"
        )
    return f"{head} (present values, {money.code}). The work: {d['work']['reading']}."


def rank_summary(d: dict[str, Any]) -> str:
    """/rank's: the first card for the money (as many as the work buys of it), and the
    cheapest rental for the same work, then the question as it was read."""
    cards = d["cards"]
    if not cards:
        return "No card for sale fits the question (its memory, platforms and precision)."
    first = cards[0]
    card = first["id"] if first["cards"] == 1 else f"{first['cards']} x {first['id']}"
    work = d.get("work")
    reading = "" if work is None else f" The work: {work['reading']}."
    money = Asked(d)  # one currency in the sentence: the one asked
    if d["ranked_by"] == "reference_hours_per_usd":
        per = money(first, "reference_hours_per_usd")
        figure = (
            "owning it costs nothing over the work"
            if per is None
            else f"{per:.3g} h of {d['gpu']} work per {money.code}"
        )
        best = (
            f"{card} ({first['platform']}) gives the most work per {money.code} of owning it: "
            f"{figure}"
        )
    else:
        best = (
            f"{card} ({first['platform']}) gives the most {d['workload']} throughput "
            f"per {money.code} of its price"
        )
    if not d["rent"]:
        return f"{best}; no rental does the same work.{reading}"

    def per_hour(line: dict[str, Any]) -> str:
        cost = _amount(money, line, "usd_per_reference_hour", digits=4)
        return f"{cost} per hour of {d['gpu']} work"

    rent = d["rent"][0]
    price = _headline_price(d["rent"], per_hour).rstrip()
    return (
        f"{best}; the cheapest rental is {rent['name']} ({rent['pricing']}) at "
        f"{per_hour(rent)}. {price}{reading}"
    )


def _amount(money: Asked, holder: dict[str, Any], key: str, digits: int = 2) -> str:
    return f"{money(holder, key):,.{digits}f} {money.code}"


def figure(amount: float) -> str:
    """A count of hours or days as a person writes it: 12,000; 107.8; 0.25 (never "0")."""
    if amount >= 100:
        return f"{amount:,.0f}"
    if amount >= 1:
        return f"{amount:.1f}"
    return f"{amount:.2g}"
