"""Settings of the GCP adapter, importable without the google-cloud SDK."""

from __future__ import annotations

from dataclasses import dataclass, field

from pricing.adapters.kit import HttpConfig


@dataclass(frozen=True)
class GcpConfig:
    billing_endpoint: str
    compute_endpoint: str
    project: str | None = None
    api_key: str | None = None
    http: HttpConfig = field(default_factory=HttpConfig)
