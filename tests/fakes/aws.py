"""Local fakes of the AWS price sources, in their real wire formats.

- Price List Query API: JSON 1.1 (``X-Amz-Target: AWSPriceListService.GetProducts``),
  PriceList entries as JSON strings, NextToken paging.
- EC2 Query API: form-encoded ``Action=DescribeSpotPriceHistory``, XML answer, nextToken.
- Price List Bulk API: the regional ``index.csv`` (5 preamble lines, 91-column header).
- Price List Bulk API, Savings Plans: ``region_index.json`` and each region's ``index.csv``
  (5 preamble lines, a 24-column header), rows built from the sample's real ones.
- The public spot files: ``/spot.json`` (the spot pricing page's data; ``/spot.js`` the
  same wrapped as ``callback(...);``) and ``/spot-advisor-data.json`` (the Spot Instance
  Advisor's), both from the samples' real excerpts unless a test sets others.

``AwsFake`` serves them all from one pytest-httpserver; tests point boto3 at it with
AWS_ENDPOINT_URL_PRICING / AWS_ENDPOINT_URL_EC2 and the adapter with BREAKEVEN_AWS_BULK_URL,
BREAKEVEN_AWS_SPOT_PRICES_URL, BREAKEVEN_AWS_SPOT_ADVISOR_URL and
BREAKEVEN_AWS_SAVINGS_PLANS_URL (``{base}{PLANS_INDEX}``).
"""

from __future__ import annotations

import copy
import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs
from xml.sax.saxutils import escape

from werkzeug import Request, Response

# The offer-file builders live with the benchmark that generates 1 GB with them; the tests
# use them through this module.
from bench.aws_offer_file import bulk_row, offer_file  # noqa: F401
from tests.fakes.faults import Faults

SAMPLES = Path(__file__).parent / "samples"
EC2_NS = "http://ec2.amazonaws.com/doc/2016-11-15/"
SPOT_JSON = "aws_spot_json_excerpt.json"
SPOT_ADVISOR = "aws_spot_advisor_data_excerpt.json"
PLANS_SAMPLE = "aws_savings_plan_csv_excerpt.csv"
PLANS_INDEX = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json"
PLANS_VERSION = "20240701073603"
# us-east-1's usage types have no region prefix; the others' do (USW2-BoxUsage:...)
USAGE_PREFIX = {"us-east-1": "", "us-west-2": "USW2-", "ap-northeast-1": "APN1-"}


def public_sample(name: str) -> Any:
    return json.loads((SAMPLES / name).read_text())


def price_list_entry(
    instance_type: str, usd: float, region: str = "us-east-1", **attrs: str
) -> str:
    """One PriceList element as the JSON string get_products returns."""
    sample = json.loads((SAMPLES / "aws_get_products_p4d_24xlarge.json").read_text())
    item = copy.deepcopy(sample["_parsed_PriceList_0"])
    a = item["product"]["attributes"]
    a.update(
        {
            "instanceType": instance_type,
            "regionCode": region,
            "usagetype": f"BoxUsage:{instance_type}",
        }
    )
    a.update(attrs)
    sku = f"SKU{abs(hash((instance_type, region, usd, tuple(attrs.items())))) % 10**10}"
    item["product"]["sku"] = sku
    item["version"] = "20261120000000"
    term = next(iter(item["terms"]["OnDemand"].values()))
    dimension = next(iter(term["priceDimensions"].values()))
    dimension["pricePerUnit"] = {"USD": f"{usd:.10f}"}
    return json.dumps(item)


@dataclass
class AwsFake:
    """State of the fake: what it serves and what it was asked."""

    price_list: dict[str, list[str]] = field(default_factory=dict)  # region -> entries
    spot: dict[str, list[dict[str, str]]] = field(default_factory=dict)  # region -> rows
    offer_files: dict[str, bytes] = field(default_factory=dict)  # region -> index.csv
    plan_files: dict[str, bytes] = field(default_factory=dict)  # region -> Savings Plans csv
    page_size: int = 2
    throttle_first: int = 0  # answer this many calls with throttling errors first
    broken_page: int | None = None  # 1-based GetProducts page to truncate
    bulk_status: int | None = None  # answer every offer-file request with this status
    # Faults by API: "GetProducts", "DescribeSpotPriceHistory", "bulk" (every region) or
    # "bulk <region>" (that region's offer file only).
    faults: dict[str, Faults] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    # The public spot files ("spot.json", "spot-advisor-data.json") as documents; the
    # samples unless a test sets its own. Faults by file name, as for the APIs above.
    public: dict[str, Any] = field(
        default_factory=lambda: {
            "spot.json": public_sample(SPOT_JSON),
            "spot-advisor-data.json": public_sample(SPOT_ADVISOR),
        }
    )

    def fault(self, api: str) -> Faults:
        return self.faults.setdefault(api, Faults())

    def release(self) -> None:
        for faults in self.faults.values():
            faults.release()

    def install(self, httpserver) -> str:  # type: ignore[no-untyped-def]
        httpserver.expect_request("/", method="POST").respond_with_handler(self._api)
        httpserver.expect_request(
            re.compile(r"^/offers/v1\.0/aws/AmazonEC2/current/[^/]+/index\.csv$")
        ).respond_with_handler(self._bulk)
        httpserver.expect_request(PLANS_INDEX).respond_with_handler(self._plans_index)
        httpserver.expect_request(
            re.compile(
                rf"^/savingsPlan/v1\.0/aws/AWSComputeSavingsPlan/{PLANS_VERSION}/[^/]+/index\.csv$"
            )
        ).respond_with_handler(self._plans)
        for name in ("spot.json", "spot.js", "spot-advisor-data.json"):
            httpserver.expect_request(f"/{name}", method="GET").respond_with_handler(self._public)
        return httpserver.url_for("/").rstrip("/")

    def _plans_index(self, request: Request) -> Response:
        """The Savings Plans region index: every region with a file, at its version's path."""
        self.requests.append({"api": "plans index"})
        status = self.fault("plans index").error_status()
        if status is not None:
            return Response(f"<Error><Code>Fake{status}</Code></Error>", status=status)
        base = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan"
        regions = [
            {"regionCode": region, "versionUrl": f"{base}/{PLANS_VERSION}/{region}/index.json"}
            for region in self.plan_files
        ]
        index = {"disclaimer": "", "publicationDate": "2024-07-01T07:36:03Z", "regions": regions}
        return Response(json.dumps(index), content_type="application/json")

    def _plans(self, request: Request) -> Response:
        region = request.path.split("/")[-2]
        self.requests.append({"api": "plans", "region": region})
        faults = self.fault(f"plans {region}")
        faults.stall()
        status = faults.error_status()
        if status is not None:
            return Response(f"<Error><Code>Fake{status}</Code></Error>", status=status)
        return Response(self.plan_files[region], content_type="text/csv")

    def _public(self, request: Request) -> Response:
        """A public spot file as S3/CloudFront serve it: spot.js wrapped for JSONP."""
        name = request.path.lstrip("/")
        self.requests.append({"api": name})
        faults = self.fault(name)
        status = faults.error_status()
        if status is not None:
            return Response(f"<Error><Code>Fake{status}</Code></Error>", status=status)
        if name == "spot.js":
            body = f"callback({json.dumps(self.public['spot.json'], separators=(',', ':'))});"
            return Response(body, content_type="application/x-javascript")
        text = json.dumps(self.public[name], separators=(",", ":"))
        return Response(faults.body(1, text), content_type="application/x-javascript")

    def _throttled(self) -> bool:
        if self.throttle_first > 0:
            self.throttle_first -= 1
            return True
        return False

    def _api(self, request: Request) -> Response:
        target = request.headers.get("X-Amz-Target", "")
        if target == "AWSPriceListService.GetProducts":
            return self._get_products(json.loads(request.get_data()))
        form = {k: v[0] for k, v in parse_qs(request.get_data(as_text=True)).items()}
        if form.get("Action") == "DescribeSpotPriceHistory":
            return self._spot_history(form, request.headers.get("Authorization", ""))
        return Response("unknown action", status=400)

    def _get_products(self, body: dict[str, Any]) -> Response:
        self.requests.append({"api": "GetProducts", **body})
        if self._throttled():
            error = {"__type": "ThrottlingException", "message": "Rate exceeded"}
            return Response(
                json.dumps(error), status=400, content_type="application/x-amz-json-1.1"
            )
        region = next(f["Value"] for f in body["Filters"] if f["Field"] == "regionCode")
        start = int(body.get("NextToken") or 0)
        page_number = start // self.page_size + 1
        faults = self.fault("GetProducts")
        faults.stall()
        status = faults.error_status(page_number)
        if status is not None:
            kind = "ThrottlingException" if status == 429 else "InternalFailure"
            error = {"__type": kind, "message": f"fake HTTP {status}"}
            return Response(
                json.dumps(error), status=status, content_type="application/x-amz-json-1.1"
            )
        entries = self.price_list.get(region, [])
        low, high, more = faults.window(len(entries), self.page_size, page_number)
        answer: dict[str, Any] = {"FormatVersion": "aws_v1", "PriceList": entries[low:high]}
        if more:
            answer["NextToken"] = str(page_number * self.page_size)
        text = faults.body(page_number, json.dumps(answer))
        if self.broken_page == page_number:
            text = text[: len(text) // 2]  # the connection died mid-body
        return Response(text, content_type="application/x-amz-json-1.1")

    def _spot_history(self, form: dict[str, str], authorization: str) -> Response:
        region = re.search(r"/(?:[0-9]{8})/([a-z0-9-]+)/ec2/", authorization)
        region_name = region.group(1) if region else "us-east-1"
        self.requests.append({"api": "DescribeSpotPriceHistory", "region": region_name, **form})
        if self._throttled():
            xml = (
                "<Response><Errors><Error><Code>RequestLimitExceeded</Code>"
                "<Message>Request limit exceeded.</Message></Error></Errors>"
                "<RequestID>fake</RequestID></Response>"
            )
            return Response(xml, status=503, content_type="text/xml")
        start = int(form.get("NextToken") or 0)
        page_number = start // self.page_size + 1
        faults = self.fault("DescribeSpotPriceHistory")
        faults.stall()
        status = faults.error_status(page_number)
        if status is not None:
            code = "RequestLimitExceeded" if status == 429 else "InternalError"
            xml = (
                f"<Response><Errors><Error><Code>{code}</Code>"
                f"<Message>fake HTTP {status}</Message></Error></Errors>"
                "<RequestID>fake</RequestID></Response>"
            )
            return Response(xml, status=status, content_type="text/xml")
        rows = self.spot.get(region_name, [])
        low, high, more = faults.window(len(rows), self.page_size, page_number)
        page = rows[low:high]
        items = "".join(
            "<item>"
            f"<instanceType>{escape(r['InstanceType'])}</instanceType>"
            f"<productDescription>{escape(r['ProductDescription'])}</productDescription>"
            f"<spotPrice>{escape(r['SpotPrice'])}</spotPrice>"
            f"<timestamp>{escape(r['Timestamp'])}</timestamp>"
            f"<availabilityZone>{escape(r['AvailabilityZone'])}</availabilityZone>"
            "</item>"
            for r in page
        )
        token = f"<nextToken>{page_number * self.page_size}</nextToken>" if more else ""
        xml = (
            f'<?xml version="1.0" encoding="UTF-8"?>'
            f'<DescribeSpotPriceHistoryResponse xmlns="{EC2_NS}">'
            f"<requestId>fake-request</requestId>"
            f"<spotPriceHistorySet>{items}</spotPriceHistorySet>{token}"
            f"</DescribeSpotPriceHistoryResponse>"
        )
        return Response(faults.body(page_number, xml), content_type="text/xml")

    def _bulk(self, request: Request) -> Response:
        region = request.path.split("/")[-2]
        self.requests.append({"api": "bulk", "region": region})
        if self._throttled():
            return Response("slow down", status=429, headers={"Retry-After": "0"})
        faults = self.faults.get(f"bulk {region}") or self.fault("bulk")
        faults.stall()
        status = faults.error_status()
        if status is not None:
            headers = {"Retry-After": "0"} if status == 429 else {}
            error = f"<Error><Code>Fake{status}</Code></Error>"
            return Response(error, status=status, headers=headers)
        if self.bulk_status is not None:
            return Response("<Error><Code>InternalError</Code></Error>", status=self.bulk_status)
        if region not in self.offer_files:
            return Response("<Error><Code>NoSuchKey</Code></Error>", status=404)
        return Response(self.offer_files[region], content_type="text/csv")


def spot_row(
    instance_type: str, zone: str, price: float, when: str, os: str = "Linux/UNIX"
) -> dict:
    return {
        "InstanceType": instance_type,
        "ProductDescription": os,
        "SpotPrice": f"{price:.6f}",
        "Timestamp": when,
        "AvailabilityZone": zone,
    }


def _plan_sample() -> list[list[str]]:
    return list(csv.reader(io.StringIO((SAMPLES / PLANS_SAMPLE).read_text())))


def plan_row(
    instance_type: str,
    rate: float,
    region: str = "us-east-1",
    plan: str = "EC2InstanceSavingsPlans",
    years: int = 1,
    option: str = "No Upfront",
    **columns: str,
) -> list[str]:
    """One Savings Plans row in the sample's real shape: its first row with the instance,
    region, rate, plan, term and payment option set (and any other column by name)."""
    rows = _plan_sample()
    header, row = rows[5], list(rows[6])
    family = instance_type.split(".")[0]
    kind = "EC2 Instance Savings Plan" if plan == "EC2InstanceSavingsPlans" else "Compute"
    values = {
        "DiscountedRate": f"{rate:g}",
        "DiscountedUsageType": f"{USAGE_PREFIX.get(region, '')}BoxUsage:{instance_type}",
        "DiscountedOperation": "RunInstances",
        "PurchaseOption": option,
        "LeaseContractLength": str(years),
        "Description": f"{years} year {option} {family} {kind} in {region}",
        "Instance Family": family,
        "Product Family": plan,
        "DiscountedRegionCode": region,
        "DiscountedInstanceType": instance_type,
        **columns,
    }
    for name, value in values.items():
        row[header.index(name)] = value
    return row


def plan_file(rows: list[list[str]], with_sample: bool = True) -> bytes:
    """A region's Savings Plans CSV: the sample's preamble and header, its own real rows
    (c5: nothing to price) unless ``with_sample`` is False, then ``rows``."""
    sample = _plan_sample()
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerows(sample[:6])
    if with_sample:
        writer.writerows(sample[6:])
    writer.writerows(rows)
    return out.getvalue().encode()
