"""A question read once: /breakeven, /rank, `breakeven quote` and `breakeven rank` all ask
the engine through :func:`read_question`, so a rule about the work, the cards bought, the
site, the tariff or the rentals that compete is written here and nowhere else.

Capacity is how teams state most questions ("eight A100s for 500 hours", "64 H100s steady
for three years"): cards for a time, not hours of one card's work. Both sides then provide
the same cards for the same time. The work is what those cards do, their scaling loss
included, so the bought cards finish exactly on time and the question is never refused for
a loss the rentals share; a rental of another accelerator is sized by its speed.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Any

from hardware import Workload
from hardware.tariffs import DEFAULT_COUNTRY
from service.documents.errors import InvalidQuestion, Unanswerable
from service.documents.gpus import resolve_gpu
from service.documents.place import left_out_providers, tariff
from service.documents.queries import MAX_CARDS, competing_platforms, market_tiers
from service.documents.summary import figure
from service.documents.work import WAYS, check_precision, job_workload, stated_work
from service.engine.assumptions import MIN_UTILIZATION, Assumptions, with_overrides
from service.engine.breakeven import Quote
from service.engine.costs import bought_speed
from service.engine.hours import HOURS_PER_DAY, HOURS_PER_MONTH, LONGEST_YEARS
from service.engine.request import QuoteRequest
from service.engine.sizing import (
    DEADLINE,
    FEWEST,
    GIVEN,
    LONGEST,
    ONE,
    STEADY,
    Purchase,
    SizingError,
    purchase,
)
from service.engine.work import MIN_HOURS, Work
from service.runtime import Runtime

# The most cards a desktop holds: an upgrade of up to this many goes in the owned card's box.
DESKTOP_CARDS = 2
# Capacity is rented and bought to be used: busy all of its time unless utilization= says less.
CAPACITY_UTILIZATION = 1.0

# How the answer says the count of cards bought was chosen (service/engine/sizing.py).
CARDS_BOUGHT = {
    GIVEN: "as given (gpus=)",
    FEWEST: "the fewest that hold the job ({cards})",
    DEADLINE: "the fewest that finish by the deadline ({cards})",
    STEADY: "the fewest that carry hours_per_month ({cards})",
    ONE: "one (the default)",
    LONGEST: f"the fewest that finish within {LONGEST_YEARS} years, the longest time a "
    "question spans ({cards})",
}


@dataclass(frozen=True)
class BuyTerms:
    """What only /breakeven states about the purchase; /rank buys at the sourced prices."""

    price_usd: float | None = None
    price_basis: str | None = None
    watts: float | None = None
    rent_factor: float = 1.0
    reference_speed: float | None = None  # measured on the user's own card
    own: str | None = None  # a card the asker owns already, any alias (own=)


@dataclass(frozen=True)
class Capacity:
    """Cards for a time, as a team states it: ``cards`` for ``wall_hours`` of calendar time,
    busy ``utilization`` of it."""

    cards: int
    wall_hours: float
    utilization: float
    months: float | None  # steady capacity's months; None: for_hours
    per_month_stated: float | None  # hours_per_month= as card-hours a month on the cards

    @property
    def card_hours(self) -> float:
        return self.cards * self.wall_hours * self.utilization

    def in_words(self, gpu: str) -> str:
        """The capacity in words: "64 x h100-sxm steady for 36 months (26,280 h)"."""
        if self.months is None:
            span = f"for {figure(self.wall_hours)} h"
        else:
            span = f"steady for {self.months:g} months ({figure(self.wall_hours)} h)"
        busy = "" if self.utilization == 1 else f", busy {self.utilization:.0%} of it"
        return f"{self.cards} x {gpu} {span}{busy}"


@dataclass(frozen=True)
class Question:
    """One question as the engine is asked it, and what the answer restates of it."""

    gpu: str
    workload: Workload
    work: Work
    capacity: Capacity | None
    bought: Purchase
    cards_bought: str  # how the count was chosen, in words
    power: dict[str, Any] | None  # the tariff that applied, or None: the site's default
    owned: str | None
    request: QuoteRequest

    @property
    def assumptions(self) -> Assumptions:
        return self.request.assumptions

    @property
    def capacity_text(self) -> str:
        return "" if self.capacity is None else self.capacity.in_words(self.gpu)


def read_question(query: Any, runtime: Runtime, terms: BuyTerms | None = None) -> Question:
    """The question ``query`` asks (a BreakevenQuery or RankQuery in dollars: they share
    queries._Question), read into the engine's request once."""
    terms = terms or BuyTerms()
    hardware = runtime.hardware
    gpu = resolve_gpu(hardware, query.gpu).id
    workload = job_workload(query, hardware)
    check_precision(hardware, gpu, workload, query.precision)
    speed = functools.partial(bought_speed, hardware, gpu, workload)
    capacity = _capacity(query)
    if capacity is None:
        work = stated_work(query, runtime, gpu, workload)
    else:
        work = _capacity_work(capacity, speed(capacity.cards), gpu)
    assumptions = with_overrides(runtime.assumptions, query)
    if capacity is not None:
        assumptions = replace(assumptions, utilization=capacity.utilization)
    deadline = _deadline_hours(query, work, capacity)
    try:
        bought = purchase(
            work,
            query.gpus,
            query.memory,
            query.total_memory,
            speed,
            assumptions.utilization,
            deadline,
            MAX_CARDS,
        )
    except SizingError as exc:  # a valid question no purchase can answer
        raise Unanswerable("cannot-quote", str(exc), exc.parameter, "no purchase does it") from exc
    bought, whole = _whole_systems(query, runtime, gpu, bought, terms)
    where = query.site or hardware.host(bought.cards).host.site
    power = None
    if query.electricity is None:  # the country's tariff for where the cards run
        power = tariff(hardware, runtime.fx, query.country, where, query.state)
        if power is not None:
            assumptions = replace(assumptions, electricity=power["usd_per_kwh"])
    if bought.utilization is not None:  # steady work sets its own
        assumptions = replace(assumptions, utilization=max(bought.utilization, MIN_UTILIZATION))
    owned = None if terms.own is None else resolve_gpu(hardware, terms.own, "own").id
    if (
        owned is not None
        and assumptions.host_cost is None
        and _in_owned_box(runtime, gpu, owned, bought.cards, terms)
    ):
        # an upgrade goes into the owned card's box: no host to buy (host_cost= overrides)
        assumptions = replace(assumptions, host_cost=0.0)
    providers = None
    if query.providers:
        providers = frozenset(p.strip().lower() for p in query.providers.split(",") if p.strip())
    platform = hardware.registry[gpu].platform
    request = QuoteRequest(
        platforms=competing_platforms(query.platforms, platform),
        markets=market_tiers(query.market),
        accelerators=rented_accelerators(query, runtime),
        rent_factor=terms.rent_factor,
        reference=gpu,
        hours=work.hours,
        workload=workload,
        gpus=bought.cards,
        memory_gb=bought.memory_gb,
        total_memory_gb=bought.total_memory_gb,
        memory_overhead_gb=bought.overhead_gb,
        price_usd=terms.price_usd,
        price_basis=terms.price_basis,
        watts=terms.watts,
        providers=providers,
        pricing=query.pricing,
        region=query.region,
        top=query.top,
        assumptions=assumptions,
        reference_speed=terms.reference_speed,
        session_hours=runtime.colab.session_hours if runtime.colab else None,
        deadline_hours=deadline,
        site=query.site,
        precision=query.precision,
        excluded_providers=left_out_providers(query, providers),
        country=home_country(query),
    )
    cards_bought = CARDS_BOUGHT[bought.basis].format(cards=bought.cards) + whole
    return Question(gpu, workload, work, capacity, bought, cards_bought, power, owned, request)


def home_country(query: Any) -> str:
    """Where a tie between rentals goes: the asker's country as stated, else the one the
    defaults are of (the US tariff, dollars); lower case, as offers' regions are matched."""
    return (query.country or DEFAULT_COUNTRY).lower()


def states_work(query: Any) -> bool:
    """Whether the question states work (/rank may state none and rank by price alone)."""
    if query.for_hours is not None or (query.gpus is not None and query.months is not None):
        return True
    return any(getattr(query, name) is not None for names in WAYS.values() for name in names)


def rented_accelerators(query: Any, runtime: Runtime) -> frozenset[str] | None:
    """The accelerators ``rent_gpu`` keeps the rentals to (any alias each); None: every one."""
    if not query.rent_gpu:
        return None
    names = [name.strip() for name in query.rent_gpu.split(",") if name.strip()]
    if not names:
        raise InvalidQuestion("rent_gpu", "name at least one accelerator: rent_gpu=h100-sxm")
    return frozenset(resolve_gpu(runtime.hardware, name, "rent_gpu").id for name in names)


def reading(question: Question, busy_hours: float) -> str:
    """The question restated in words, as the summary opens with it: what was asked, and
    what it came to on the cards bought (``busy_hours``: theirs, from the quote)."""
    name = question.gpu
    capacity, work, cards = question.capacity, question.work, question.bought.cards
    if capacity is not None:
        return (
            f"{capacity.in_words(name)}: {figure(capacity.card_hours)} card-hours, "
            f"{figure(work.hours)} h of one {name}'s {question.workload} work at their scaling"
        )
    if work.stated == "hours" and cards > 1:
        return (
            f"{figure(work.hours)} card-hours of {question.workload} work: "
            f"{figure(busy_hours)} h on {cards} x {name}"
        )
    return f"{figure(work.hours)} h of {question.workload} work on {cards} x {name}"


def _capacity(query: Any) -> Capacity | None:
    """Capacity, where the question states it: for_hours=; gpus= with months= alone; or gpus=
    with hours_per_month=, read as card-hours a month on those cards. None: work stated."""
    utilization = query.utilization
    if query.for_hours is not None or (query.gpus is not None and query.months is not None):
        # capacity states the work by itself: a job or a run done beside it is a second way
        stray = next(
            (
                name
                for way in ("reference_run", "job")
                for name in WAYS[way]
                if getattr(query, name) is not None
            ),
            None,
        )
        if stray is not None:
            raise InvalidQuestion(
                stray, f"capacity (cards for a time) states the work; drop {stray}="
            )
    if query.for_hours is not None:
        stray = next(
            (n for n in ("hours", "hours_per_month", "months") if getattr(query, n) is not None),
            None,
        )
        if stray is not None:
            raise InvalidQuestion(
                stray, f"for_hours= states capacity (cards for a time); drop {stray}="
            )
        return Capacity(
            query.gpus or 1,
            query.for_hours,
            CAPACITY_UTILIZATION if utilization is None else utilization,
            None,
            None,
        )
    if query.gpus is None or query.months is None or query.hours is not None:
        return None
    span = query.months * HOURS_PER_MONTH
    if query.hours_per_month is None:
        used = CAPACITY_UTILIZATION if utilization is None else utilization
        return Capacity(query.gpus, span, used, query.months, None)
    if utilization is not None:
        raise InvalidQuestion(
            "utilization",
            "hours_per_month= on gpus= cards sets their utilization (hours_per_month / "
            "(gpus x 730)); drop utilization=, or drop hours_per_month= to state it",
        )
    available = query.gpus * HOURS_PER_MONTH
    if query.hours_per_month > available * (1 + 1e-9):
        raise InvalidQuestion(
            "hours_per_month",
            f"{query.gpus} cards have {available:,.0f} card-hours a month; "
            f"hours_per_month={query.hours_per_month:g} asks more: buy more (gpus=)",
        )
    used = min(1.0, query.hours_per_month / available)
    if used < MIN_UTILIZATION:
        raise InvalidQuestion(
            "hours_per_month",
            f"hours_per_month={query.hours_per_month:g} on {query.gpus} cards keeps them busy "
            f"{used:.2g} of the time, under the least utilization ({MIN_UTILIZATION:g}): "
            "state fewer cards (gpus=) or more hours",
        )
    return Capacity(query.gpus, span, used, query.months, query.hours_per_month)


def _capacity_work(capacity: Capacity, speed: float, gpu: str) -> Work:
    """The work ``capacity`` does: the cards' speed (n x their scaling, in one card's work)
    over their busy hours; steady capacity as steady work, arriving month by month."""
    busy = capacity.wall_hours * capacity.utilization
    if speed * busy < MIN_HOURS:
        parameter = "for_hours" if capacity.months is None else "months"
        raise InvalidQuestion(
            parameter, f"the cards would do {speed * busy:.2g} h of work, under {MIN_HOURS:g} h"
        )
    described = f"{capacity.cards} x {gpu}, busy {capacity.utilization:g} of "
    if capacity.months is None:
        return Work(
            "capacity",
            described + f"{capacity.wall_hours:g} h: {speed * busy:,.1f} h of one card's work",
            speed * busy,
        )
    per_month = speed * HOURS_PER_MONTH * capacity.utilization
    return Work(
        "capacity",
        described + f"{capacity.months:g} months: {per_month:,.1f} h of one card's work a month",
        per_month * capacity.months,
        hours_per_month=per_month,
        months=capacity.months,
    )


def _deadline_hours(query: Any, work: Work, capacity: Capacity | None) -> float | None:
    """The deadline a question sets, in hours: deadline_days, or steady work's months, or
    capacity's own time; None: the bought cards' own calendar time (the engine's default)."""
    if capacity is not None:
        if query.deadline_days is not None:
            raise InvalidQuestion(
                "deadline_days",
                "capacity runs over its own time (for_hours= or months=): drop deadline_days=",
            )
        return capacity.wall_hours
    if work.months is None:
        return None if query.deadline_days is None else query.deadline_days * HOURS_PER_DAY
    for stated in ("deadline_days", "utilization"):
        if getattr(query, stated) is not None:
            raise InvalidQuestion(
                stated,
                f"steady work runs over its months: they set its deadline and the cards' "
                f"utilization (hours_per_month / 730 per card); drop {stated}=",
            )
    return work.span_hours


def _whole_systems(
    query: Any, runtime: Runtime, gpu: str, bought: Purchase, terms: BuyTerms
) -> tuple[Purchase, str]:
    """A card sold only in whole systems (hardware/data/systems.csv) is bought by the node:
    the cards a question needs round up to whole nodes; a count given that is none is a
    400 naming `gpus`. Returns the purchase and what the answer adds to `cards_bought`."""
    system = runtime.hardware.ownership.sold_whole(gpu, terms.price_usd, terms.price_basis)
    if system is None or bought.cards % system.cards == 0:
        return bought, ""
    if query.gpus is not None:
        raise InvalidQuestion(
            "gpus",
            f"{gpu} is sold in whole {system.cards}-card systems (systems.csv): ask gpus="
            f"{system.cards}, {2 * system.cards}, ... (or price= per card, or price_basis=used)",
        )
    cards = math.ceil(bought.cards / system.cards) * system.cards
    return replace(bought, cards=cards), f", rounded up to whole {system.cards}-card systems"


def _in_owned_box(runtime: Runtime, gpu: str, owned: str, cards: int, terms: BuyTerms) -> bool:
    """Whether the cards bought go into the owned card's host: a card of the same kind of
    box (a consumer card in a desktop, a datacenter card in a server), not one sold only in
    whole systems, and no more than a desktop holds."""
    hardware = runtime.hardware
    if cards > DESKTOP_CARDS:
        return False
    if hardware.ownership.sold_whole(gpu, terms.price_usd, terms.price_basis) is not None:
        return False
    bought, kept = hardware.cards.get(gpu), hardware.cards.get(owned)
    return bought is not None and kept is not None and bought.consumer == kept.consumer


def deadline_document(question: Question, result: Quote) -> dict[str, Any]:
    """The wall-clock time every rental finished within, and which rule set it."""
    hours = result.deadline_hours
    finite = math.isfinite(hours)
    work = question.work
    if question.capacity is not None:
        basis = f"capacity: {question.capacity_text}"
    elif work.months is not None:
        basis = (
            f"steady work: {work.months:g} months of {HOURS_PER_MONTH:g} h, the work arriving "
            "as it goes"
        )
    elif result.deadline_given:
        basis = f"given: deadline_days={hours / HOURS_PER_DAY:g}" if finite else "none"
    else:
        basis = (
            f"the bought cards' own calendar time: {result.buy.hours:,.1f} busy h at "
            f"utilization {result.assumptions.utilization:g} (no rental is slower than buying)"
        )
    return {
        "hours": hours if finite else None,
        "days": hours / HOURS_PER_DAY if finite else None,
        "basis": basis,
        "max_instances": result.assumptions.max_instances,
    }
