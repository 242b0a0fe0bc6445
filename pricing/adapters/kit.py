"""The small kit every adapter shares: HTTP config, skip report, curated table reader.

Each piece replaces a copy that three or four adapters kept for themselves. What still
differs between adapters stays in the adapter, in plain view: the reasons it skips items
for, the tables it reads, the API it calls.
"""

from __future__ import annotations

import csv
import io
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from importlib import resources
from typing import Any, ClassVar, Protocol

import requests

from pricing.adapters import Batch
from pricing.errors import AdapterNotConfigured
from pricing.http import make_session
from pricing.offer import Offer

SHOWN = 2  # names the run record shows per reason; the log lists more
LOGGED = 50  # names one log line lists per reason, so a broken answer cannot flood the log


@dataclass(frozen=True)
class HttpConfig:
    """How an adapter calls its API: per-call timeout, retries on throttling and 5xx, backoff."""

    timeout_seconds: float = 60.0
    retries: int = 3
    backoff_seconds: float = 0.5

    def session(self) -> requests.Session:
        return make_session(self.retries, self.backoff_seconds)


@dataclass(frozen=True)
class Reason:
    """Why an item was not priced, as the run record says it after the count.

    ``what`` reads after a number: "GPU VM sizes not in pricing/data/azure_vms.csv skipped".
    ``each``: every item counts, alike or not (items refused); otherwise a name seen again,
    in another row, page or region, counts once (an unknown instance type). ``shown``: the run
    record names the first few, so a newcomer is recognised without opening the log.
    """

    what: str
    each: bool = False
    shown: bool = True


class SkipReport:
    """What a fetch saw but did not price, and why, so nothing is lost unnoticed.

    Parsers file each skipped item under one of the adapter's reasons. At the end the report
    renders one short line per reason for the Batch's ``source_version`` (the run record)
    and logs the names behind each line, once per run rather than once per item.
    """

    def __init__(self, provider: str, log: logging.Logger, reasons: Sequence[Reason]) -> None:
        self._provider = provider
        self._log = log
        self._labels: dict[Reason, dict[str, str]] = {r: {} for r in reasons}  # name -> label
        self._items: dict[Reason, int] = dict.fromkeys(reasons, 0)

    def add(self, reason: Reason, name: str, label: str = "") -> None:
        """File ``name`` under ``reason``; ``label`` is what the run record shows (the name)."""
        self._labels[reason].setdefault(name, label or name)
        self._items[reason] += 1

    def names(self, reason: Reason) -> set[str]:
        """The distinct names filed under ``reason``."""
        return set(self._labels[reason])

    def lines(self) -> list[str]:
        """One line per reason that has items, in the adapter's order of reasons."""
        return [self._line(reason) for reason, labels in self._labels.items() if labels]

    def version(self, base: str) -> str:
        """``base`` followed by this report's lines: the Batch's ``source_version``.

        Logs each reason's names as a warning: call it once, when the fetch is done.
        """
        for reason in self._labels:
            if names := sorted(self.names(reason)):
                listed = ", ".join(names[:LOGGED]) + (", ..." if len(names) > LOGGED else "")
                self._log.warning("%s: %s: %s", self._provider, self._line(reason), listed)
        return "; ".join([base, *self.lines()])

    def _line(self, reason: Reason) -> str:
        labels = self._labels[reason]
        line = f"{self._items[reason] if reason.each else len(labels)} {reason.what}"
        if reason.shown:
            shown = sorted(set(labels.values()))
            line += f" ({', '.join(shown[:SHOWN])}{', ...' if len(shown) > SHOWN else ''})"
        return line


class KeyedConfig(Protocol):
    """What a keyed source is configured with: its endpoint, its key, its HTTP policy."""

    @property
    def url(self) -> str: ...
    @property
    def api_key(self) -> str | None: ...
    @property
    def http(self) -> HttpConfig: ...


# parse(document, resolve_accelerator, price_as_of, skipped) -> offers
Parser = Callable[[Any, Callable[[str], str | None], str, SkipReport], list[Offer]]


@dataclass(frozen=True)
class WebConfig:
    """A keyless web source's settings: where it answers, and how it is called."""

    url: str
    http: HttpConfig = field(default_factory=HttpConfig)


class WebAdapter:
    """What every adapter that calls a web API holds: its config, the registry's resolver
    for GPU names, the HTTP session a test may hand it, and the clock that dates a fetch."""

    def __init__(
        self,
        config: Any,
        resolve_accelerator: Callable[[str], str | None],
        http: requests.Session | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.config = config
        self._resolve = resolve_accelerator
        self._http = http
        self._clock = clock

    def session(self) -> requests.Session:
        return self._http or self.config.http.session()

    def today(self) -> str:
        """The day a fetch dates prices its source does not date itself."""
        return self._clock().date().isoformat()


class KeyedAdapter(WebAdapter):
    """A source that needs an API key and answers one JSON document (Lambda, RunPod,
    Vast.ai): skipped, not failed, without its key; its answer read by a pure parser.

    A subclass names itself, its key's setting and its source, and says how to ask
    (``request``), how to read the answer (``parse``) and what it may skip (``skips``).
    """

    name: ClassVar[str]
    key_setting: ClassVar[str]  # BREAKEVEN_..._API_KEY, named when it is missing
    source: ClassVar[str]  # what the run record says was read
    parse: ClassVar[Parser]
    skips: ClassVar[Callable[[], SkipReport]]
    config: KeyedConfig

    def fetch(self) -> Batch:
        if not self.config.api_key:
            raise AdapterNotConfigured(f"no {self.key_setting}")
        skipped = type(self).skips()
        offers = type(self).parse(
            self.request(self.session()), self._resolve, self.today(), skipped
        )
        return Batch(offers, source_version=skipped.version(self.source))

    def request(self, http: requests.Session) -> Any:
        """The source's answer, as JSON."""
        raise NotImplementedError


def listed_price(value: Any) -> Decimal | None:
    """A price as a list writes it (1.99, "1.99"), exactly; None where it is not a positive
    number a float can hold ("n/a", "0.00", "1e400", null, true): a row to skip and report,
    never to guess."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        price = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    if not price.is_finite() or price <= 0 or not math.isfinite(float(price)):
        return None
    return price


def read_table(name: str) -> list[dict[str, str]]:
    """The rows of a curated table in ``pricing/data``, each a dict by column name.

    Adapters call it when they fetch, never at import time: importing an adapter reads nothing.
    """
    text = (resources.files("pricing") / "data" / name).read_text("utf-8")
    return list(csv.DictReader(io.StringIO(text)))
