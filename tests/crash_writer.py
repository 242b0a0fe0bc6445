"""A refresh writer to be killed: ``python -m tests.crash_writer DATABASE_URL ROWS``.

Builds ROWS offers, says "writing" on stdout, then writes them as one run through the real
store code. The crash-safety tests SIGKILL it while that transaction is open.
"""

from __future__ import annotations

import sys

from pricing.store import Store, utcnow
from tests.helpers import offer


def main() -> None:
    url, rows = sys.argv[1], int(sys.argv[2])
    store = Store(url)
    batch = [offer(provider="aws", product=f"crash-{i}", usd_per_hour=1.0) for i in range(rows)]
    print("writing", flush=True)
    store.record_run("aws", batch, utcnow(), "crash test")
    print("done", flush=True)


if __name__ == "__main__":
    main()
