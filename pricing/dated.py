"""A dated price outranks an undated one.

A catalog row with no collection date ("before 2026-11-30": read from a catalog that day,
collected some time before) is the last resort. Where the same provider also prices the same
accelerator, on the same terms and market, in a row that names its date, and the two
disagree by more than SUPERSEDE_GAP per accelerator-hour, the undated row is superseded: no
answer rents it, and /offers shows it marked, naming the dated row. The data audit of
2026-12-06 found the on-demand winner of every 8-GPU question to be such a row (Lambda's
4 x H100 at 3.09 USD per GPU-hour, undated, against Lambda's own 3.99 of 2026-09-25).

The dated rows compared with are those of the same region where the provider dates one there
(the same product's first), else the provider's dated rows of the kind anywhere: clouds price
by region, so a dated row elsewhere supersedes only an undated row cheaper than it by more
than the gap (the kind that wins headlines), never a regional premium. Against the closest
dated price: an undated row is superseded only when none of its kind is within the gap.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from pricing.changes import READ_ON_RUN_DAY
from pricing.offer import price_date

SUPERSEDE_GAP = 0.10  # relative difference per accelerator-hour past which the dated row wins
NONE = -1  # not superseded


def superseded_by(
    provider: Sequence[str],
    accelerator: Sequence[str],
    pricing: Sequence[str],
    market: Sequence[str],
    product: Sequence[str],
    region: Sequence[str],
    per_accelerator_hour: np.ndarray,
    dated: np.ndarray,
) -> np.ndarray:
    """For each row, the row number of the dated row that supersedes it, else NONE;
    ``dated``: which rows name their price's date (:func:`dated_rows`)."""
    out = np.full(len(provider), NONE, dtype=np.int64)
    region = list(region)
    if dated.all() or not dated.any():
        return out
    groups: dict[tuple[str, str, str, str], list[int]] = defaultdict(list)
    for i in np.flatnonzero(dated).tolist():
        groups[(provider[i], accelerator[i], str(pricing[i]), market[i])].append(i)
    for i in np.flatnonzero(~dated).tolist():
        kind = groups.get((provider[i], accelerator[i], str(pricing[i]), market[i]))
        if not kind:
            continue
        here = [j for j in kind if region[j] == region[i]]
        same = [j for j in (here or kind) if product[j] == product[i]]
        pool = np.array(same or here or kind)
        prices = per_accelerator_hour[pool]
        price = per_accelerator_hour[i]
        gaps = (prices - price) / prices  # > 0: the undated row is cheaper
        closest = int(np.argmin(np.abs(gaps)))
        gap = gaps[closest] if here else max(gaps[closest], 0.0)
        if abs(gap) > SUPERSEDE_GAP:
            out[i] = int(pool[closest])
    return out


def is_dated(price_as_of: str) -> bool:
    """Whether a price names the date it held: a live run's price is dated by the run that
    read it (stored as READ_ON_RUN_DAY); "before 2026-11-30" is not."""
    return price_as_of == READ_ON_RUN_DAY or price_date(price_as_of) is not None


def dated_rows(price_as_of: Sequence[str]) -> np.ndarray:
    """:func:`is_dated` for each row."""
    return np.array([is_dated(when) for when in price_as_of], dtype=bool)
