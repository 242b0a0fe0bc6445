"""What would have to be true: where each input flips the verdict, and how far the answer
swings when it moves (a tornado).

Each figure prices the same question again with one input changed, on the quote's
shortlist: the offers that can be cheapest whatever the hours or assumptions, so a change
can hand the win to another rental, as a full re-quote would. The flips are solved in
closed form where the cost is linear in the input (electricity, PUE, purchase price,
resale, rental prices) or nearly so (utilization: resale decays with calendar time; hours:
the break-even crossing), and by bisection for the spot overhead, which changes which
rental is cheapest. The useful life moves no verdict: it decides whether the break-even
falls within it, and the answer says from how many years on it does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from service.engine.assumptions import MIN_UTILIZATION, Assumptions, bounds
from service.engine.breakeven import Quote
from service.engine.cheapest import cheapest
from service.engine.costs import (
    HOURS_PER_YEAR,
    NO_LIMITS,
    BuyModel,
    Limits,
    PayClock,
    Rentals,
    buy_model,
    calendar_hours,
    crossing,
    crossing_rates,
    verdict,
)
from service.engine.offer_table import OfferTable
from service.engine.request import QUESTION_BOUNDS

# The inputs whose flip and swing the answer gives, in the order it lists them.
PARAMETERS = (
    "utilization",
    "electricity",
    "price",
    "rent_factor",
    "hours",
    "lifetime_years",
    "resale",
    "spot_overhead",
    "pue",
)
# Each input's tornado step: ("add", d) moves it by -d and +d; ("times", f) divides and
# multiplies it by f. Stated in the answer; values are clipped to the input's bounds.
STEPS: dict[str, tuple[str, float]] = {
    "utilization": ("add", 0.2),
    "electricity": ("times", 1.5),
    "price": ("times", 1.25),
    "rent_factor": ("times", 1.25),
    "hours": ("times", 2.0),
    "lifetime_years": ("add", 1.0),
    "resale": ("add", 0.25),
    "spot_overhead": ("add", 0.1),
    "pue": ("add", 0.25),
}
BISECTION_STEPS = 60  # halves the spot overhead's bracket to 1e-18 of its width


@dataclass(frozen=True)
class Case:
    """One question's buy and rent sides as numbers, ready to be priced with any input."""

    price: float  # per card
    watts: float
    cards: int
    local_speed: float  # reference-card hours the bought cards do per busy hour
    hours: float
    assumptions: Assumptions  # with the defaults from data filled in
    rent_factor: float
    rentals: Rentals  # the offers the quote costed: those that can be cheapest
    session_hours: float | None
    # the quote's memory and instances, and its deadline where given; a deadline the quote
    # took from the bought cards' calendar time moves with it, so both sides still finish
    # together when hours or utilization move (like for like)
    limits: Limits = NO_LIMITS
    deadline_given: bool = True
    nodes: int = 1  # the hosts or systems the cards fill
    # the cheapest rental at rent_factor 1 (its present value, and its cost per hour of work
    # for the crossing), by the inputs it depends on: most what-ifs move only the buy side,
    # so a question prices its rentals a handful of times, not once per input
    _rents: dict[tuple[object, ...], tuple[float, float]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def value(self, name: str) -> float:
        if name in ("price", "hours", "rent_factor"):
            return float(getattr(self, name))
        return float(getattr(self.assumptions, name))

    def moved(self, name: str, value: float) -> Case:
        if name in ("price", "hours", "rent_factor"):
            return replace(self, **{name: value})
        return replace(self, assumptions=replace(self.assumptions, **{name: value}))

    def buy_model(self) -> BuyModel:
        return buy_model(
            self.price, self.watts, self.cards, self.local_speed, self.assumptions, self.nodes
        )

    def buy(self) -> float:
        """Owning's present value for the work."""
        return self.buy_model().cost(self.hours)

    def rent(self) -> float:
        """The cheapest rental's present value for the work (JobCost.present_usd)."""
        return self._cheapest()[0] * self.rent_factor

    def rent_rate(self) -> float:
        """The cheapest rental's cost per hour of work, as its crossing is solved with."""
        return self._cheapest()[1] * self.rent_factor

    def _cheapest(self) -> tuple[float, float]:
        a, clock = self.assumptions, self.buy_model().clock
        key = (self.hours, a.spot_overhead, a.restart_hours, a.utilization, clock)
        if key not in self._rents:
            self._rents[key] = self._priced(clock)
        return self._rents[key]

    def _priced(self, clock: PayClock) -> tuple[float, float]:
        limits = replace(self.limits, clock=clock)
        if not self.deadline_given:
            calendar = calendar_hours(self.hours, self.local_speed, self.assumptions.utilization)
            limits = replace(limits, deadline_hours=calendar)
        job = self.rentals.job(self.hours, self.assumptions, 1.0, self.session_hours, limits)
        found = cheapest(np.arange(job.present_usd.size), job, 1)
        if not found.size:  # moved past what any rental can do (an overhead no cluster
            return math.inf, math.inf  # outruns): renting is no option, buying wins
        best = int(found[0])
        rate = crossing_rates(job.take([best]), self.hours, self.rentals.term_hours[[best]])
        return float(job.present_usd[best]), float(rate[0])


@dataclass(frozen=True)
class Swing:
    """The answer with one input moved by its step."""

    value: float
    verdict: str  # buy or rent
    savings_usd: float | None  # what the winner saves; None: no rental can do the work
    breakeven_hours: float | None  # against the cheapest rental; None: never


@dataclass(frozen=True)
class Flip:
    parameter: str
    value: float  # the question's
    bounds: tuple[float, float]
    flip: float | None  # where the verdict turns; None: it does not within the bounds
    buy_wins: str  # "above" or "below" the flip (or "never", "always": no flip)
    step: str  # the tornado's step, as stated
    low: Swing
    high: Swing
    note: str = ""  # the answer's note on a flip that is absent (null)
    said: str = ""  # the part of the note a person's sentence gives: the solver's own reason


def case_verdict(case: Case) -> tuple[str, float, float]:
    """(verdict, buy total, rent total)."""
    buy, rent = case.buy(), case.rent()
    return verdict(buy, rent), buy, rent


def sensitivity(case: Case, parameters: tuple[str, ...] = PARAMETERS) -> list[Flip]:
    return [_flip(case, name) for name in parameters]


def _flip(case: Case, name: str) -> Flip:
    bounds = _bounds(name)
    low, high = _steps(case, name, bounds)
    flip, note = SOLVERS[name](case)
    said = note  # a solver's own reason (the life's) is worth a sentence
    if flip is not None and not bounds[0] <= flip <= bounds[1]:
        # the costs cross only where no question can go (a negative utilization): a note for
        # the API; a person reads "whatever ..., from ... to ..." and no such number
        note = (
            f"the verdict would turn at {flip:.6g}, outside the values a question may give "
            f"({bounds[0]:,.10g} to {bounds[1]:,.10g})"
        )
        flip, said = None, ""
    if flip is None and not note:
        note = f"no value from {bounds[0]:,.10g} to {bounds[1]:,.10g} turns it"
    buy_wins = _side(case, name, flip, bounds)
    value, step = case.value(name), _step_text(name)
    return Flip(name, value, bounds, flip, buy_wins, step, low, high, note, said)


def _bounds(name: str) -> tuple[float, float]:
    """The values a question may give ``name``: the sensitivity search stays within them."""
    found = QUESTION_BOUNDS[name] if name in QUESTION_BOUNDS else bounds(name)
    low = found.get("ge", found.get("gt", 0.0))
    return float(low), float(found.get("le", found.get("lt", 1e9)))


def _steps(case: Case, name: str, bounds: tuple[float, float]) -> tuple[Swing, Swing]:
    kind, size = STEPS[name]
    value = case.value(name)
    down, up = (value - size, value + size) if kind == "add" else (value / size, value * size)
    low, high = (min(max(v, bounds[0]), bounds[1]) for v in (down, up))
    return _swing(case, name, low), _swing(case, name, high)


def _swing(case: Case, name: str, value: float) -> Swing:
    moved = case.moved(name, value)
    side, buy, rent = case_verdict(moved)
    savings = None if math.isinf(rent) else abs(rent - buy)  # no rental: buying, or nothing
    return Swing(value, side, savings, crossing(moved.buy_model(), moved.rent_rate()))


def _step_text(name: str) -> str:
    kind, size = STEPS[name]
    return f"-{size:g} / +{size:g}" if kind == "add" else f"/{size:g} / x{size:g}"


def _side(case: Case, name: str, flip: float | None, bounds: tuple[float, float]) -> str:
    """Where buying wins: above or below the flip; always or never without one."""
    now, _, _ = case_verdict(case)
    if flip is None:
        return "always" if now == "buy" else "never"
    probe = flip + (bounds[1] - flip) * 1e-3 if flip < bounds[1] else flip
    above, _, _ = case_verdict(case.moved(name, probe))
    return "above" if above == "buy" else "below"


# -- the solvers: each input's flip, or None and why ----------------------------------------


# Why an input whose cost is linear cannot move the verdict, where it cannot.
STILL = {
    "electricity": "energy costs nothing at electricity={value:g}: it cannot move the verdict",
    "pue": "energy costs nothing at pue={value:g}: it cannot move the verdict",
    "price": "the card resells for what it cost: its price cannot move the verdict",
    "resale": "nothing resold after the work: resale cannot move the verdict",
}


def _linear(name: str) -> Callable[[Case], tuple[float | None, str]]:
    """An input the buy side's present value is linear in, the rent side not at all
    (electricity, PUE, the price paid: its support and resale move with it, and the resale
    share): the flip is where the line through two prices of it meets the rent."""

    def solve(case: Case) -> tuple[float | None, str]:
        value = case.value(name)
        buy, rent = case.buy(), case.rent()
        low, high = _bounds(name)
        step = (high - low) / 2  # a probe within the bounds: the line is the same anywhere
        probe = value + step if value + step <= high else value - step
        slope = (case.moved(name, probe).buy() - buy) / (probe - value)
        if abs(slope) <= 1e-12 * max(abs(buy), 1.0):
            return None, STILL[name].format(value=value)
        return value + (rent - buy) / slope, ""

    return solve


def _utilization(case: Case) -> tuple[float | None, str]:
    """Utilization moves the resale's decay, the site's costs per hour of work, the
    discounting and the rentals' deadline at once: bisection between its bounds, where the
    verdict differs at the two."""
    low, high = _bounds("utilization")
    low = max(low, MIN_UTILIZATION)

    def buy_wins(value: float) -> bool:
        moved = case.moved("utilization", value)
        return moved.buy() < moved.rent()

    if buy_wins(low) == buy_wins(high):
        return None, "no utilization within its bounds turns the verdict"
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        if buy_wins(middle) == buy_wins(high):
            high = middle
        else:
            low = middle
    return high, ""


def _hours(case: Case) -> tuple[float | None, str]:
    hours = crossing(case.buy_model(), case.rent_rate())
    if hours is None:
        return None, "renting costs less per hour than the cards' electricity: never"
    return hours, ""


def _rent_factor(case: Case) -> tuple[float | None, str]:
    buy, rent = case.buy(), case.rent()
    return buy / (rent / case.rent_factor), ""


def _spot_overhead(case: Case) -> tuple[float | None, str]:
    """Rentals only get dearer as the overhead grows. Without session restarts the rent is
    min(the others' cheapest, A x (1 + overhead)), A the cheapest assumed-overhead offer's
    cost at none: buying starts to win where A x (1 + overhead) = buy, if the others cost
    more than buying. With restarts (Colab), bisection."""
    rentals = case.rentals
    unbanded = rentals.interruptible & np.isnan(rentals.band_overhead)
    if not unbanded.any():
        return None, "no rental here pays the assumed spot overhead"
    low, high = _bounds("spot_overhead")
    buy = case.buy()
    closed = case.limits.total_memory_gb is None and not math.isfinite(case.limits.deadline_hours)
    if closed and (case.session_hours is None or not (unbanded & rentals.session_bound).any()):
        # at no assumed overhead: the banded and on-demand offers' costs are final, the
        # assumed-overhead offers' grow as A x (1 + overhead)
        limits = replace(case.limits, clock=case.buy_model().clock)
        none = replace(case.assumptions, spot_overhead=0.0)
        job = rentals.job(case.hours, none, case.rent_factor, case.session_hours, limits)
        base = job.present_usd  # on one instance, no deadline: linear in 1 + overhead
        others = base[~unbanded]
        if others.size and float(np.min(others)) <= buy:
            return None, "a rental without the assumed overhead costs less than buying"
        cheapest = float(np.min(base[unbanded]))
        return buy / cheapest - 1.0, ""

    def buy_wins(value: float) -> bool:
        return buy < case.moved("spot_overhead", value).rent()

    if buy_wins(low) == buy_wins(high):
        return None, ""
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        low, high = (low, middle) if buy_wins(middle) else (middle, high)
    return high, ""


def _lifetime(case: Case) -> tuple[float | None, str]:
    hours = crossing(case.buy_model(), case.rent_rate())
    note = "the verdict for this work does not depend on the useful life"
    if hours is not None:
        a = case.assumptions
        years = hours / case.local_speed / (a.utilization * HOURS_PER_YEAR)
        note += f"; the break-even falls within it from {years:.3g} years on"
    return None, note


SOLVERS: dict[str, Callable[[Case], tuple[float | None, str]]] = {
    "utilization": _utilization,
    "electricity": _linear("electricity"),
    "price": _linear("price"),
    "rent_factor": _rent_factor,
    "hours": _hours,
    "lifetime_years": _lifetime,
    "resale": _linear("resale"),
    "spot_overhead": _spot_overhead,
    "pue": _linear("pue"),
}


# -- from a quote, and in words ---------------------------------------------------------------


def case_of(quote: Quote, table: OfferTable) -> Case:
    """The quote's question as a Case: its buy side and its shortlist's rentals."""
    priced, request = quote.priced, quote.request
    if priced is None:
        raise ValueError("a quote without its priced numbers cannot be priced again")
    return Case(
        price=priced.price_usd,
        watts=priced.watts,
        cards=request.gpus,
        local_speed=priced.local_speed,
        hours=request.hours,
        assumptions=quote.assumptions,
        rent_factor=request.rent_factor,
        rentals=Rentals.of(table, priced.shortlist, priced.reference_speed, request.speed_key),
        session_hours=request.session_hours,
        limits=priced.limits,
        deadline_given=quote.deadline_given,
        nodes=quote.buy.nodes,
    )


# How each input reads in a sentence: its subject, and its values as a person writes them.
PHRASES: dict[str, tuple[str, Callable[[float], str]]] = {
    "utilization": ("the cards train", lambda v: f"{v:.0%} of the time"),
    "electricity": ("power costs", lambda v: f"{v:.3g} USD/kWh"),
    "price": ("a card costs", lambda v: f"{v:,.0f} USD"),
    "rent_factor": ("rentals cost", lambda v: f"{v:.2f} x today's prices"),
    "hours": ("the work is", lambda v: f"{v:,.0f} h on one card"),
    "lifetime_years": ("the cards last", lambda v: f"{v:g} years"),
    "resale": ("the cards resell for", lambda v: f"{v:.0%} of their price"),
    "spot_overhead": ("interruptions cost", lambda v: f"{v:.1%} more work on spot offers"),
    "pue": ("the PUE is", lambda v: f"{v:.2f}"),
}


# The same values to more digits, where the usual ones would show a flip and the question's
# value alike ("more than 1.00 x today's prices (now 1.00 x today's prices)").
FINER: dict[str, Callable[[float], str]] = {
    "utilization": lambda v: f"{v:.2%} of the time",
    "electricity": lambda v: f"{v:.5g} USD/kWh",
    "price": lambda v: f"{v:,.2f} USD",
    "rent_factor": lambda v: f"{v:.4f} x today's prices",
    "hours": lambda v: f"{v:,.1f} h on one card",
    "lifetime_years": lambda v: f"{v:.4g} years",
    "resale": lambda v: f"{v:.2%} of their price",
    "spot_overhead": lambda v: f"{v:.3%} more work on spot offers",
    "pue": lambda v: f"{v:.4f}",
}


def sentence(flip: Flip) -> str:
    subject, show = PHRASES[flip.parameter]
    if flip.flip is not None and show(flip.flip) == show(flip.value):
        show = FINER[flip.parameter]  # a flip this close is told apart, or it says nothing
    now = f"now {show(flip.value)}"
    if flip.flip is not None:
        side = "more" if flip.buy_wins == "above" else "less"
        return f"Buying wins if {subject} {side} than {show(flip.flip)} ({now})."
    low, high = flip.bounds
    winner = "Buying wins" if flip.buy_wins == "always" else "Renting wins"
    within = f"from {show(low)} to {show(high)}"
    reason = f": {flip.said}" if flip.said else ""
    return f"{winner} whatever {subject}, {within} ({now}){reason}."
