"""Fetch the ECB's exchange rates and store them (`breakeven fx-refresh`, the scheduler)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from pricing.adapters.ecb import fetch_rates
from service.jobs.refresh import http_config
from service.runtime import Runtime

log = logging.getLogger(__name__)


def refresh_rates(runtime: Runtime) -> int:
    """Rates fetched and stored; an AdapterError or StoreError leaves the stored ones."""
    settings = runtime.settings
    rates = fetch_rates(settings.ecb_rates_url, http_config(settings))
    written = runtime.store.write_rates(rates, datetime.now(UTC))
    days = sorted({r.day for r in rates})
    log.info("exchange rates: %d stored, %s..%s", written, days[0], days[-1])
    return written
