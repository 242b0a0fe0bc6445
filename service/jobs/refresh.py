"""The refresh wiring: which adapters this deployment runs, built from the one settings
object, and the policy their runs follow."""

from __future__ import annotations

from pydantic import SecretStr

from pricing.adapters import Adapter
from pricing.adapters.aws import AwsAdapter, AwsConfig
from pricing.adapters.azure import AzureAdapter, AzureConfig
from pricing.adapters.azure.eviction import Credentials
from pricing.adapters.bundled import BundledAdapter
from pricing.adapters.colab import ColabAdapter
from pricing.adapters.gcp import GcpAdapter, GcpConfig
from pricing.adapters.hyperbolic import HyperbolicAdapter
from pricing.adapters.kit import HttpConfig, WebConfig
from pricing.adapters.lambda_cloud import LambdaAdapter, LambdaConfig
from pricing.adapters.oci import OciAdapter
from pricing.adapters.runpod import RunPodAdapter, RunPodConfig
from pricing.adapters.vast import VastAdapter, VastConfig
from pricing.adapters.verda import VerdaAdapter
from pricing.adapters.voltagepark import VoltageParkAdapter
from pricing.offer import BUNDLED
from pricing.refresh import RefreshPolicy
from pricing.sanity import SanityPolicy
from service.runtime import Runtime
from service.settings import Settings


def http_config(settings: Settings) -> HttpConfig:
    """How every fetch calls its source: the deployment's timeout, retries and backoff."""
    return HttpConfig(
        timeout_seconds=settings.http_timeout_seconds,
        retries=settings.http_retries,
        backoff_seconds=settings.http_backoff_seconds,
    )


def build_adapters(runtime: Runtime) -> dict[str, Adapter]:
    settings = runtime.settings
    http = http_config(settings)
    aws = AwsConfig(
        regions=settings.aws_regions,
        bulk_url=settings.aws_bulk_url,
        http=http,
        spot_prices_url=settings.aws_spot_prices_url,
        spot_advisor_url=settings.aws_spot_advisor_url,
        savings_plans_url=settings.aws_savings_plans_url,
    )
    gcp = GcpConfig(
        billing_endpoint=settings.gcp_billing_endpoint,
        compute_endpoint=settings.gcp_compute_endpoint,
        project=settings.gcp_project,
        api_key=_secret(settings.gcp_api_key),
        http=http,
    )
    return {
        "bundled": BundledAdapter(runtime.resolve_accelerator, settings.snapshot_file),
        "aws": AwsAdapter(aws),
        "gcp": GcpAdapter(gcp),
        "colab": ColabAdapter(),
        "azure": AzureAdapter(azure_config(settings, http)),
        "lambda": LambdaAdapter(
            LambdaConfig(
                url=settings.lambda_url, api_key=_secret(settings.lambda_api_key), http=http
            ),
            runtime.resolve_accelerator,
        ),
        "runpod": RunPodAdapter(
            RunPodConfig(
                url=settings.runpod_url, api_key=_secret(settings.runpod_api_key), http=http
            ),
            runtime.resolve_accelerator,
        ),
        "vast": VastAdapter(
            VastConfig(url=settings.vast_url, api_key=_secret(settings.vast_api_key), http=http),
            runtime.resolve_accelerator,
        ),
        "oci": OciAdapter(
            WebConfig(url=settings.oci_prices_url, http=http), runtime.resolve_accelerator
        ),
        "voltagepark": VoltageParkAdapter(
            WebConfig(url=settings.voltagepark_url, http=http), runtime.resolve_accelerator
        ),
        "hyperbolic": HyperbolicAdapter(
            WebConfig(url=settings.hyperbolic_url, http=http), runtime.resolve_accelerator
        ),
        "verda": VerdaAdapter(
            WebConfig(url=settings.verda_url, http=http), runtime.resolve_accelerator
        ),
    }


def azure_config(settings: Settings, http: HttpConfig) -> AzureConfig:
    """Azure's prices always; its eviction bands where all three credentials are set (some
    but not all: none, and the run record names the missing ones)."""
    given = {
        "BREAKEVEN_AZURE_TENANT_ID": settings.azure_tenant_id,
        "BREAKEVEN_AZURE_CLIENT_ID": settings.azure_client_id,
        "BREAKEVEN_AZURE_CLIENT_SECRET": _secret(settings.azure_client_secret),
    }
    missing = tuple(name for name, value in given.items() if not value)
    tenant, client, secret = given.values()
    credentials = None
    if tenant and client and secret:
        credentials = Credentials(tenant_id=tenant, client_id=client, client_secret=secret)
    return AzureConfig(
        prices_url=settings.azure_prices_url,
        http=http,
        credentials=credentials,
        credentials_missing=() if len(missing) == len(given) else missing,
        login_url=settings.azure_login_url,
        resource_graph_url=settings.azure_resource_graph_url,
    )


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value else None


def refresh_policy(settings: Settings) -> RefreshPolicy:
    return RefreshPolicy(
        timeout_seconds=settings.refresh_timeout_seconds,
        history_days=settings.history_days,
        sanity=SanityPolicy(settings.price_jump_factor, settings.max_drop_share),
    )


def live_providers(runtime: Runtime) -> frozenset[str]:
    """The providers a live adapter is scheduled to refresh here (BREAKEVEN_REFRESH_PROVIDERS;
    the bundled snapshot is not one): an adapter in the code that no one runs is not."""
    return frozenset(runtime.settings.refresh_providers) - {BUNDLED}


def scheduled_adapters(runtime: Runtime) -> list[Adapter]:
    """The live sources the scheduler refreshes (BREAKEVEN_REFRESH_PROVIDERS)."""
    adapters = build_adapters(runtime)
    unknown = sorted(set(runtime.settings.refresh_providers) - set(adapters))
    if unknown:
        raise ValueError(f"BREAKEVEN_REFRESH_PROVIDERS names unknown sources: {unknown}")
    return [adapters[name] for name in runtime.settings.refresh_providers]
