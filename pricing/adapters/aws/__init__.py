"""AWS EC2: on-demand and spot prices of every accelerated instance type, per region.

With credentials (boto3's standard chain) on-demand comes from the Price List Query API and
spot from DescribeSpotPriceHistory; without, on-demand comes from the public bulk offer file
and spot from the public spot pricing page's data. Either way each spot offer carries its
interruption band from the Spot Instance Advisor's public data, and, either way, the
Savings Plans paid as used come from the public Savings Plans file (the Price List Query API
does not serve them). The public spot files and the Savings Plans file are extras: when one
fails, the run goes on without it and its record says so. boto3
itself honours AWS_ENDPOINT_URL_PRICING and AWS_ENDPOINT_URL_EC2, which is how tests point
it at local fakes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import requests

from pricing.adapters import Batch
from pricing.adapters.aws import bulk, price_list, public_spot, savings_plans, spot
from pricing.adapters.aws.common import PROVIDER, log, skip_report, unique
from pricing.adapters.aws.instances import InstanceMap, load_instance_map
from pricing.adapters.kit import HttpConfig
from pricing.errors import AdapterError
from pricing.offer import Offer


@dataclass(frozen=True)
class AwsConfig:
    regions: tuple[str, ...]
    bulk_url: str
    http: HttpConfig = field(default_factory=HttpConfig)
    spot_prices_url: str = ""  # the public spot files (settings); "" = not read
    spot_advisor_url: str = ""
    savings_plans_url: str = ""  # the Savings Plans region index (settings); "" = not read


class AwsAdapter:
    name = PROVIDER

    def __init__(
        self,
        config: AwsConfig,
        http: requests.Session | None = None,
        boto_session: Callable[[], Any] | None = None,  # None: a new boto3 Session
        instances: InstanceMap | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.config = config
        self._http = http
        self._boto_session = boto_session
        self._instances = instances
        self._clock = clock

    def fetch(self) -> Batch:
        instances = load_instance_map() if self._instances is None else self._instances
        # boto3 is imported when a fetch needs it: it adds ~0.5 s to every process start.
        import boto3

        session = (self._boto_session or boto3.session.Session)()
        now = self._clock()
        today = now.date().isoformat()
        skipped = skip_report()
        offers: list[Offer] = []
        if session.get_credentials() is not None:
            pricing_client = self._client(session, "pricing", price_list.PRICING_REGION)
            for region in self.config.regions:
                entries = list(price_list.fetch_price_list(pricing_client, region))
                if not entries:  # the filters ask for GPU families: there are always some
                    raise AdapterError(f"{region}: GetProducts answered no products")
                offers += price_list.parse_price_list(entries, instances, today, skipped)
                ec2 = self._client(session, "ec2", region)
                history = spot.fetch_spot_history(ec2, now)
                offers += spot.parse_spot_history(history, region, instances, today)
            version = "Price List Query API + DescribeSpotPriceHistory"
        else:
            http = self._http or self.config.http.session()
            versions = []
            for region in self.config.regions:
                file = bulk.fetch_offer_file(
                    http,
                    self.config.bulk_url,
                    region,
                    instances,
                    today,
                    skipped,
                    self.config.http.timeout_seconds,
                )
                offers += file.offers
                versions.append(f"{region} {file.version}")
            public, note = self._public_spot(instances, today)
            offers += public
            version = f"spot: {note}; bulk offer files " + ", ".join(versions)
        plans, plans_note = self._savings_plans(instances, today)
        offers += plans
        bands, note = self._bands()
        # first in the run record, whose 200 characters a long region list would fill
        version = f"bands: {note}; {plans_note}; {version}"
        return Batch(
            unique(public_spot.with_bands(offers, bands)), source_version=skipped.version(version)
        )

    def _public_spot(self, instances: InstanceMap, today: str) -> tuple[list[Offer], str]:
        """Spot offers from the public pricing page's data, or none and why."""
        if not self.config.spot_prices_url:
            return [], "no public spot data configured"
        try:
            document = self._public(self.config.spot_prices_url)
            offers = public_spot.parse_spot_prices(document, self.config.regions, instances, today)
        except AdapterError as exc:
            log.warning("aws: public spot data unavailable: %s", exc)
            return [], "public spot data unavailable (see the log), none"
        return offers, f"public spot price data ({len(offers)})"

    def _savings_plans(self, instances: InstanceMap, today: str) -> tuple[list[Offer], str]:
        """Savings Plans offers from the public file, or none and why."""
        if not self.config.savings_plans_url:
            return [], "savings plans: none configured"
        http = self._http or self.config.http.session()
        try:
            offers = savings_plans.fetch_plans(
                http,
                self.config.savings_plans_url,
                self.config.regions,
                instances,
                today,
                self.config.http.timeout_seconds,
            )
        except AdapterError as exc:
            log.warning("aws: Savings Plans file unavailable: %s", exc)
            return [], "savings plans unavailable (see the log), none"
        return offers, f"savings plans ({len(offers)})"

    def _bands(self) -> tuple[public_spot.Bands, str]:
        """The advisor's bands, or none (every spot offer then pays the assumed overhead)."""
        if not self.config.spot_advisor_url:
            return {}, "none configured, spot_overhead applies"
        try:
            bands = public_spot.parse_advisor(self._public(self.config.spot_advisor_url))
        except AdapterError as exc:
            log.warning("aws: Spot Instance Advisor data unavailable: %s", exc)
            return {}, "Spot Instance Advisor unavailable (see the log), spot_overhead applies"
        return bands, "Spot Instance Advisor"

    def _public(self, url: str) -> Any:
        http = self._http or self.config.http.session()
        return public_spot.fetch_document(http, url, self.config.http.timeout_seconds)

    def _client(self, session: Any, service: str, region: str) -> Any:
        from botocore.config import Config

        http = self.config.http
        config = Config(
            retries={"mode": "standard", "total_max_attempts": http.retries + 1},
            connect_timeout=http.timeout_seconds,
            read_timeout=http.timeout_seconds,
        )
        return session.client(service, region_name=region, config=config)  # type: ignore[call-overload]
