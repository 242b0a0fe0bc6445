"""Settings of the GCP adapter, importable without the google-cloud SDK."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GcpConfig:
    billing_endpoint: str
    compute_endpoint: str
    project: str | None = None
    api_key: str | None = None
    timeout_seconds: float = 60.0
    retries: int = 3
    backoff_seconds: float = 0.5
