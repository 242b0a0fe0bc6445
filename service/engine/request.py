"""A question as the engine takes it, and the bounds of the inputs a question may move.

The request sits below both the offer table (which filters by it) and the quote (which
prices it), so neither imports the other to know its shape. The bounds are the ones the
query models enforce and the sensitivity search stays within: a flip is never reported at
a value nobody may ask about.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware import SpeedKey, Workload, speed_key
from service.engine.assumptions import DEFAULT_ASSUMPTIONS, MAX_USD, Assumptions
from service.engine.work import MAX_HOURS, MIN_HOURS

# The inputs of a question that are not cost assumptions (those carry theirs in
# service/engine/assumptions.py), as pydantic Field bounds: `price` per card, `rent_factor`
# on every rental price, `hours` of work (service/engine/work.py's floor and cap, which
# every way of stating the work keeps).
QUESTION_BOUNDS: dict[str, dict[str, float]] = {
    "price": {"gt": 0, "le": MAX_USD},
    "rent_factor": {"ge": 0.01, "le": 100},
    "hours": {"ge": MIN_HOURS, "le": MAX_HOURS},
}


@dataclass(frozen=True)
class QuoteRequest:
    reference: str  # canonical id of the card that would be bought
    hours: float  # workload size in hours on one reference card
    workload: Workload = Workload.TRANSFORMER
    gpus: int = 1
    memory_gb: float | None = None  # per accelerator; None = the reference card's memory
    total_memory_gb: float | None = None  # a sharded job's total; None = not sharded
    memory_overhead_gb: float = 0.0  # kept on every card beside its shard (the framework)
    price_usd: float | None = None  # None = the card's sourced purchase price
    price_basis: str | None = None  # new, used or launch; None = new, else used, else launch
    watts: float | None = None  # None = the card's board power
    providers: frozenset[str] | None = None
    pricing: str = "any"  # on_demand, spot or any
    region: str | None = None  # prefix: "us" matches us-east-1 and us-central1
    top: int = 10
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS
    reference_speed: float | None = None  # measured on the user's own card; None = published
    platforms: frozenset[str] | None = None  # software platforms that compete; None = all
    measured_only: bool = False  # only offers whose throughput is not estimated
    session_hours: float | None = None  # longest session of session-bound offers (Colab)
    markets: frozenset[str] | None = None  # market tiers that compete (pricing.offer.MARKETS)
    rent_factor: float = 1.0  # every rental price times this: a what-if (1.2 = 20 % dearer)
    # wall-clock hours every rental must finish in; None: the bought cards' own calendar time
    deadline_hours: float | None = None
    site: str | None = None  # home, office or colo; None: where the host class runs
    precision: str | None = None  # bf16, fp16 or fp8: only offers that run it; None: 16 bits
    excluded_providers: frozenset[str] = frozenset()  # providers that do not serve the asker
    accelerators: frozenset[str] | None = None  # the accelerators rented (rent_gpu=); None: all
    country: str | None = None  # the asker's, lower case: a tie between rentals goes there

    @property
    def speed_key(self) -> SpeedKey:
        return speed_key(self.workload, self.precision)
