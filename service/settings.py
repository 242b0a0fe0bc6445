"""One settings object, read from ``BREAKEVEN_*`` environment variables.

The entry point (``create_app`` or the CLI) builds a :class:`Settings` and passes it down;
nothing else reads the environment. Every field carries its help text: ``python -m
service.docs`` writes the README's settings table from them and ``breakeven settings`` prints
the same rows (tests/test_docs.py holds the README to them). The cost assumptions' defaults are
settings too, derived from their one definition.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from service.engine.assumptions import defaults_model
from service.i18n import Language

# Regions with the widest choice of GPU instance types (p4d/p5/g5/g6/g6e): each costs one
# offer file download without credentials, so the default stays short.
AWS_GPU_REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-west-2",
    "eu-west-1",
    "eu-central-1",
    "ap-northeast-1",
    "ap-southeast-2",
)


def _default_data_dir() -> Path:
    """XDG data home, so the CLI and the service find the same SQLite file from any cwd."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "gpu-breakeven"


# BREAKEVEN_ELECTRICITY, BREAKEVEN_PUE ...: the cost assumptions' defaults, with the bounds
# and help of their one definition (service/engine/assumptions.py).
_SettingsWithAssumptions = defaults_model(BaseSettings, "_SettingsWithAssumptions", "Default")


class Settings(_SettingsWithAssumptions):  # type: ignore[valid-type,misc]
    model_config = SettingsConfigDict(
        env_prefix="BREAKEVEN_", extra="ignore", frozen=True, env_ignore_empty=True
    )

    data_dir: Path = Field(
        default_factory=_default_data_dir,
        description="Folder for the default SQLite database (default: "
        "$XDG_DATA_HOME/gpu-breakeven, ~/.local/share/gpu-breakeven without XDG_DATA_HOME).",
    )
    snapshot_file: Path | None = Field(
        default=None,
        description="The price snapshot loaded on first start and refreshed as `bundled`: "
        "default the package's (pricing/data/snapshot.csv); the tests' golden answers use a "
        "frozen one (tests/golden/catalog.csv), so a data change does not move them.",
    )
    database_url: str | None = Field(
        default=None,
        description=(
            "SQLAlchemy URL of the price store (default: SQLite in the data dir, "
            "sqlite:///<data_dir>/breakeven.sqlite3); PostgreSQL: postgresql+psycopg://user@host/db."
        ),
    )
    host: str = Field(default="127.0.0.1", description="Address `breakeven serve` binds to.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `breakeven serve` binds to.")
    web_workers: int = Field(
        default=2, ge=1, le=64, description="gunicorn worker processes for `breakeven serve`."
    )
    web_keepalive_seconds: int = Field(
        default=5,
        gt=0,
        le=300,
        description=(
            "An idle, slow or half-sent connection is closed after this many seconds "
            "without a complete request."
        ),
    )
    web_worker_timeout_seconds: int = Field(
        default=60,
        gt=0,
        description="A gunicorn worker whose event loop is stuck this long is restarted.",
    )
    web_graceful_timeout_seconds: int = Field(
        default=30,
        ge=0,
        description="On stop or restart, how long a worker may finish requests in flight.",
    )
    web_worker_connections: int = Field(
        default=10_000,
        ge=10,
        description="Connections one gunicorn worker holds at once (idle and slow ones "
        "included: a gevent worker holds tens of thousands; the open-file limit is raised "
        "to match where the hard limit allows).",
    )
    web_connections_per_client: int = Field(
        default=200,
        ge=0,
        description=(
            "Connections one client address may hold in one worker; more are answered 503 "
            "and closed, so one client cannot fill the worker. 0: no cap (behind a reverse "
            "proxy every client shares its address: raise it or set 0)."
        ),
    )
    web_trusted_proxies: int = Field(
        default=0,
        ge=0,
        le=5,
        description=(
            "Reverse proxies in front whose X-Forwarded-For and X-Forwarded-Proto are "
            "believed (docker-compose.yml's nginx: 1); 0 believes none, so a client cannot "
            "name its own address."
        ),
    )
    database_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description=(
            "Longest statement (PostgreSQL statement_timeout) or lock wait (SQLite busy "
            "timeout); past it the request answers from memory or 503."
        ),
    )
    refresh_wait_seconds: float = Field(
        default=30.0,
        gt=0,
        description=(
            "POST /refresh?wait=true waits this long, then answers 202 while the refresh "
            "goes on; kept below the worker timeout."
        ),
    )
    stale_after_hours: float = Field(
        default=48.0,
        gt=0,
        description="A price older than this many hours is reported as stale in answers.",
    )
    ecb_rates_url: str = Field(
        default="https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml",
        description="The ECB's euro reference rates (XML, last 90 working days), fetched by "
        "`breakeven fx-refresh` and the scheduler; no key.",
    )
    fx_refresh_cron: str = Field(
        default="30 15 * * *",
        description="When `breakeven scheduler` fetches the exchange rates: crontab, 5 fields "
        "(UTC; the ECB publishes about 16:00 CET on working days).",
    )
    lang: Language | None = Field(
        default=None,
        description="Language of the dashboard and the CLI's text (en or zh-CN) where the "
        "reader does not choose: the dashboard takes ?lang=, then the browser's "
        "Accept-Language, then this; the CLI takes --lang, then this, then LC_ALL, "
        "LC_MESSAGES or LANG (default: en).",
    )
    fx_stale_after_days: float = Field(
        default=7.0,
        gt=0,
        description="An exchange rate older than this many days is reported as stale in "
        "answers asked in another currency (the ECB publishes one each working day).",
    )
    catalog_check_seconds: float = Field(
        default=2.0,
        ge=0,
        description=(
            "How often a web worker asks the store whether a new refresh run became current."
        ),
    )
    refresh_cron: str = Field(
        default="0 */6 * * *",
        description="When `breakeven scheduler` refreshes: crontab, 5 fields (6 = seconds first).",
    )
    refresh_jitter_seconds: int = Field(
        default=300, ge=0, description="Random delay added to each scheduled refresh."
    )
    refresh_misfire_grace_minutes: float = Field(
        default=30, ge=0, description="A refresh missed by less than this still runs (once)."
    )
    refresh_providers: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(
            "aws",
            "gcp",
            "azure",
            "lambda",
            "colab",
            "runpod",
            "vast",
            "voltagepark",
            "oci",
            "verda",
            "hyperbolic",
        ),
        description="Comma list of sources the scheduler and a bare `breakeven refresh` run.",
    )
    refresh_timeout_seconds: float = Field(
        default=900, gt=0, description="Deadline of one provider's whole fetch."
    )
    scheduler_poll_seconds: float = Field(
        default=5, gt=0, description="How often a standby scheduler tries to take over."
    )
    scheduler_stale_after_seconds: float | None = Field(
        default=None,
        gt=0,
        description="An active scheduler that has not polled its database for this long (a "
        "frozen or hung process, PostgreSQL only) is ended and a standby takes over; at least "
        "3 x BREAKEVEN_SCHEDULER_POLL_SECONDS; unset: 60 s or 3 polls, the longer.",
    )
    history_days: float | None = Field(
        default=None,
        gt=0,
        description="Prices older than this many days are forgotten; unset keeps every price.",
    )
    price_jump_factor: float = Field(
        default=2.0, gt=1, description="A price that moved more than this x either way is suspect."
    )
    fx_jump_factor: float = Field(
        default=1.5,
        gt=1,
        description="A fetched exchange rate that moved more than this x either way from the "
        "newest known is held back (the fetch says so); the rate before keeps serving.",
    )
    max_drop_share: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="A run losing more than this share of current offers is refused unless forced.",
    )
    admin_token: SecretStr | None = Field(
        default=None,
        description="Bearer token for POST /refresh; unset = admin endpoints disabled (403).",
    )
    http_timeout_seconds: float = Field(
        default=60.0, gt=0, description="Connect and read timeout of every price source call."
    )
    http_retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="Retries (exponential backoff, jitter) on throttling and 5xx per call.",
    )
    http_backoff_seconds: float = Field(
        default=0.5,
        ge=0,
        description="Base of the exponential backoff between retries (seconds, jittered).",
    )
    aws_regions: Annotated[tuple[str, ...], NoDecode] = Field(
        default=AWS_GPU_REGIONS,
        description="Comma list of AWS regions to price (default: large GPU regions).",
    )
    aws_bulk_url: str = Field(
        default="https://pricing.us-east-1.amazonaws.com",
        description="Base URL of the AWS Price List Bulk API, used without AWS credentials.",
    )
    aws_spot_prices_url: str = Field(
        default="https://website.spot.ec2.aws.a2z.com/spot.json",
        description="AWS's public spot price data (spot.json), used without AWS credentials.",
    )
    aws_spot_advisor_url: str = Field(
        default="https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json",
        description="AWS Spot Instance Advisor data: each spot type's interruption band.",
    )
    aws_savings_plans_url: str = Field(
        default="https://pricing.us-east-1.amazonaws.com"
        "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json",
        description="AWS's public Savings Plans region index; each region's file gives the "
        "1- and 3-year plans paid as used. Empty: not read.",
    )

    gcp_billing_endpoint: str = Field(
        default="https://cloudbilling.googleapis.com",
        description="Cloud Billing Catalog API endpoint.",
    )
    gcp_compute_endpoint: str = Field(
        default="https://compute.googleapis.com",
        description="Compute Engine API endpoint (GPU availability per zone).",
    )
    gcp_project: str | None = Field(
        default=None,
        description="Project for the GPU availability lookup; unset = availability unchecked.",
    )
    gcp_api_key: SecretStr | None = Field(
        default=None,
        description="Google API key; unset = Application Default Credentials; neither = skip.",
    )

    azure_prices_url: str = Field(
        default="https://prices.azure.com/api/retail/prices",
        description="Azure Retail Prices API (public, no credentials).",
    )
    azure_tenant_id: str | None = Field(
        default=None,
        description="Microsoft Entra tenant (id or domain) of the app that reads Azure's spot "
        "eviction bands; unset = no bands, Azure spot pays spot_overhead.",
    )
    azure_client_id: str | None = Field(
        default=None, description="Client (application) id of that app; unset = no bands."
    )
    azure_client_secret: SecretStr | None = Field(
        default=None, description="Client secret of that app; unset = no bands."
    )
    azure_login_url: str = Field(
        default="https://login.microsoftonline.com",
        description="Microsoft identity platform: the token for Resource Graph.",
    )
    azure_resource_graph_url: str = Field(
        default="https://management.azure.com/providers/Microsoft.ResourceGraph/resources"
        "?api-version=2021-03-01",
        description="Azure Resource Graph query endpoint: spot eviction bands (SpotResources).",
    )
    lambda_url: str = Field(
        default="https://cloud.lambdalabs.com",
        description="Lambda Cloud API base URL.",
    )
    lambda_api_key: SecretStr | None = Field(
        default=None, description="Lambda Cloud API key; unset = the lambda source is skipped."
    )
    runpod_url: str = Field(
        default="https://api.runpod.io/graphql",
        description="RunPod GraphQL API endpoint (GPU types and prices).",
    )
    runpod_api_key: SecretStr | None = Field(
        default=None, description="RunPod API key; unset = the runpod source is skipped."
    )
    vast_url: str = Field(
        default="https://console.vast.ai/api/v0/bundles/",
        description="Vast.ai offer search endpoint (/api/v0/bundles/).",
    )
    vast_api_key: SecretStr | None = Field(
        default=None, description="Vast.ai API key; unset = the vast source is skipped."
    )
    oci_prices_url: str = Field(
        default="https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/",
        description="Oracle Cloud's public price list (every part, USD asked; no key).",
    )
    voltagepark_url: str = Field(
        default="https://cloud-api.voltagepark.com",
        description="Voltage Park API base URL (its public bare-metal locations list: no key).",
    )
    hyperbolic_url: str = Field(
        default="https://api.hyperbolic.ai",
        description="Hyperbolic API base URL (its public on-demand rental options: no key).",
    )
    verda_url: str = Field(
        default="https://api.verda.com",
        description="Verda (DataCrunch) API base URL (its public instance types and long-term "
        "contract periods: no key).",
    )

    @field_validator("aws_regions", "refresh_providers", mode="before")
    @classmethod
    def _comma_list(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @model_validator(mode="after")
    def _stale_after_polls(self) -> Settings:
        # a leader polls each scheduler_poll_seconds: a bound closer than a few polls would
        # end a live one that a busy machine made late
        stale = self.scheduler_stale_after_seconds
        if stale is not None and stale < 3 * self.scheduler_poll_seconds:
            raise ValueError(
                "scheduler_stale_after_seconds must be at least 3 x scheduler_poll_seconds "
                f"({3 * self.scheduler_poll_seconds:g})"
            )
        return self

    def stale_scheduler_seconds(self) -> float:
        """How long an active scheduler may go without polling before a standby ends it."""
        stale = self.scheduler_stale_after_seconds
        return stale if stale is not None else max(60.0, 3 * self.scheduler_poll_seconds)

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'breakeven.sqlite3'}"


def settings_table() -> list[tuple[str, str, str]]:
    """(environment variable, default, help) rows: the README table and `--help` use these."""
    rows = []
    for name, field in Settings.model_fields.items():
        default = "(see help)" if field.default_factory else field.default
        rows.append((f"BREAKEVEN_{name.upper()}", str(default), field.description or ""))
    return rows
