"""The ECB's euro reference rates, fetched: the XML feed of the last 90 working days.

No key, no account: the ECB publishes the rates for anyone, "for information purposes
only", free to reuse with the ECB cited (pricing/fx.py). The feed is a few tens of kB; a
body past ``MAX_BYTES`` is refused, not read, and a feed that does not parse, or parses to
no rate, fails the fetch: nothing is stored and the rates known before stay.
"""

from __future__ import annotations

from pricing.adapters.kit import HttpConfig
from pricing.errors import AdapterError
from pricing.fx import EuroRate, parse_xml
from pricing.http import get_chunks

DEFAULT_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml"
MAX_BYTES = 2_000_000  # the 90-day feed is about 40 kB; the whole history about 1 MB
CHUNK_BYTES = 65_536


def fetch_rates(url: str, http: HttpConfig) -> list[EuroRate]:
    """The rates the feed at ``url`` holds; every failure is an AdapterError naming it."""
    body = bytearray()
    with get_chunks(http.session(), url, http.timeout_seconds, CHUNK_BYTES) as chunks:
        for chunk in chunks:
            body += chunk
            if len(body) > MAX_BYTES:
                raise AdapterError(f"GET {url}: a rate feed of over {MAX_BYTES:,} bytes")
    try:
        return parse_xml(bytes(body))
    except ValueError as exc:
        raise AdapterError(f"GET {url}: {exc}") from exc
