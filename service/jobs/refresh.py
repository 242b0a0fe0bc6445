"""The refresh wiring: which adapters this deployment runs, built from the one settings
object, and the policy their runs follow."""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO, Any

from pydantic import SecretStr
from sqlalchemy import Connection, text
from sqlalchemy.engine import make_url

from pricing.adapters import Adapter
from pricing.adapters.aws import AwsAdapter, AwsConfig
from pricing.adapters.azure import AzureAdapter, AzureConfig
from pricing.adapters.bundled import BundledAdapter
from pricing.adapters.colab import ColabAdapter
from pricing.adapters.gcp import GcpAdapter, GcpConfig
from pricing.adapters.kit import HttpConfig
from pricing.adapters.lambda_cloud import LambdaAdapter, LambdaConfig
from pricing.refresh import RefreshPolicy
from pricing.sanity import SanityPolicy
from service.runtime import Runtime
from service.settings import Settings


def build_adapters(runtime: Runtime) -> dict[str, Adapter]:
    settings = runtime.settings
    http = HttpConfig(
        timeout_seconds=settings.http_timeout_seconds,
        retries=settings.http_retries,
        backoff_seconds=settings.http_backoff_seconds,
    )
    aws = AwsConfig(regions=settings.aws_regions, bulk_url=settings.aws_bulk_url, http=http)
    gcp = GcpConfig(
        billing_endpoint=settings.gcp_billing_endpoint,
        compute_endpoint=settings.gcp_compute_endpoint,
        project=settings.gcp_project,
        api_key=_secret(settings.gcp_api_key),
        http=http,
    )
    return {
        "bundled": BundledAdapter(runtime.resolve_accelerator),
        "aws": AwsAdapter(aws),
        "gcp": GcpAdapter(gcp),
        "colab": ColabAdapter(),
        "azure": AzureAdapter(AzureConfig(prices_url=settings.azure_prices_url, http=http)),
        "lambda": LambdaAdapter(
            LambdaConfig(
                url=settings.lambda_url, api_key=_secret(settings.lambda_api_key), http=http
            ),
            runtime.resolve_accelerator,
        ),
    }


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value else None


def refresh_policy(settings: Settings) -> RefreshPolicy:
    return RefreshPolicy(
        timeout_seconds=settings.refresh_timeout_seconds,
        history_days=settings.history_days,
        sanity=SanityPolicy(settings.price_jump_factor, settings.max_drop_share),
    )


def scheduled_adapters(runtime: Runtime) -> list[Adapter]:
    """The live sources the scheduler refreshes (BREAKEVEN_REFRESH_PROVIDERS)."""
    adapters = build_adapters(runtime)
    unknown = sorted(set(runtime.settings.refresh_providers) - set(adapters))
    if unknown:
        raise ValueError(f"BREAKEVEN_REFRESH_PROVIDERS names unknown sources: {unknown}")
    return [adapters[name] for name in runtime.settings.refresh_providers]


# Arbitrary constant naming "a provider's refresh" among this database's advisory
# locks (the scheduler's is 7_260_002, imports' 7_260_004); the provider's name is hashed
# into the second key. Taken by refreshes over HTTP and by the scheduler alike.
REFRESH_LOCK = 7_260_003


class ProviderLock:
    """Held while one provider refreshes; released by the OS or the server if we die."""

    def __init__(self, settings: Settings, store: Any, name: str) -> None:
        self._store = store
        self._name = name
        url = make_url(store.url)
        self._postgres = url.get_backend_name() == "postgresql"
        database = url.database or str(settings.data_dir / "breakeven.sqlite3")
        self._path = Path(database).with_suffix(f".refresh-{name}.lock")
        self._conn: Connection | None = None
        self._file: IO[str] | None = None

    def try_acquire(self) -> bool:
        if self._postgres:
            conn = self._store.engine.connect()
            query = text("SELECT pg_try_advisory_lock(:k, hashtext(:name))")
            if conn.execute(query, {"k": REFRESH_LOCK, "name": self._name}).scalar():
                conn.commit()
                self._conn = conn
                return True
            conn.close()
            return False
        self._path.parent.mkdir(parents=True, exist_ok=True)
        handle = self._path.open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._file = handle
        return True

    def release(self) -> None:
        if self._conn is not None:
            try:  # closing the session releases the lock even if this fails
                self._conn.execute(
                    text("SELECT pg_advisory_unlock(:k, hashtext(:name))"),
                    {"k": REFRESH_LOCK, "name": self._name},
                )
                self._conn.commit()
            finally:
                self._conn.close()
                self._conn = None
        if self._file is not None:
            self._file.close()  # drops the flock
            self._file = None
