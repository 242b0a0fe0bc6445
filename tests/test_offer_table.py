"""The committed orders end to end (service/engine/offer_table.py ``Committed``): a term's
floors find each reading's next offers in them as the orders themselves hold them."""

from __future__ import annotations

import numpy as np
import pytest

from service.engine.offer_table import Committed


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
