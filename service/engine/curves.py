"""Cost against time, as the dashboard draws it: both sides' costs sampled by the engine.

A chart that draws its own buy curve carries a copy of the cost model, and the copy drifts
(the dashboard's left out the site, the discount and every replacement set). So the answer
carries the curves: owning's present value (BuyModel.cost, replacements as steps) and each
listed rental's at the rate its break-even is solved with, paid on the bought cards'
calendar, as :func:`service.engine.costs.crossing_hours` weighs them. The work asked and the
break-even are sample points, so the marker lies on both curves exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.breakeven import Quote
from service.engine.hours import HOURS_PER_DAY

STEPS = 40  # samples between no work and the chart's end, besides the points that matter
RENTALS = 3  # the cheapest rentals drawn beside buying
PAST_WORK, PAST_CROSSING = 1.2, 1.15  # how far past the work and the crossing the chart runs


@dataclass(frozen=True)
class Curve:
    name: str  # the side: "buy", or the rental's offer name
    usd: tuple[float, ...]  # present value at each of Curves.hours


@dataclass(frozen=True)
class Curves:
    hours: tuple[float, ...]  # reference-card hours of work, ascending
    days: tuple[float, ...]  # the same on the bought cards' calendar, where both sides pay
    buy: Curve
    rent: tuple[Curve, ...]
    breakeven_hours: float | None  # a sample point where buy and the first rental meet


def cost_curves(quote: Quote, names: list[str]) -> Curves:
    """``quote``'s sides over work from none to past the work and the crossing; ``names``:
    the listed rentals' names, in order."""
    model, work = quote.buy_model, quote.request.hours
    crossing = quote.breakeven_hours
    within = crossing is not None and crossing <= quote.life_hours
    last = max(work * PAST_WORK, crossing * PAST_CROSSING if within else 0.0)
    marks = {work, *([crossing] if within else [])}
    hours = tuple(sorted({last * i / STEPS for i in range(STEPS + 1)} | marks))
    days = tuple(h * model.calendar_per_hour / HOURS_PER_DAY for h in hours)
    rent = tuple(
        Curve(name, tuple(model.paid_as_worked(option.crossing_rate, h) for h in hours))
        for option, name in zip(quote.rent[:RENTALS], names, strict=False)
    )
    buy = Curve("buy", tuple(model.cost(h) for h in hours))
    return Curves(hours, days, buy, rent, crossing if within else None)
