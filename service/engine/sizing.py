"""What a question buys: how many cards, and which memory rule the rentals must meet.

Stated work may need more memory than one card holds (a described job: weights, gradients,
optimizer state, activations). Then the fewest cards that hold it are bought, and the job is
sharded across them; a rental must hold the same total. A job one card holds needs that
much on every device. What the question states itself (gpus=, memory=, total_memory=)
wins over what the job implies.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.work import Work

# How the count of cards bought was chosen, as the answer names it.
GIVEN, FEWEST, ONE = "given", "fewest", "one"


@dataclass(frozen=True)
class Purchase:
    cards: int
    basis: str  # GIVEN (gpus=), FEWEST (the fewest that hold the job) or ONE (the default)
    memory_gb: float | None  # per accelerator; None: the rule of the question, or none
    total_memory_gb: float | None  # a sharded job's total; None: not sharded


def purchase(
    work: Work, gpus: int | None, memory_gb: float | None, total_memory_gb: float | None
) -> Purchase:
    """The cards bought for ``work`` and the memory rule the rentals meet."""
    if gpus is not None:
        cards, basis = gpus, GIVEN
    else:
        cards, basis = work.min_cards, FEWEST if work.min_cards > 1 else ONE
    if work.memory_gb is not None and memory_gb is None and total_memory_gb is None:
        # the job's own memory need: per device where one card holds it, else in total
        if work.min_cards == 1:
            memory_gb = work.memory_gb
        else:
            total_memory_gb = work.memory_gb
    return Purchase(cards, basis, memory_gb, total_memory_gb)
