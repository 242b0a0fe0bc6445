"""The committed orders end to end (service/engine/offer_table.py ``Committed``): a term's
floors find each reading's next offers in them as the orders themselves hold them."""

from __future__ import annotations

import numpy as np
import pytest

from service.engine.offer_table import LEADING_CHUNK, Committed, _leading


@pytest.mark.parametrize("seed", range(20))
def test_a_row_at_a_position_of_an_order_is_the_orders_own(seed: int) -> None:
    """Fourteen orders (two per term), some empty: every position of every order."""
    rng = np.random.default_rng(seed)
    orders = [rng.permutation(500)[: rng.choice([0, 1, 7, 300])] for _ in range(14)]
    committed = Committed.of(orders)
    which = np.array([g for g, order in enumerate(orders) for _ in range(order.size)])
    where = np.array([p for order in orders for p in range(order.size)])
    expected = [int(order[p]) for order in orders for p in range(order.size)]
    assert committed.at(which.astype(np.intp), where.astype(np.intp)).tolist() == expected
    assert committed.sizes.tolist() == [order.size for order in orders]


@pytest.mark.parametrize("seed", range(40))
def test_the_committed_orders_first_chunks_read_at_once_are_each_read_alone(seed: int) -> None:
    """Fourteen orders of 0 to 3 chunks, some not asked, masks admitting from none to all,
    top 1 to 12: the same rows and the same ends as one reading each (``_leading``)."""
    rng = np.random.default_rng(seed)
    rows = 5 * LEADING_CHUNK
    mask = rng.random(rows) < rng.choice([0.0, 0.002, 0.02, 0.3, 1.0])
    sizes = [0, 3, LEADING_CHUNK, LEADING_CHUNK + 7, 3 * LEADING_CHUNK]
    orders = [rng.permutation(rows)[: rng.choice(sizes)] for _ in range(14)]
    asked = [bool(rng.random() < 0.8) for _ in orders]
    top = int(rng.integers(1, 13))
    found, ends = Committed.of(orders).leading(asked, mask, top)
    for order, on, rows_found, end in zip(orders, asked, found, ends, strict=True):
        alone, alone_end = _leading(order, mask, top) if on else (np.zeros(0), order.size)
        assert rows_found.tolist() == alone.tolist()
        assert end == alone_end
