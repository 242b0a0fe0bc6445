"""Fetch the ECB's exchange rates and store them (`breakeven fx-refresh`, the scheduler).

A fetched feed is checked before anything is stored (pricing/fx.py ``check_fetched``): a
future day or an impossible figure refuses it whole, a currency that jumped is held back and
said; the rates stored before keep serving either way.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pricing.adapters.ecb import fetch_rates
from pricing.errors import AdapterError
from pricing.fx import FxError, check_fetched
from service.jobs.refresh import http_config
from service.runtime import Runtime

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RatesFetched:
    """What a fetch stored, and the currencies it held back (each with why)."""

    written: int
    held: list[str] = field(default_factory=list)


def refresh_rates(runtime: Runtime) -> RatesFetched:
    """Rates fetched, checked and stored; an AdapterError (a fetch or a check that failed)
    or a StoreError leaves the stored ones."""
    settings = runtime.settings
    url = settings.ecb_rates_url
    rates = fetch_rates(url, http_config(settings))
    now = datetime.now(UTC)
    try:
        checked = check_fetched(rates, runtime.fx.current(), now.date(), settings.fx_jump_factor)
    except FxError as exc:
        raise AdapterError(f"GET {url}: {exc}; nothing stored") from exc
    for note in checked.held:
        log.warning("exchange rates: %s", note)
    written = runtime.store.write_rates(checked.kept, now) if checked.kept else 0
    runtime.fx.reread()
    days = sorted({r.day for r in checked.kept})
    if days:
        log.info("exchange rates: %d stored, %s..%s", written, days[0], days[-1])
    return RatesFetched(written, checked.held)
