"""A fault matrix for every live price adapter, each through its local fake.

Rows are the live adapters: ``aws-creds`` (Price List Query API + DescribeSpotPriceHistory),
``aws-bulk`` (the public offer files, no credentials), ``gcp``, ``azure`` and ``lambda``.
Columns are the faults a price source really shows. Every case runs through
``pricing.refresh.run_adapter`` into a real SQLite store that already holds a good run of the
adapter, next to another provider refreshed in the same test, and asserts the documented
outcome: the run succeeds with the right offers (retried faults, empty pages followed,
duplicates collapsed, foreign-currency items rejected while the rest is priced), or it fails
with an error naming the problem while the previous prices keep serving and GET /providers
(``Store.provider_status``) shows the error. ``python -m tests.test_adapter_faults`` prints
the matrix as a table.
"""

from __future__ import annotations

import functools
import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from hardware import load_hardware
from pricing.adapters import Adapter, Batch
from pricing.adapters.aws import AwsAdapter, AwsConfig
from pricing.adapters.azure import AzureAdapter, AzureConfig
from pricing.adapters.gcp import GcpAdapter, GcpConfig
from pricing.adapters.gcp.skus import CLOUD_TPU, COMPUTE_ENGINE
from pricing.adapters.kit import HttpConfig
from pricing.adapters.lambda_cloud import LambdaAdapter, LambdaConfig
from pricing.offer import StoredOffer
from pricing.refresh import RefreshPolicy, run_adapter
from pricing.store import Store
from tests.fakes import aws, azure, gcp, lambda_cloud
from tests.fakes.faults import Faults
from tests.helpers import offer

RETRIES = 2
BACKOFF = 0.01
TIMEOUT = 0.5  # every adapter's per-call timeout here
HTTP = HttpConfig(timeout_seconds=TIMEOUT, retries=RETRIES, backoff_seconds=BACKOFF)
STALL = 10.0  # a hung backend stalls this long (cut short when the test ends)
POLICY = RefreshPolicy(timeout_seconds=30.0)  # the run's own deadline: far beyond TIMEOUT
NOW = datetime(2026, 11, 29, 18, 30, tzinfo=UTC)
HTML = "<html><body><h1>502 Bad Gateway</h1></body></html>"  # a proxy's page, served as 200

# -- the matrix -------------------------------------------------------------------------------

ADAPTERS = ("aws-creds", "aws-bulk", "gcp", "azure", "lambda")
FAULTS = (
    "refused",
    "timeout",
    "429-burst",
    "5xx-burst",
    "5xx-exhausted",
    "truncated",
    "malformed",
    "wrong-currency",
    "empty-page",
    "empty-answer",
    "duplicates",
    "page2-fails",
)
OK_RETRIED = "ok-retried"
OK_FOLLOWED = "ok-followed"  # an empty page's next link followed, every item priced
OK_COLLAPSED = "ok-collapsed"  # one offer per item however often the source repeats it
REJECTED_ITEM = "rejected-item"  # the foreign-currency item rejected, the rest priced
FAILED = "failed-kept-previous"

NOT_APPLICABLE = {
    ("aws-bulk", "empty-page"): "no paging: one offer file per region",
    ("lambda", "wrong-currency"): "no currency field: prices are US cents",
    ("lambda", "empty-page"): "no paging: one GET answers everything",
    ("lambda", "page2-fails"): "no paging: one GET answers everything",
}

REFUSED = r"(?i)connection refused|could not connect"
READ_TIMEOUT = r"(?i)read time"  # requests: "Read timed out"; botocore: "Read timeout on"
NOT_JSON = r"not JSON"


@dataclass(frozen=True)
class Case:
    adapter: str
    fault: str
    outcome: str
    error: str = ""  # for failures: a regex the run's error must match
    target: str = ""  # the faulted API where an adapter reads more than one

    @property
    def id(self) -> str:
        return f"{self.adapter}-{self.fault}" + (f"-{self.target}" if self.target else "")


def _common(adapter: str, **errors: str) -> list[Case]:
    """The faults every adapter shares, with the error text each failure must show."""
    return [
        Case(adapter, "refused", FAILED, REFUSED),
        Case(adapter, "timeout", FAILED, READ_TIMEOUT),
        Case(adapter, "429-burst", OK_RETRIED),
        Case(adapter, "5xx-burst", OK_RETRIED),
        Case(adapter, "5xx-exhausted", FAILED, errors["exhausted"]),
        Case(adapter, "truncated", FAILED, errors["truncated"]),
        Case(adapter, "malformed", FAILED, errors["malformed"]),
        Case(adapter, "empty-answer", FAILED, errors["empty"]),
        Case(adapter, "duplicates", OK_COLLAPSED),
    ]


CASES = [
    *_common(
        "aws-creds",
        exhausted=r"InternalFailure.*GetProducts.*max retries",
        truncated=r"GetProducts page 2 is malformed or truncated",
        malformed=r"GetProducts page 1 is malformed or truncated",
        empty=r"us-east-1: GetProducts answered no products",
    ),
    Case("aws-creds", "5xx-exhausted", FAILED, r"InternalError.*DescribeSpot.*max retries", "spot"),
    Case("aws-creds", "truncated", FAILED, r"Unable to parse response .* invalid XML", "spot"),
    Case("aws-creds", "malformed", FAILED, r"DescribeSpotPriceHistory page 1 is malformed", "spot"),
    Case("aws-creds", "wrong-currency", REJECTED_ITEM),
    Case("aws-creds", "empty-page", OK_FOLLOWED),
    Case("aws-creds", "empty-page", OK_FOLLOWED, target="spot"),
    Case("aws-creds", "page2-fails", FAILED, r"InternalFailure.*GetProducts"),
    Case("aws-creds", "page2-fails", FAILED, r"InternalError.*DescribeSpot", "spot"),
    *_common(
        "aws-bulk",
        exhausted=r"us-east-1/index\.csv: HTTP 500",
        truncated=r"us-east-1: .*truncated",
        malformed=r"us-east-1: not an AmazonEC2 offer file",
        empty=r"us-east-1: offer file has no rows",
    ),
    Case("aws-bulk", "wrong-currency", REJECTED_ITEM),
    Case("aws-bulk", "page2-fails", FAILED, r"us-west-2/index\.csv: HTTP 500"),
    *_common(
        "gcp",
        exhausted=r"Google Cloud API: 500 .*fake HTTP 500",
        truncated=r"ParseError: Failed to load JSON",
        malformed=r"ParseError: Failed to load JSON",
        empty=r"Compute Engine answered no SKUs",
    ),
    Case("gcp", "wrong-currency", REJECTED_ITEM),
    Case("gcp", "empty-page", OK_FOLLOWED),
    Case("gcp", "page2-fails", FAILED, r"Google Cloud API: 500 .*fake HTTP 500"),
    *_common(
        "azure",
        exhausted=r"page 1: GET .*: HTTP 500",
        truncated=rf"page 2: GET .*: answer is {NOT_JSON}",
        malformed=rf"page 1: GET .*: answer is {NOT_JSON}",
        empty=r"no items on any of 1 page\(s\)",
    ),
    Case("azure", "wrong-currency", REJECTED_ITEM),
    Case("azure", "empty-page", OK_FOLLOWED),
    Case("azure", "page2-fails", FAILED, r"page 2: GET .*: HTTP 500"),
    *_common(
        "lambda",
        exhausted=r"instance-types: HTTP 500",
        truncated=rf"answer is {NOT_JSON}",
        malformed=rf"answer is {NOT_JSON}",
        empty=r"answer lists no instance types",
    ),
]


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def _threaded_server() -> Iterator[HTTPServer]:
    # Threaded: a stalled handler must not hold up the retry that follows it.
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture
def server(_threaded_server: HTTPServer) -> Iterator[HTTPServer]:
    yield _threaded_server
    _threaded_server.clear()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(f"sqlite:///{tmp_path}/s.sqlite3")
    store.create_schema()
    yield store
    store.dispose()


def closed_port_url() -> str:
    """A loopback URL nothing listens on: every connection is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@functools.cache
def _boto_session() -> Any:
    """One boto3 session for every credentialed case: a new one loads the EC2 model anew
    (~0.4 s a fetch). Its clients still read AWS_ENDPOINT_URL_* when each is made."""
    import boto3

    return boto3.session.Session()


class Static:
    def __init__(self, name: str, offers: list[Any]) -> None:
        self.name = name
        self.offers = offers

    def fetch(self) -> Batch:
        return Batch(self.offers, "static")


Key = tuple[str, str, str, str]  # product, region, zone, pricing


def _key(stored: StoredOffer) -> Key:
    o = stored.offer
    return (o.product, o.region, o.zone, o.pricing.value)


def _priced(offers: list[StoredOffer]) -> list[tuple[Key, float]]:
    """Every offer with its price, sorted: a duplicate shows up twice."""
    return sorted((_key(s), round(s.offer.usd_per_hour, 9)) for s in offers)


# -- one harness per adapter: its fake, its adapter, its baseline, its faults ------------------


class Harness:
    name: str  # the adapter's name in the store
    baseline: frozenset[Key]  # what a healthy run offers
    rejection_note = ""  # what the run record says about a rejected foreign-currency item

    def __init__(self, server: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
        self.server = server
        self.monkeypatch = monkeypatch

    def adapter(self, url: str | None = None) -> Adapter:
        raise NotImplementedError

    def faults(self, target: str) -> Faults:
        raise NotImplementedError

    def calls(self, target: str) -> int:
        """Requests the faulted API has answered so far."""
        raise NotImplementedError

    def release(self) -> None:
        raise NotImplementedError

    def inject(self, case: Case) -> set[Key]:
        """Break the fake as ``case`` says; returns the keys an ok run must no longer offer."""
        faults = self.faults(case.target)
        if case.fault == "timeout":
            faults.delay_seconds = STALL
        elif case.fault == "429-burst":
            faults.statuses = [429, 429]
        elif case.fault == "5xx-burst":
            faults.statuses = [500, 503]
        elif case.fault == "5xx-exhausted":
            faults.status = 500
        elif case.fault == "truncated":
            faults.truncate_page = 2
        elif case.fault == "malformed":
            faults.bodies[1] = HTML
        elif case.fault == "empty-page":
            faults.empty_pages = {2}
        elif case.fault == "page2-fails":
            faults.fail_page = 2
        elif case.fault == "wrong-currency":
            return self.wrong_currency()
        elif case.fault == "duplicates":
            self.duplicates()
        elif case.fault == "empty-answer":
            self.empty_answer()
        elif case.fault != "refused":
            raise AssertionError(f"no such fault {case.fault}")
        return set()

    def wrong_currency(self) -> set[Key]:
        raise NotImplementedError

    def duplicates(self) -> None:
        raise NotImplementedError

    def empty_answer(self) -> None:
        raise NotImplementedError


class AwsCreds(Harness):
    name = "aws"
    baseline = frozenset(
        {
            *(
                (t, "us-east-1", "", "on_demand")
                for t in (
                    "p4d.24xlarge",
                    "p5.48xlarge",
                    "g5.xlarge",
                    "g6e.12xlarge",
                    "g6.xlarge",
                    "g4dn.12xlarge",
                )
            ),
            ("p4d.24xlarge", "us-east-1", "us-east-1a", "spot"),
            ("p4d.24xlarge", "us-east-1", "us-east-1b", "spot"),
            ("p5.48xlarge", "us-east-1", "us-east-1a", "spot"),
            ("g5.xlarge", "us-east-1", "us-east-1a", "spot"),
        }
    )
    WHEN = "2026-11-29T10:00:00.000Z"

    def __init__(self, server: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(server, monkeypatch)
        self.fake = aws.AwsFake(page_size=2)
        self.fake.price_list = {
            "us-east-1": [  # 3 pages of 2
                aws.price_list_entry("p4d.24xlarge", 21.957642),
                aws.price_list_entry("p5.48xlarge", 55.04),
                aws.price_list_entry("g5.xlarge", 1.006),
                aws.price_list_entry("g6e.12xlarge", 10.493),
                aws.price_list_entry("g6.xlarge", 0.8048),
                aws.price_list_entry("g4dn.12xlarge", 3.912),
            ]
        }
        self.fake.spot = {
            "us-east-1": [  # 3 pages of 2
                aws.spot_row("p4d.24xlarge", "us-east-1a", 9.1, self.WHEN),
                aws.spot_row("p4d.24xlarge", "us-east-1b", 8.7, self.WHEN),
                aws.spot_row("p5.48xlarge", "us-east-1a", 20.0, self.WHEN),
                aws.spot_row("g5.xlarge", "us-east-1a", 0.4, self.WHEN),
                aws.spot_row("m5.large", "us-east-1a", 0.03, self.WHEN),
            ]
        }
        self.url = self.fake.install(server)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "dummy-secret")

    def adapter(self, url: str | None = None) -> Adapter:
        self.monkeypatch.setenv("AWS_ENDPOINT_URL_PRICING", url or self.url)
        self.monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", url or self.url)
        config = AwsConfig(
            regions=("us-east-1",),
            bulk_url=closed_port_url(),  # never read with credentials
            http=HTTP,
        )
        return AwsAdapter(config, boto_session=_boto_session, clock=lambda: NOW)

    def _api(self, target: str) -> str:
        return "DescribeSpotPriceHistory" if target == "spot" else "GetProducts"

    def faults(self, target: str) -> Faults:
        return self.fake.fault(self._api(target))

    def calls(self, target: str) -> int:
        return len([r for r in self.fake.requests if r["api"] == self._api(target)])

    def release(self) -> None:
        self.fake.release()

    def wrong_currency(self) -> set[Key]:
        entry = json.loads(self.fake.price_list["us-east-1"][2])  # g5.xlarge
        term = next(iter(entry["terms"]["OnDemand"].values()))
        next(iter(term["priceDimensions"].values()))["pricePerUnit"] = {"CNY": "7.2"}
        self.fake.price_list["us-east-1"][2] = json.dumps(entry)
        return {("g5.xlarge", "us-east-1", "", "on_demand")}

    def duplicates(self) -> None:
        self.fake.price_list["us-east-1"].append(self.fake.price_list["us-east-1"][1])
        self.fake.spot["us-east-1"].append(self.fake.spot["us-east-1"][0])

    def empty_answer(self) -> None:
        self.fake.price_list["us-east-1"] = []
        self.fake.spot["us-east-1"] = []


class AwsBulk(Harness):
    name = "aws"
    baseline = frozenset(
        {
            ("p5.48xlarge", "us-east-1", "", "on_demand"),
            ("g5.xlarge", "us-east-1", "", "on_demand"),
            ("p4d.24xlarge", "us-east-1", "", "on_demand"),
            ("g6.xlarge", "us-west-2", "", "on_demand"),
            ("g5.xlarge", "eu-west-1", "", "on_demand"),
        }
    )
    REGIONS = ("us-east-1", "us-west-2", "eu-west-1")  # a file each: the "pages" of this source

    def __init__(self, server: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(server, monkeypatch)
        self.rows = {
            "us-east-1": [
                aws.bulk_row("p5.48xlarge", 55.04),
                aws.bulk_row("g5.xlarge", 1.006),
                aws.bulk_row("m5.large", 0.096, Instance_Family="General purpose"),
                aws.bulk_row("p4d.24xlarge", 21.957642),
            ],
            "us-west-2": [aws.bulk_row("g6.xlarge", 0.8048, region="us-west-2")],
            "eu-west-1": [aws.bulk_row("g5.xlarge", 1.1, region="eu-west-1")],
        }
        self.fake = aws.AwsFake()
        self._write()
        self.url = self.fake.install(server)

    def _write(self) -> None:
        self.fake.offer_files = {region: aws.offer_file(rows) for region, rows in self.rows.items()}

    def adapter(self, url: str | None = None) -> Adapter:
        config = AwsConfig(
            regions=self.REGIONS,
            bulk_url=url or self.url,
            http=HTTP,
        )
        return AwsAdapter(config, clock=lambda: NOW)

    def faults(self, target: str) -> Faults:
        return self.fake.fault("bulk")

    def calls(self, target: str) -> int:
        return len([r for r in self.fake.requests if r["api"] == "bulk"])

    def release(self) -> None:
        self.fake.release()

    def inject(self, case: Case) -> set[Key]:
        data = self.fake.offer_files["us-east-1"]
        if case.fault == "truncated":
            # Cut off inside the CPU row, mid-file: the p4d row after it never arrives. Only
            # one offer of five is lost, too few for the drop-share net to notice.
            lines = data.split(b"\n")
            cpu = next(i for i, line in enumerate(lines) if b'"m5.large"' in line)
            kept = b"\n".join(lines[:cpu]) + b"\n" + lines[cpu][: len(lines[cpu]) // 2]
            self.fake.offer_files["us-east-1"] = kept
        elif case.fault == "malformed":
            self.fake.offer_files["us-east-1"] = HTML.encode()
        elif case.fault == "page2-fails":
            self.fake.fault("bulk us-west-2").status = 500
        else:
            return super().inject(case)
        return set()

    def wrong_currency(self) -> set[Key]:
        self.rows["us-east-1"][1] = aws.bulk_row("g5.xlarge", 7.2, Currency="CNY")
        self._write()
        return {("g5.xlarge", "us-east-1", "", "on_demand")}

    def duplicates(self) -> None:
        self.rows["us-east-1"].append(self.rows["us-east-1"][0])
        self._write()

    def empty_answer(self) -> None:
        self.rows = {region: [] for region in self.rows}  # preamble and header, no rows
        self._write()


class Gcp(Harness):
    name = "gcp"
    US = ("us-central1",)
    G2 = (4, 8, 12, 16, 24, 32, 48, 96)
    baseline = frozenset(
        {
            *((f"g2-standard-{n}", "us-central1", "", "on_demand") for n in G2),
            *(
                (f"n1-standard-{4 * n} + {n}x nvidia-tesla-t4", "us-central1", "", "on_demand")
                for n in (1, 2, 4)
            ),
            ("v6e-1", "us-east1", "", "on_demand"),
            ("v5litepod-1", "us-central1", "", "on_demand"),
            ("v3-8", "us-central1", "", "on_demand"),
        }
    )
    rejection_note = "1 non-USD or malformed SKUs rejected"

    def __init__(self, server: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(server, monkeypatch)
        us = list(self.US)
        self.fake = gcp.GcpFake(page_size=3)
        self.compute = [  # 3 pages: 3, 3, 2
            gcp.sku("Nvidia L4 GPU running in Americas", 0.56004, us),
            gcp.sku("G2 Instance Core running in Americas", 0.02, us, group="CPU"),
            gcp.sku("G2 Instance Ram running in Americas", 0.003, us, group="RAM"),
            gcp.sku("Nvidia Tesla T4 GPU running in Americas", 0.35, us),
            gcp.sku("N1 Predefined Instance Core running in Americas", 0.031611, us, group="N1"),
            gcp.sku("N1 Predefined Instance Ram running in Americas", 0.004237, us, group="N1"),
            gcp.sku("TpuV6e running in Americas", 2.7, ["us-east1"], group="TPU"),
            gcp.sku("TpuV5e running in Americas", 1.2, us, group="TPU"),
        ]
        self.fake.skus = {
            COMPUTE_ENGINE.split("/")[1]: self.compute,
            CLOUD_TPU.split("/")[1]: [gcp.sku("Tpu-v3 running in Americas", 8.0, us, group="TPU")],
        }
        self.fake.zones = {
            "zones/us-central1-a": gcp.accelerator_zone({"nvidia-l4": 8, "nvidia-tesla-t4": 4})
        }
        self.url = self.fake.install(server)

    def adapter(self, url: str | None = None) -> Adapter:
        config = GcpConfig(
            billing_endpoint=url or self.url,
            compute_endpoint=url or self.url,
            project="test-project",
            api_key=gcp.API_KEY,
            http=HTTP,
        )
        return GcpAdapter(config, clock=lambda: NOW)

    def faults(self, target: str) -> Faults:
        return self.fake.faults

    def calls(self, target: str) -> int:
        compute = COMPUTE_ENGINE.split("/")[1]
        return len([r for r in self.fake.requests if r.get("service") == compute])

    def release(self) -> None:
        self.fake.release()

    def wrong_currency(self) -> set[Key]:
        t4 = "Nvidia Tesla T4 GPU running in Americas"
        self.compute[3] = gcp.sku(t4, 31.5, list(self.US), currency="JPY")
        return {k for k in self.baseline if "nvidia-tesla-t4" in k[0]}

    def duplicates(self) -> None:
        self.compute.append(self.compute[0])  # the L4 SKU again, on page 3

    def empty_answer(self) -> None:
        for items in self.fake.skus.values():
            items.clear()


class Azure(Harness):
    name = "azure"
    baseline = frozenset(
        {
            ("Standard_NC24ads_A100_v4", "eastus", "", "on_demand"),
            ("Standard_NC24ads_A100_v4", "eastus", "", "spot"),
            ("Standard_ND96isr_H100_v5", "eastus", "", "on_demand"),
            ("Standard_NV36ads_A10_v5", "westeurope", "", "on_demand"),
            ("Standard_NC40ads_H100_v5", "westus3", "", "on_demand"),
            ("Standard_NC4as_T4_v3", "eastus", "", "on_demand"),
        }
    )
    rejection_note = "1 non-USD or malformed items rejected"

    def __init__(self, server: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(server, monkeypatch)
        self.fake = azure.AzureFake(page_size=2)
        self.fake.items = [  # 3 pages of 2
            azure.item("Standard_NC24ads_A100_v4", 3.673),
            azure.item("Standard_NC24ads_A100_v4", 0.7346, suffix=" Spot"),
            azure.item("Standard_ND96isr_H100_v5", 98.32),
            azure.item("Standard_NV36ads_A10_v5", 3.2, region="westeurope"),
            azure.item("Standard_NC40ads_H100_v5", 6.98, region="westus3"),
            azure.item("Standard_NC4as_T4_v3", 0.526),
        ]
        self.url = self.fake.install(server)

    def adapter(self, url: str | None = None) -> Adapter:
        prices_url = f"{url}/api/retail/prices" if url else self.url
        config = AzureConfig(
            prices_url=prices_url,
            http=HTTP,
        )
        return AzureAdapter(config, clock=lambda: NOW)

    def faults(self, target: str) -> Faults:
        return self.fake.faults

    def calls(self, target: str) -> int:
        return len(self.fake.requests)

    def release(self) -> None:
        self.fake.release()

    def wrong_currency(self) -> set[Key]:
        self.fake.items[5] = azure.item("Standard_NC4as_T4_v3", 0.49, currency="EUR")
        return {("Standard_NC4as_T4_v3", "eastus", "", "on_demand")}

    def duplicates(self) -> None:
        self.fake.items.append(self.fake.items[2])  # the ND H100 meter again, on page 4

    def empty_answer(self) -> None:
        self.fake.items = []


class Lambda(Harness):
    name = "lambda"
    baseline = frozenset(
        {
            ("gpu_8x_h100_sxm5", "us-tx-1", "", "on_demand"),
            ("gpu_1x_a10", "us-east-1", "", "on_demand"),
            ("gpu_1x_a10", "us-west-1", "", "on_demand"),
            ("gpu_1x_a100_sxm4", "us-east-1", "", "on_demand"),
        }
    )

    def __init__(self, server: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(server, monkeypatch)
        self.resolve = load_hardware().registry.canonical
        self.fake = lambda_cloud.LambdaFake()
        it = lambda_cloud.instance_type
        self.fake.types = {
            "gpu_8x_h100_sxm5": it(
                "gpu_8x_h100_sxm5", "8x H100 (80 GB SXM5)", 2392, ["us-tx-1"], gpus=8
            ),
            "gpu_1x_a10": it("gpu_1x_a10", "1x A10 (24 GB PCIe)", "75", ["us-east-1", "us-west-1"]),
            "gpu_1x_a100_sxm4": it("gpu_1x_a100_sxm4", "1x A100 (40 GB SXM4)", 129, ["us-east-1"]),
        }
        self.url = self.fake.install(server)

    def adapter(self, url: str | None = None) -> Adapter:
        config = LambdaConfig(
            url=url or self.url,
            api_key=lambda_cloud.API_KEY,
            http=HTTP,
        )
        return LambdaAdapter(config, self.resolve, clock=lambda: NOW)

    def faults(self, target: str) -> Faults:
        return self.fake.faults

    def calls(self, target: str) -> int:
        return len(self.fake.requests)

    def release(self) -> None:
        self.fake.release()

    def inject(self, case: Case) -> set[Key]:
        if case.fault == "truncated":
            self.fake.faults.truncate_page = 1  # the one answer, cut off
            return set()
        return super().inject(case)

    def duplicates(self) -> None:
        # The same instance type twice under one key (JSON keeps the last), and a region
        # listed twice.
        a10 = json.loads(json.dumps(self.fake.types["gpu_1x_a10"]))
        a10["regions_with_capacity_available"] *= 2
        entries = [f'"{name}": {json.dumps(entry)}' for name, entry in self.fake.types.items()]
        entries.append(f'"gpu_1x_a10": {json.dumps(a10)}')
        self.fake.faults.bodies[1] = '{"data": {' + ", ".join(entries) + "}}"

    def empty_answer(self) -> None:
        self.fake.types = {}


HARNESSES: dict[str, type[Harness]] = {
    "aws-creds": AwsCreds,
    "aws-bulk": AwsBulk,
    "gcp": Gcp,
    "azure": Azure,
    "lambda": Lambda,
}


# -- the test ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_fault(
    case: Case, server: HTTPServer, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = HARNESSES[case.adapter](server, monkeypatch)
    try:
        _check(case, harness, store)
    finally:
        harness.release()  # no stalled handler outlives the test


def _check(case: Case, harness: Harness, store: Store) -> None:
    name = harness.name
    other = Static("other", [offer(provider="other", product=f"box-{i}") for i in range(3)])
    assert run_adapter(store, other, POLICY).status == "ok"

    # A good run first: the prices that must keep serving if the faulty run fails.
    calls = harness.calls(case.target)
    good = run_adapter(store, harness.adapter(), POLICY)
    assert good.status == "ok", good.error
    healthy_calls = harness.calls(case.target) - calls
    previous = store.current_offers(name)
    previous_run = store.current_runs()[name]
    assert {_key(s) for s in previous} == harness.baseline
    assert len(previous) == len(harness.baseline)

    gone = harness.inject(case)
    adapter = harness.adapter(closed_port_url() if case.fault == "refused" else None)
    calls = harness.calls(case.target)
    result = run_adapter(store, adapter, POLICY)
    faulty_calls = harness.calls(case.target) - calls

    # Another provider refreshed in the same breath is untouched by the fault.
    other.offers = [replace(o, usd_per_hour=1.5) for o in other.offers]
    assert run_adapter(store, other, POLICY).status == "ok"
    assert {s.offer.usd_per_hour for s in store.current_offers("other")} == {1.5}
    status = {s.adapter: s for s in store.provider_status()}
    assert status["other"].last_error == ""

    if case.outcome == FAILED:
        assert result.status == "failed", f"accepted: {result}"
        assert re.search(case.error, result.error), result.error
        # The adapter itself caught it, not the drop-share net (a forced run bypasses that).
        assert "refused: would drop" not in result.error
        assert store.current_offers(name) == previous
        assert status[name].current == previous_run
        assert status[name].last_attempt.status == "failed"
        assert status[name].last_error == result.error
        if case.fault == "5xx-exhausted":
            assert faulty_calls == RETRIES + 1  # retried to the budget, then given up
        if case.fault == "timeout":
            assert result.seconds < STALL / 2  # each call's own timeout, not the run deadline
        return

    assert result.status == "ok", result.error
    current = store.current_offers(name)
    assert store.current_runs()[name].id != previous_run.id
    assert status[name].last_error == ""
    want = [(k, price) for k, price in _priced(previous) if k not in gone]
    assert _priced(current) == want
    if case.outcome == OK_RETRIED:
        assert faulty_calls == healthy_calls + 2  # two refusals, each retried
    elif case.outcome == OK_FOLLOWED:
        assert faulty_calls == healthy_calls + 1  # the empty page was asked for, and passed
    elif case.outcome == REJECTED_ITEM:
        assert gone and not gone & {_key(s) for s in current}
        if harness.rejection_note:  # the sources that count what they reject
            note = store.current_runs()[name].source_version
            assert harness.rejection_note in note, note


# -- the matrix as a table --------------------------------------------------------------------


def cells() -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], list[str]] = {}
    for case in CASES:
        label = case.outcome + (f" ({case.target})" if case.target else "")
        found.setdefault((case.adapter, case.fault), []).append(label)
    table = {key: ", ".join(labels) for key, labels in found.items()}
    table.update({key: f"n/a: {why}" for key, why in NOT_APPLICABLE.items()})
    return table


def table() -> str:
    grid = cells()
    rows = [["adapter", *FAULTS]]
    rows += [[a, *(grid.get((a, f), "MISSING") for f in FAULTS)] for a in ADAPTERS]
    return "\n".join(" | ".join(row) for row in rows)


def test_the_matrix_covers_every_adapter_and_fault() -> None:
    covered = {(c.adapter, c.fault) for c in CASES}
    assert covered.isdisjoint(NOT_APPLICABLE)
    assert covered | set(NOT_APPLICABLE) == {(a, f) for a in ADAPTERS for f in FAULTS}
    assert len({c.id for c in CASES}) == len(CASES)
    assert "MISSING" not in table()


if __name__ == "__main__":
    print(table())
