"""Google Cloud: GPU machines and attached GPUs (Compute Engine) and Cloud TPU, per region.

Prices come from the Cloud Billing Catalog (google-cloud-billing, REST transport, USD);
where each GPU is offered comes from Compute Engine's AcceleratorTypes aggregated list
(google-cloud-compute), when a project is configured. Authentication is an API key, or else
Application Default Credentials; with neither the adapter is "not configured" and skipped.
The SDK calls live in ``sdk.py``, imported only when a fetch runs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pricing.adapters import Batch
from pricing.adapters.gcp.availability import parse_aggregated_list
from pricing.adapters.gcp.catalog import load_catalog
from pricing.adapters.gcp.config import GcpConfig
from pricing.adapters.gcp.offers import PROVIDER, build_offers
from pricing.adapters.gcp.skus import CLOUD_TPU, COMPUTE_ENGINE, PriceBook
from pricing.errors import AdapterError

__all__ = ["GcpAdapter", "GcpConfig"]

log = logging.getLogger(__name__)


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
        for service in (COMPUTE_ENGINE, CLOUD_TPU):
            read = book.read(sdk.skus(self.config, creds, service))
            # Compute Engine lists thousands of SKUs (TPUs among them): none at all is a
            # broken answer, never the catalog. Cloud TPU's own list may well be empty.
            if service == COMPUTE_ENGINE and read == 0:
                raise AdapterError("Cloud Billing Catalog: Compute Engine answered no SKUs")
        availability = None
        if self.config.project:
            availability = parse_aggregated_list(sdk.accelerator_types(self.config, creds))
        offers = build_offers(book, load_catalog(), availability, self._clock().date().isoformat())
        return Batch(offers, source_version=self._version(book, availability is not None))

    def _version(self, book: PriceBook, checked: bool) -> str:
        parts = ["Cloud Billing Catalog (USD)"]
        parts.append("availability: AcceleratorTypes" if checked else "availability not checked")
        if book.unknown:
            log.warning("gcp: skipped SKUs with unknown accelerators: %s", sorted(book.unknown))
            parts.append(f"{len(book.unknown)} unknown accelerator SKUs skipped")
        if book.rejected:
            log.warning("gcp: rejected SKUs: %s", book.rejected)
            parts.append(f"{len(book.rejected)} non-USD or malformed SKUs rejected")
        return "; ".join(parts)
