"""Google Cloud: GPU machines and attached GPUs (Compute Engine) and Cloud TPU, per region.

Prices come from the Cloud Billing Catalog (google-cloud-billing, REST transport, USD);
where each GPU is offered comes from Compute Engine's AcceleratorTypes aggregated list
(google-cloud-compute), when a project is configured. Authentication is an API key, or else
Application Default Credentials; with neither the adapter is "not configured" and skipped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import google.auth
from google.api_core import exceptions as google_errors
from google.api_core.client_options import ClientOptions
from google.auth.exceptions import DefaultCredentialsError
from google.cloud import billing_v1, compute_v1

from pricing.adapters import Batch
from pricing.adapters.gcp.availability import parse_aggregated_list
from pricing.adapters.gcp.catalog import load_catalog
from pricing.adapters.gcp.offers import PROVIDER, build_offers
from pricing.adapters.gcp.skus import CLOUD_TPU, COMPUTE_ENGINE, PriceBook
from pricing.errors import AdapterError, AdapterNotConfigured
from pricing.retry import with_retries

log = logging.getLogger(__name__)

_RETRYABLE = (
    google_errors.TooManyRequests,
    google_errors.ServiceUnavailable,
    google_errors.InternalServerError,
    google_errors.BadGateway,
    google_errors.GatewayTimeout,
)


@dataclass(frozen=True)
class GcpConfig:
    billing_endpoint: str
    compute_endpoint: str
    project: str | None = None
    api_key: str | None = None
    timeout_seconds: float = 60.0
    retries: int = 3
    backoff_seconds: float = 0.5


class GcpAdapter:
    name = PROVIDER

    def __init__(
        self,
        config: GcpConfig,
        default_credentials: Callable[[], tuple[Any, str | None]] = google.auth.default,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.config = config
        self._default_credentials = default_credentials
        self._clock = clock

    def fetch(self) -> Batch:
        credentials = self._credentials()
        book = PriceBook()
        billing = billing_v1.CloudCatalogClient(
            transport="rest",
            credentials=credentials,
            client_options=self._options(self.config.billing_endpoint),
        )
        for service in (COMPUTE_ENGINE, CLOUD_TPU):
            book.read(self._skus(billing, service))
        availability = None
        if self.config.project:
            compute = compute_v1.AcceleratorTypesClient(
                transport="rest",
                credentials=credentials,
                client_options=self._options(self.config.compute_endpoint),
            )
            availability = parse_aggregated_list(self._accelerator_types(compute))
        offers = build_offers(book, load_catalog(), availability, self._clock().date().isoformat())
        return Batch(offers, source_version=self._version(book, availability is not None))

    def _credentials(self) -> Any:
        if self.config.api_key:
            return None  # the key travels in client_options
        try:
            credentials, _ = self._default_credentials()
        except DefaultCredentialsError as exc:
            raise AdapterNotConfigured(
                "no BREAKEVEN_GCP_API_KEY and no Application Default Credentials"
            ) from exc
        return credentials

    def _options(self, endpoint: str) -> ClientOptions:
        return ClientOptions(api_endpoint=endpoint, api_key=self.config.api_key or None)

    def _call(self, call: Callable[[], Any]) -> Any:
        try:
            return with_retries(
                call,
                lambda exc: isinstance(exc, _RETRYABLE),
                self.config.retries,
                self.config.backoff_seconds,
            )
        except google_errors.GoogleAPIError as exc:
            raise AdapterError(f"Google Cloud API: {exc}") from exc

    def _skus(self, client: billing_v1.CloudCatalogClient, service: str) -> Iterator[dict]:
        """Every SKU of a service, page by page, as its JSON wire form."""
        token = ""
        while True:
            request = billing_v1.ListSkusRequest(
                parent=service, currency_code="USD", page_token=token
            )
            page = self._call(
                lambda r=request: client.list_skus(
                    request=r, retry=None, timeout=self.config.timeout_seconds
                )
            )
            for sku in page.skus:
                yield json.loads(billing_v1.Sku.to_json(sku))
            token = page.next_page_token
            if not token:
                return

    def _accelerator_types(
        self, client: compute_v1.AcceleratorTypesClient
    ) -> Iterator[tuple[str, dict]]:
        token = ""
        while True:
            request = compute_v1.AggregatedListAcceleratorTypesRequest(
                project=self.config.project, page_token=token
            )
            page = self._call(
                lambda r=request: client.aggregated_list(
                    request=r, retry=None, timeout=self.config.timeout_seconds
                )
            )
            for scope, scoped in page.items.items():
                yield scope, json.loads(compute_v1.AcceleratorTypesScopedList.to_json(scoped))
            token = page.next_page_token
            if not token:
                return

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
