"""Google Cloud: GPU machines and attached GPUs (Compute Engine) and Cloud TPU, per region.

Prices come from the Cloud Billing Catalog (google-cloud-billing, REST transport, USD);
where each GPU is offered comes from Compute Engine's AcceleratorTypes aggregated list
(google-cloud-compute), when a project is configured. Authentication is an API key, or else
Application Default Credentials; with neither the adapter is "not configured" and skipped.
The SDK calls live in ``sdk.py``, imported only when a fetch runs.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pricing.adapters import Batch
from pricing.adapters.gcp.availability import parse_aggregated_list
from pricing.adapters.gcp.config import GcpConfig
from pricing.adapters.gcp.offers import PROVIDER, build_offers, skip_report
from pricing.adapters.gcp.skus import CLOUD_TPU, COMPUTE_ENGINE, PriceBook
from pricing.adapters.gcp.tables import load_tables
from pricing.errors import AdapterError

__all__ = ["GcpAdapter", "GcpConfig"]


class GcpAdapter:
    name = PROVIDER

    def __init__(
        self,
        config: GcpConfig,
        default_credentials: Callable[[], tuple[Any, str | None]] | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.config = config
        self._default_credentials = default_credentials  # None: google.auth.default
        self._clock = clock

    def fetch(self) -> Batch:
        from pricing.adapters.gcp import sdk

        creds = sdk.credentials(self.config, self._default_credentials)
        book = PriceBook()
        skipped = skip_report()
        for service in (COMPUTE_ENGINE, CLOUD_TPU):
            read = book.read(sdk.skus(self.config, creds, service), skipped)
            # Compute Engine lists thousands of SKUs (TPUs among them): none at all is a
            # broken answer, never the catalog. Cloud TPU's own list may well be empty.
            if service == COMPUTE_ENGINE and read == 0:
                raise AdapterError("Cloud Billing Catalog: Compute Engine answered no SKUs")
        availability, checked = None, "availability not checked"
        if self.config.project:
            availability = parse_aggregated_list(sdk.accelerator_types(self.config, creds))
            checked = "availability: AcceleratorTypes"
        today = self._clock().date().isoformat()
        offers = build_offers(book, load_tables(), availability, today, skipped)
        return Batch(offers, skipped.version(f"Cloud Billing Catalog (USD); {checked}"))
