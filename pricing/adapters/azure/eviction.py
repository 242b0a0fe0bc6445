"""Azure spot eviction-rate bands from Resource Graph: the risk each Azure spot offer prices.

Azure publishes, per VM size and region, how often its spot VMs were evicted over the last
28 days, as a band ("0-5" ... "20+"), in Resource Graph's ``SpotResources`` table, and says
how to read it: the chance a VM is evicted within the next hour (service/engine/interruption.py
quotes it). The Retail Prices API that prices the offers is public; Resource Graph is not, so
the bands need a Microsoft Entra application's client credentials (tenant, client id, secret:
a service principal with Reader on any subscription), exchanged for a token by the identity
platform's client-credentials grant (``POST {login}/{tenant}/oauth2/v2.0/token``, scope
``https://management.azure.com/.default``). Without them no band is read, and every Azure spot
offer pays the ``spot_overhead`` assumption, as before.

One query (``QUERY``: GPU sizes only, ``standard_n...``), paged by ``$skipToken``, rows as
objects (``resultFormat`` objectArray), naming no subscription: ``SpotResources`` answers at
tenant scope, not when a query is scoped to subscriptions (caleta.io, "Azure Won't Show You
Spot Eviction History", 2026). Rules, and why:

- a band Azure writes "0-5", "5-10", "10-15", "15-20" or "20+" (a trailing "%" and spaces
  allowed) is kept as "0-5% per hour" ... "20+% per hour" (``AZURE_EVICTION_BANDS``), so it
  never passes for an AWS band; any other value is no band (counted, logged): that offer
  pays the assumption rather than a guess;
- rows match offers by (region, size) with case set aside: Resource Graph writes
  ``standard_nc24ads_a100_v4`` and ``westus3``, the price list ``Standard_NC24ads_A100_v4``;
- only Spot VMs take a band: Low Priority VMs (being retired) are another product;
- an answer without a ``data`` list, a page cap passed, or a ``$skipToken`` already followed
  fails the read of the bands (never the prices: the adapter goes on without them);
- the tenant is part of the token URL's path, so only a GUID or a domain name is taken;
- the secret is sent in the token request's form body only, no error quotes the identity
  platform's answer beyond its error code, and a token that is not a well-formed bearer
  token is refused unquoted (it would otherwise be echoed by the HTTP library's error);
- an answer Resource Graph marks truncated without a ``$skipToken`` is refused: a partial
  set of bands must not pass for all of them.

The bands carry no date of their own: they are as of the read, which the offer's price date
already says.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import requests

from pricing.errors import AdapterError
from pricing.http import post_json
from pricing.offer import AZURE_EVICTION_BANDS, Offer, PricingModel

TOKEN_SCOPE = "https://management.azure.com/.default"
QUERY = (
    "SpotResources"
    " | where type =~ 'microsoft.compute/skuspotevictionrate/location'"
    " | where tostring(sku.name) startswith 'standard_n'"
    " | project skuName = tostring(sku.name), location,"
    " evictionRate = tostring(properties.evictionRate)"
)
PAGE_ROWS = 1000  # Resource Graph's largest $top
MAX_PAGES = 100  # GPU sizes x regions are a few thousand rows: more pages is a loop
# Azure's band as written, less any "%" and spaces -> this project's label
AZURE_WRITES = ("0-5", "5-10", "10-15", "15-20", "20+")
_AZURE_BANDS = dict(zip(AZURE_WRITES, AZURE_EVICTION_BANDS, strict=True))
_TENANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,99}")
# RFC 6750's b64token: anything else would break the Authorization header, or be quoted by it
_BEARER = re.compile(r"[A-Za-z0-9._~+/-]+=*")
SETTINGS = "BREAKEVEN_AZURE_TENANT_ID, BREAKEVEN_AZURE_CLIENT_ID, BREAKEVEN_AZURE_CLIENT_SECRET"

log = logging.getLogger(__name__)

Bands = Mapping[tuple[str, str], str]  # (region, size), lower case -> "0-5% per hour" ...


@dataclass(frozen=True)
class Credentials:
    """A Microsoft Entra application's client credentials; the secret never printed."""

    tenant_id: str
    client_id: str
    client_secret: str = field(repr=False)


def fetch_bands(
    http: requests.Session,
    login_url: str,
    graph_url: str,
    credentials: Credentials,
    timeout: float,
) -> dict[tuple[str, str], str]:
    """Every GPU size's band per region: a token, then the query's pages."""
    token = fetch_token(http, login_url, credentials, timeout)
    rows: list[Any] = []
    followed: set[str] = set()
    skip: str | None = None
    for page in range(1, MAX_PAGES + 1):
        options: dict[str, Any] = {"resultFormat": "objectArray", "$top": PAGE_ROWS}
        if skip is not None:
            options["$skipToken"] = skip
        body = post_json(
            http,
            graph_url,
            timeout,
            {"query": QUERY, "options": options},
            headers={"Authorization": f"Bearer {token}"},
            refused=f"Resource Graph refused the token of {SETTINGS}",
            explain=_graph_error,
        )
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            raise AdapterError(f"Resource Graph page {page}: answer has no 'data' list")
        rows += body["data"]
        skip = body.get("$skipToken")
        if not skip:
            if str(body.get("resultTruncated", "")).lower() == "true":
                # Resource Graph cut the answer and gave no way on: a partial set of bands
                # would pass for the whole one
                raise AdapterError(f"Resource Graph page {page}: result truncated, no $skipToken")
            bands, unread = parse_rows(rows)
            if unread:
                log.warning("azure: %d eviction-rate rows not read (no known band)", unread)
            if not bands:
                log.warning("azure: Resource Graph gave no eviction band (no subscription read?)")
            return bands
        if not isinstance(skip, str) or skip in followed:
            raise AdapterError(f"Resource Graph page {page}: $skipToken repeats or is not text")
        followed.add(skip)
    raise AdapterError(f"Resource Graph: more than {MAX_PAGES} pages of eviction rates")


def fetch_token(
    http: requests.Session, login_url: str, credentials: Credentials, timeout: float
) -> str:
    """An access token for Azure Resource Manager, by the client-credentials grant."""
    tenant = credentials.tenant_id
    if not _TENANT.fullmatch(tenant):
        raise AdapterError("BREAKEVEN_AZURE_TENANT_ID is not a tenant id or domain name")
    form = {
        "grant_type": "client_credentials",
        "client_id": credentials.client_id,
        "client_secret": credentials.client_secret,
        "scope": TOKEN_SCOPE,
    }
    url = f"{login_url.rstrip('/')}/{tenant}/oauth2/v2.0/token"
    body = post_json(
        http,
        url,
        timeout,
        None,
        form=form,
        refused=f"the client credentials were refused ({SETTINGS})",
        explain=_token_error,
    )
    token = body.get("access_token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not _BEARER.fullmatch(token):
        raise AdapterError(f"POST {url}: answer has no well-formed access_token")
    return token


def parse_rows(rows: Iterable[Any]) -> tuple[dict[tuple[str, str], str], int]:
    """(region, size) -> band, and how many rows gave no band."""
    bands: dict[tuple[str, str], str] = {}
    unread = 0
    for row in rows:
        size = row.get("skuName") if isinstance(row, dict) else None
        region = row.get("location") if isinstance(row, dict) else None
        band = band_label(row.get("evictionRate")) if isinstance(row, dict) else None
        if not isinstance(size, str) or not isinstance(region, str) or band is None:
            unread += 1
            continue
        bands[(region.lower(), size.lower())] = band
    return bands, unread


def band_label(value: Any) -> str | None:
    """This project's label of a band as Azure writes it; None: not a band."""
    if not isinstance(value, str):
        return None
    return _AZURE_BANDS.get(value.replace("%", "").replace(" ", ""))


def with_bands(
    offers: Iterable[Offer], bands: Bands, is_spot_vm: Callable[[Offer], bool]
) -> list[Offer]:
    """The offers, each Spot VM (``is_spot_vm``) with its band where Azure gives one."""
    return [
        replace(offer, interruption=band)
        if offer.pricing is PricingModel.SPOT
        and is_spot_vm(offer)
        and (band := bands.get((offer.region.lower(), offer.product.lower())))
        else offer
        for offer in offers
    ]


def _token_error(status: int, document: Any) -> str | None:
    """The identity platform's error code ("invalid_client"), never its description."""
    code = document.get("error") if isinstance(document, dict) else None
    return str(code)[:80] if code else None


def _graph_error(status: int, document: Any) -> str | None:
    error = document.get("error") if isinstance(document, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return str(code)[:80] if code else None
