"""A refresh to be killed: ``python -m tests.crash_writer DATABASE_URL ROWS``.

Runs the real refresh path (fetch, sanity checks against the current run, one-transaction
write, retention prune) for an adapter that returns ROWS offers. It prints "started" first;
the crash-safety tests SIGKILL it at a random moment after that.
"""

from __future__ import annotations

import sys

from pricing.adapters import Batch
from pricing.refresh import run_adapter
from pricing.store import Store
from tests.helpers import offer


class ManyOffers:
    name = "aws"

    def __init__(self, rows: int) -> None:
        self.rows = rows

    def fetch(self) -> Batch:
        offers = [
            offer(provider="aws", product=f"crash-{i}", usd_per_hour=1.5) for i in range(self.rows)
        ]
        return Batch(offers, "crash test")


def main() -> None:
    url, rows = sys.argv[1], int(sys.argv[2])
    store = Store(url)
    print("started", flush=True)
    result = run_adapter(store, ManyOffers(rows))
    print(result.status, flush=True)


if __name__ == "__main__":
    main()
