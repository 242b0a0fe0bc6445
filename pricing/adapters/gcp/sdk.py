"""The google-cloud SDK side of the GCP adapter: clients, pages, retries, credentials.

Kept apart because importing google-cloud-compute and -billing costs seconds: the adapter
imports this module only when it fetches, so the web service and the CLI start fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import google.auth
from google.api_core import exceptions as google_errors
from google.api_core.client_options import ClientOptions
from google.auth.exceptions import DefaultCredentialsError
from google.cloud import billing_v1, compute_v1

from pricing.adapters.gcp.config import GcpConfig
from pricing.errors import AdapterError, AdapterNotConfigured
from pricing.retry import with_retries

_RETRYABLE = (
    google_errors.TooManyRequests,
    google_errors.ServiceUnavailable,
    google_errors.InternalServerError,
    google_errors.BadGateway,
    google_errors.GatewayTimeout,
)


def credentials(
    config: GcpConfig, default_credentials: Callable[[], tuple[Any, str | None]] | None
) -> Any:
    if config.api_key:
        return None  # the key travels in client_options
    try:
        found, _ = (default_credentials or google.auth.default)()
    except DefaultCredentialsError as exc:
        raise AdapterNotConfigured(
            "no BREAKEVEN_GCP_API_KEY and no Application Default Credentials"
        ) from exc
    return found


def _options(config: GcpConfig, endpoint: str) -> ClientOptions:
    return ClientOptions(api_endpoint=endpoint, api_key=config.api_key or None)


def _call(config: GcpConfig, call: Callable[[], Any]) -> Any:
    try:
        return with_retries(
            call,
            lambda exc: isinstance(exc, _RETRYABLE),
            config.http.retries,
            config.http.backoff_seconds,
        )
    except google_errors.GoogleAPIError as exc:
        raise AdapterError(f"Google Cloud API: {exc}") from exc


def _pages(config: GcpConfig, list_page: Callable[[str, float], Any]) -> Iterator[Any]:
    """Every page of a list call, each with the retries of :func:`_call`; ``list_page``
    takes the page token and the timeout."""
    token = ""
    while True:
        page = _call(config, lambda t=token: list_page(t, config.http.timeout_seconds))
        yield page
        token = page.next_page_token
        if not token:
            return


def skus(config: GcpConfig, creds: Any, service: str) -> Iterator[dict]:
    """Every SKU of a service, page by page, as its JSON wire form."""
    client = billing_v1.CloudCatalogClient(
        transport="rest",
        credentials=creds,
        client_options=_options(config, config.billing_endpoint),
    )

    def list_page(token: str, timeout: float) -> Any:
        request = billing_v1.ListSkusRequest(parent=service, currency_code="USD", page_token=token)
        return client.list_skus(request=request, retry=None, timeout=timeout)

    for page in _pages(config, list_page):
        for sku in page.skus:
            yield json.loads(billing_v1.Sku.to_json(sku))


def accelerator_types(config: GcpConfig, creds: Any) -> Iterator[tuple[str, dict]]:
    """The AcceleratorTypes aggregated list of the project, zone by zone, all pages."""
    client = compute_v1.AcceleratorTypesClient(
        transport="rest",
        credentials=creds,
        client_options=_options(config, config.compute_endpoint),
    )

    def list_page(token: str, timeout: float) -> Any:
        request = compute_v1.AggregatedListAcceleratorTypesRequest(
            project=config.project, page_token=token
        )
        return client.aggregated_list(request=request, retry=None, timeout=timeout)

    for page in _pages(config, list_page):
        for scope, scoped in page.items.items():
            yield scope, json.loads(compute_v1.AcceleratorTypesScopedList.to_json(scoped))
