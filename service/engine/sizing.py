"""What a question buys: how many cards, at what utilization, and which memory rule the
rentals must meet.

Stated work may need more memory than one card holds (a described job: weights, gradients,
optimizer state, activations). Then the fewest cards that hold it are bought, and the job is
sharded across them; a rental must hold the same total. A job one card holds needs that
much on every device. A deadline buys the fewest cards that finish by it (like for like: the
rentals must finish by it too), and steady work the fewest that carry its monthly hours, at
the utilization those hours make. Without a deadline, the cards take their own calendar
time, up to the longest a question spans (LONGEST_YEARS): work one card would take longer
over buys the fewest that finish within it. What the question states itself (gpus=,
memory=, total_memory=, utilization=) wins over what the work implies.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from service.engine.clusters import DEADLINE_TOLERANCE
from service.engine.hours import HOURS_PER_MONTH, LONGEST_HOURS
from service.engine.memory import unsharded_gb
from service.engine.work import Work

# How the count of cards bought was chosen, as the answer names it.
GIVEN, FEWEST, DEADLINE, STEADY, ONE = "given", "fewest", "deadline", "steady", "one"
LONGEST = "longest"  # the fewest that finish within the longest time a question spans


class SizingError(ValueError):
    """No count of cards up to the most a quote buys does what the question asks."""

    def __init__(self, parameter: str, message: str) -> None:
        self.parameter = parameter
        super().__init__(message)


@dataclass(frozen=True)
class Purchase:
    cards: int
    basis: str  # GIVEN, FEWEST (hold the job), DEADLINE, STEADY or ONE (the default)
    memory_gb: float | None  # per accelerator; None: the rule of the question, or none
    total_memory_gb: float | None  # a sharded job's total; None: not sharded
    utilization: float | None = None  # steady work's own; None: the assumption's
    overhead_gb: float = 0.0  # kept on each card beside its shard of total_memory_gb


def purchase(
    work: Work,
    gpus: int | None,
    memory_gb: float | None,
    total_memory_gb: float | None,
    speed: Callable[[int], float],
    utilization: float,
    deadline_hours: float | None,
    most: int,
) -> Purchase:
    """The cards bought for ``work`` and the memory rule the rentals meet. ``speed(n)`` is
    the work n cards do per busy hour (service/engine/costs.bought_speed), ``most`` the
    most cards a quote buys."""
    cards, basis = work.min_cards, FEWEST if work.min_cards > 1 else ONE
    if work.hours_per_month is not None:
        # the fewest whose month of calendar time carries the month's work
        cards = fewest_cards(cards, speed, work.hours_per_month / HOURS_PER_MONTH, most, "steady")
        basis = STEADY if cards > work.min_cards else basis
    elif deadline_hours is not None:
        needed = work.hours / (utilization * deadline_hours)  # work per busy hour
        cards_by_deadline = fewest_cards(cards, speed, needed, most, "deadline")
        basis = DEADLINE if cards_by_deadline > cards else basis
        cards = cards_by_deadline
    elif gpus is None and work.hours / (utilization * speed(cards)) > LONGEST_HOURS:
        cards = fewest_cards(
            cards, speed, work.hours / (utilization * LONGEST_HOURS), most, "hours"
        )
        basis = LONGEST
    if gpus is not None:
        cards, basis = gpus, GIVEN
    steady_utilization = None
    if work.hours_per_month is not None:
        steady_utilization = min(1.0, work.hours_per_month / (HOURS_PER_MONTH * speed(cards)))
    overhead = 0.0
    if work.memory_gb is not None and memory_gb is None and total_memory_gb is None:
        # the job's own memory need: per device where one card holds it, else its sharded
        # parts in total, each card keeping the framework's share besides (cards_to_hold)
        if work.min_cards == 1:
            memory_gb = work.memory_gb
        else:
            overhead = unsharded_gb(work.memory_parts or {})
            total_memory_gb = work.memory_gb - overhead
    return Purchase(cards, basis, memory_gb, total_memory_gb, steady_utilization, overhead)


def fewest_cards(
    start: int, speed: Callable[[int], float], needed: float, most: int, why: str
) -> int:
    """The fewest cards from ``start`` whose speed reaches ``needed``. n cards never do more
    than n cards' work, so the search starts at ceil(needed); a ninth card on a second host
    can do less than eight on one, so it walks up rather than bisects."""
    needed *= 1 - DEADLINE_TOLERANCE  # float noise is not time
    n = max(start, math.ceil(needed))
    while n <= most:
        if speed(n) >= needed:
            return n
        n += 1
    parameter = {"steady": "hours_per_month", "hours": "hours"}.get(why, "deadline_days")
    raise SizingError(
        parameter,
        f"no purchase of up to {most:,} cards does it: they would need {needed:,.1f} cards' "
        "work each busy hour",
    )
