"""The AWS adapter: parsers on real-format payloads, then whole refreshes against local fakes."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import requests
from click.testing import CliRunner

from pricing.adapters.aws.bulk import fetch_offer_file, parse_offer_file
from pricing.adapters.aws.common import UNMAPPED, skip_report, unique
from pricing.adapters.aws.instances import TRAINING, load_instance_map
from pricing.adapters.aws.price_file import lines
from pricing.adapters.aws.price_list import parse_price_list, product_filters
from pricing.adapters.aws.spot import parse_spot_history
from pricing.adapters.kit import SkipReport
from pricing.errors import AdapterError
from pricing.offer import PricingModel
from service.cli import cli
from service.settings import Settings
from tests.fakes.aws import (
    PLANS_INDEX,
    SAMPLES,
    AwsFake,
    bulk_row,
    offer_file,
    plan_file,
    plan_row,
    price_list_entry,
    spot_row,
)
from tests.helpers import source_of

INSTANCES = load_instance_map()
AWS_SECRET = "dummy-secret-access-key-for-tests"  # must never reach a log line
TODAY = "2026-11-29"


# -- parsers ----------------------------------------------------------------------------


def test_every_mapped_accelerator_is_in_the_hardware_registry(hardware) -> None:  # type: ignore[no-untyped-def]
    for name, instance in INSTANCES.items():
        if instance.use == TRAINING:
            assert instance.accelerator in hardware.registry, name
            assert instance.count >= 1


def test_price_list_sample_divides_the_8_gpu_instance_correctly() -> None:
    sample = json.loads((SAMPLES / "aws_get_products_p4d_24xlarge.json").read_text())
    (offer,) = parse_price_list(sample["response"]["PriceList"], INSTANCES, TODAY, skip_report())
    assert (offer.product, offer.accelerator, offer.count) == ("p4d.24xlarge", "a100-40gb", 8)
    assert offer.usd_per_hour == pytest.approx(21.957642)
    assert offer.usd_per_accelerator_hour == pytest.approx(21.957642 / 8)
    assert offer.region == "us-east-1" and offer.pricing == PricingModel.ON_DEMAND


def test_price_list_ignores_everything_but_linux_shared_box_usage_hours() -> None:
    host = (SAMPLES / "aws_get_products_pricelist_element_verbatim_dedicated_host.json").read_text()
    reserved_only = json.loads(price_list_entry("p5.48xlarge", 55.04))
    reserved_only["terms"] = {"Reserved": reserved_only["terms"]["OnDemand"]}
    non_usd = json.loads(price_list_entry("p5.48xlarge", 55.04))
    dimension = next(
        iter(next(iter(non_usd["terms"]["OnDemand"].values()))["priceDimensions"].values())
    )
    dimension["pricePerUnit"] = {"CNY": "400.0"}
    entries = [
        host,  # the verbatim $0 Dedicated Host SKU
        price_list_entry("p5.48xlarge", 55.04, operatingSystem="Windows"),
        price_list_entry("p5.48xlarge", 55.04, tenancy="Dedicated"),
        price_list_entry("p5.48xlarge", 55.04, usagetype="DedicatedUsage:p5.48xlarge"),
        price_list_entry("p5.48xlarge", 55.04, preInstalledSw="SQL Web"),
        price_list_entry("p5.48xlarge", 55.04, capacitystatus="UnusedCapacityReservation"),
        price_list_entry("p5.48xlarge", 0.0),
        json.dumps(reserved_only),
        json.dumps(non_usd),
        price_list_entry("inf2.48xlarge", 12.98),  # inference-only: known, not priced
        price_list_entry("g6e.12xlarge", 10.49),  # the one good row
    ]
    skipped = skip_report()
    offers = parse_price_list(entries, INSTANCES, TODAY, skipped)
    assert [(o.product, o.count, o.accelerator) for o in offers] == [("g6e.12xlarge", 4, "l40s")]
    assert skipped.lines() == []


def test_unknown_accelerated_family_is_reported_never_priced() -> None:
    skipped = skip_report()
    offers = parse_price_list([price_list_entry("p9.96xlarge", 99.0)], INSTANCES, TODAY, skipped)
    assert offers == [] and skipped.names(UNMAPPED) == {"p9.96xlarge"}
    assert skipped.lines() == [
        "1 accelerated instance types not in pricing/data/aws_instances.csv skipped (p9.96xlarge)"
    ]


def test_price_list_filters_are_exact() -> None:
    filters = {f["Field"]: (f["Type"], f["Value"]) for f in product_filters("us-west-2")}
    assert filters["regionCode"] == ("TERM_MATCH", "us-west-2")
    assert filters["operatingSystem"] == ("TERM_MATCH", "Linux")
    assert filters["tenancy"] == ("TERM_MATCH", "Shared")
    assert filters["preInstalledSw"] == ("TERM_MATCH", "NA")
    assert filters["capacitystatus"] == ("TERM_MATCH", "Used")


def _parse_file(data: bytes, chunk: int = 1 << 20, skipped: SkipReport | None = None):  # type: ignore[no-untyped-def]
    chunks = [data[i : i + chunk] for i in range(0, len(data), chunk)]
    return parse_offer_file(chunks, "us-east-1", INSTANCES, TODAY, skipped or skip_report())


def test_offer_file_keeps_only_linux_on_demand_box_usage_rows() -> None:
    sample_rows = (SAMPLES / "aws_bulk_offer_ec2_regional_csv_header_and_rows.csv").read_bytes()
    good = bulk_row("p5.48xlarge", 55.04)
    rows = [
        good,
        bulk_row("p5.48xlarge", 60.0, Operating_System="Windows"),
        bulk_row("p5.48xlarge", 40.0, TermType="Reserved", LeaseContractLength="1yr"),
        bulk_row(
            "p5.48xlarge", 50.0, Tenancy="Dedicated", usageType="USE1-DedicatedUsage:p5.48xlarge"
        ),
        bulk_row("p5.48xlarge", 0.0, **{"Product_Family": "Dedicated Host"}),
        bulk_row("p5.48xlarge", 0.0),
        bulk_row("p5.48xlarge", 31.0, MarketOption="CapacityBlock"),
        bulk_row("p5.48xlarge", 9.0, usageType="USE1-UnusedBox:p5.48xlarge"),
        bulk_row("p5.48xlarge", 70.0, **{"Pre Installed S/W": "SQL Std"}),
        bulk_row("p5.48xlarge", 30.0, Unit="Quantity"),
        bulk_row("g4dn.12xlarge", 3.912),
    ]
    result = _parse_file(offer_file(rows))
    priced = [(o.product, o.usd_per_hour, o.count) for o in result.offers]
    assert priced == [("p5.48xlarge", 55.04, 8), ("g4dn.12xlarge", 3.912, 4)]
    assert result.offers[0].usd_per_accelerator_hour == pytest.approx(6.88)
    assert result.version == "20261120000000"
    # The verbatim sample: two Reserved Windows rows of a non-GPU type, nothing to price.
    assert _parse_file(sample_rows).offers == []


def test_offer_file_parse_is_the_same_across_chunk_boundaries() -> None:
    data = offer_file([bulk_row("p4d.24xlarge", 21.957642), bulk_row("g6.xlarge", 0.8048)])
    whole = _parse_file(data).offers
    assert whole == _parse_file(data, chunk=7).offers == _parse_file(data, chunk=1).offers
    assert list(lines([b"a\nb", b"c\n", b"d"])) == [b"a", b"bc", b"d"]


def test_a_connection_lost_mid_file_is_an_adapter_error() -> None:
    class Dropped:  # a 200 answer whose body stops after the preamble
        status_code = 200

        def __enter__(self) -> Dropped:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def iter_content(self, size: int):  # type: ignore[no-untyped-def]
            yield offer_file([])
            raise requests.ConnectionError("Connection broken: IncompleteRead")

    http = SimpleNamespace(get=lambda url, **kwargs: Dropped())
    with pytest.raises(AdapterError, match=r"GET .*index\.csv: ConnectionError: Connection broken"):
        fetch_offer_file(http, "https://x", "us-east-1", INSTANCES, TODAY, skip_report(), 1.0)  # type: ignore[arg-type]


def test_offer_file_reports_unknown_types_and_rejects_broken_rows() -> None:
    skipped = skip_report()
    _parse_file(offer_file([bulk_row("p9.96xlarge", 99.0)]), skipped=skipped)
    assert skipped.names(UNMAPPED) == {"p9.96xlarge"}
    truncated = offer_file([bulk_row("p5.48xlarge", 55.04)])[:-200]
    with pytest.raises(AdapterError, match="truncated or malformed"):
        _parse_file(truncated)
    with pytest.raises(AdapterError, match="not an AmazonEC2 offer file"):
        _parse_file(b"<html>Access Denied</html>")


def test_spot_keeps_the_latest_linux_price_per_zone() -> None:
    sample = json.loads((SAMPLES / "aws_describe_spot_price_history.json").read_text())
    assert parse_spot_history(sample["SpotPriceHistory"], "us-west-1", INSTANCES, TODAY) == []
    rows = [
        spot_row("p4d.24xlarge", "us-east-1a", 14.0, "2026-11-29T10:00:00.000Z"),
        spot_row("p4d.24xlarge", "us-east-1a", 13.5, "2026-11-29T12:00:00.000Z"),
        spot_row("p4d.24xlarge", "us-east-1b", 12.0, "2026-11-29T11:00:00.000Z"),
        spot_row("p4d.24xlarge", "us-east-1c", 9.0, "2026-11-29T11:00:00.000Z", os="SUSE Linux"),
        spot_row("m5.large", "us-east-1a", 0.03, "2026-11-29T11:00:00.000Z"),
    ]
    offers = parse_spot_history(rows, "us-east-1", INSTANCES, TODAY)
    assert [(o.zone, o.usd_per_hour, o.pricing) for o in offers] == [
        ("us-east-1a", 13.5, PricingModel.SPOT),
        ("us-east-1b", 12.0, PricingModel.SPOT),
    ]


# -- whole refreshes against the fakes ---------------------------------------------------


@pytest.fixture
def fake(httpserver) -> AwsFake:  # type: ignore[no-untyped-def]
    fake = AwsFake()
    fake.price_list = {
        "us-east-1": [
            price_list_entry("p4d.24xlarge", 21.957642),
            price_list_entry("p5.48xlarge", 55.04),
            price_list_entry("g5.xlarge", 1.006),
            price_list_entry("g6e.12xlarge", 10.493),
            price_list_entry("p5.48xlarge", 60.0, operatingSystem="Windows"),
        ],
        "us-west-2": [price_list_entry("g6.xlarge", 0.8048, region="us-west-2")],
    }
    fake.spot = {
        "us-east-1": [
            spot_row("p4d.24xlarge", "us-east-1a", 9.1, "2026-11-29T20:00:00.000Z"),
            spot_row("p4d.24xlarge", "us-east-1b", 8.7, "2026-11-29T20:00:00.000Z"),
            spot_row("m5.large", "us-east-1a", 0.03, "2026-11-29T20:00:00.000Z"),
        ],
        "us-west-2": [spot_row("g6.xlarge", "us-west-2c", 0.31, "2026-11-29T20:00:00.000Z")],
    }
    fake.offer_files = {
        "us-east-1": offer_file([bulk_row("p5.48xlarge", 55.04), bulk_row("g5.xlarge", 1.006)]),
        "us-west-2": offer_file([bulk_row("g6.xlarge", 0.8048, region="us-west-2")]),
    }
    fake.base_url = fake.install(httpserver)  # type: ignore[attr-defined]
    return fake


def _env(settings: Settings, fake: AwsFake, credentials: bool) -> dict[str, str | None]:
    env: dict[str, str | None] = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_AWS_REGIONS": "us-east-1,us-west-2",
        "BREAKEVEN_HTTP_RETRIES": "3",
        "BREAKEVEN_HTTP_BACKOFF_SECONDS": "0.01",  # retried as often, without 0.5 s sleeps
        "BREAKEVEN_AWS_SPOT_PRICES_URL": f"{fake.base_url}/spot.json",  # type: ignore[attr-defined]
        "BREAKEVEN_AWS_SPOT_ADVISOR_URL": f"{fake.base_url}/spot-advisor-data.json",  # type: ignore[attr-defined]
    }
    if credentials:
        env.update(
            AWS_ENDPOINT_URL_PRICING=fake.base_url,  # type: ignore[attr-defined]
            AWS_ENDPOINT_URL_EC2=fake.base_url,  # type: ignore[attr-defined]
            AWS_ACCESS_KEY_ID="AKIDEXAMPLE",
            AWS_SECRET_ACCESS_KEY=AWS_SECRET,
        )
    else:
        env["BREAKEVEN_AWS_BULK_URL"] = fake.base_url  # type: ignore[attr-defined]
    return env


def _refresh(env: dict[str, str | None]):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["refresh", "--provider", "aws", "--wide"], env=env)


def test_refresh_with_credentials_stores_on_demand_and_spot(fake, settings, app) -> None:  # type: ignore[no-untyped-def]
    result = _refresh(_env(settings, fake, credentials=True))
    assert result.exit_code == 0, result.output
    assert "aws: ok, 8 offers" in result.output  # 5 on-demand + 3 spot zones
    pages = [r for r in fake.requests if r["api"] == "GetProducts"]
    assert len(pages) == 4  # us-east-1: 3 pages of 2; us-west-2: 1
    assert all(p["ServiceCode"] == "AmazonEC2" for p in pages)
    spot_calls = [r for r in fake.requests if r["api"] == "DescribeSpotPriceHistory"]
    assert {c["region"] for c in spot_calls} == {"us-east-1", "us-west-2"}
    assert all(c["ProductDescription.1"] == "Linux/UNIX" and c["StartTime"] for c in spot_calls)

    client = app.test_client()
    offers = client.get("/offers?provider=aws").get_json()["offers"]
    assert {(o["product"], o["pricing"], o["zone"]) for o in offers} == {
        ("p4d.24xlarge", "on_demand", ""),
        ("p5.48xlarge", "on_demand", ""),
        ("g5.xlarge", "on_demand", ""),
        ("g6e.12xlarge", "on_demand", ""),
        ("g6.xlarge", "on_demand", ""),
        ("p4d.24xlarge", "spot", "us-east-1a"),
        ("p4d.24xlarge", "spot", "us-east-1b"),
        ("g6.xlarge", "spot", "us-west-2c"),
    }
    p5 = next(o for o in offers if o["product"] == "p5.48xlarge")
    assert p5["usd_per_accelerator_hour"] == pytest.approx(6.88)
    # the advisor's bands apply to DescribeSpotPriceHistory's zones too (us-east-1 p4d: r2)
    bands = {(o["product"], o["zone"]): o["interruption"] for o in offers if o["pricing"] == "spot"}
    assert bands[("p4d.24xlarge", "us-east-1a")] == "10-15%"
    assert "bundled" not in {o["source"] for o in offers}
    answer = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&providers=aws").get_json()
    assert all(r["provider"] == "aws" for r in answer["rent"])
    assert {r["product"] for r in answer["rent"]} >= {"p4d.24xlarge", "g6e.12xlarge"}
    assert any("Price List Query API" in source_of(answer, r) for r in answer["rent"])


def test_refresh_without_credentials_streams_the_offer_files(fake, settings, app) -> None:  # type: ignore[no-untyped-def]
    """On demand from the bulk files; spot from the public spot.json (the sample: us-east-1,
    p4d 14.2313, p5 19.4933, g5.xlarge 0.5089 ...), each with its advisor band (us-east-1:
    p4d r2 = 10-15%, the others r4 = >20%)."""
    fake.throttle_first = 1  # one 429 first: retried
    result = _refresh(_env(settings, fake, credentials=False))
    assert result.exit_code == 0, result.output
    assert [r["api"] for r in fake.requests] == [
        *("bulk", "bulk", "bulk", "spot.json", "spot-advisor-data.json")
    ]
    offers = app.test_client().get("/offers?provider=aws").get_json()["offers"]
    on_demand = [o for o in offers if o["pricing"] == "on_demand"]
    assert sorted((o["product"], o["region"]) for o in on_demand) == [
        ("g5.xlarge", "us-east-1"),
        ("g6.xlarge", "us-west-2"),
        ("p5.48xlarge", "us-east-1"),
    ]
    spot = {o["product"]: o for o in offers if o["pricing"] == "spot"}
    assert {o["region"] for o in spot.values()} == {"us-east-1"}  # the sample's one region
    assert spot["p4d.24xlarge"]["usd_per_hour"] == 14.2313
    assert (spot["p4d.24xlarge"]["interruption"], spot["p5.48xlarge"]["interruption"]) == (
        "10-15%",
        ">20%",
    )
    assert all(o["interruption"] == "" for o in on_demand)
    (aws,) = [
        p for p in app.test_client().get("/providers").get_json()["providers"] if p["name"] == "aws"
    ]
    version = aws["current_run"]["source_version"]
    assert "public spot price data" in version and "Spot Instance Advisor" in version


def test_a_spot_offers_overhead_follows_its_interruption_band(fake, settings, app) -> None:  # type: ignore[no-untyped-def]
    """Two g5.xlarge spot offers alike but for their band: us-east-1 ">20%" (advisor r4),
    us-west-2 "<5%" (r0, set here). Overhead = band share / 24 h x 0.5 h lost each:
    1.00 / 24 x 0.5 = 0.0208 and 0.05 / 24 x 0.5 = 0.00104, so the same price buys
    the work in fewer hours where interruptions are rarer (hours in RTX 3090 work: the
    A10G has no purchase price to quote it as the bought card); a GCP or Azure spot offer
    (no band) pays the 10 % assumption."""
    west = {"region": "us-west-2", "instanceTypes": [{"type": "gpuCurrentGen", "sizes": [
        {"size": "g5.xlarge", "valueColumns": [{"name": "linux", "prices": {"USD": "0.5089"}}]}
    ]}]}  # fmt: skip
    fake.public["spot.json"]["config"]["regions"].append(west)
    fake.public["spot-advisor-data.json"]["spot_advisor"]["us-west-2"]["Linux"]["g5.xlarge"] = {
        "s": 63,
        "r": 0,
    }
    result = _refresh(_env(settings, fake, credentials=False))
    assert result.exit_code == 0, result.output
    answer = (
        app.test_client()
        .get("/breakeven?detail=full&gpu=rtx3090&hours=100&providers=aws&pricing=spot&top=50")
        .get_json()
    )
    lines = {r["region"]: r for r in answer["rent"] if r["product"] == "g5.xlarge"}
    east, west_line = lines["us-east-1"], lines["us-west-2"]
    assert (east["interruption"]["band"], west_line["interruption"]["band"]) == (">20%", "<5%")
    assert east["interruption"]["overhead"] == pytest.approx(1.0 / 24 * 0.5)
    assert west_line["interruption"]["overhead"] == pytest.approx(0.05 / 24 * 0.5)
    assert east["wall_clock_hours"] / west_line["wall_clock_hours"] == pytest.approx(
        (1 + 1.0 / 24 * 0.5) / (1 + 0.05 / 24 * 0.5)
    )
    assert west_line["total_usd"] < east["total_usd"]
    assert "Spot Instance Advisor band <5%" in west_line["interruption"]["basis"]
    unbanded = (
        app.test_client()
        .get("/breakeven?detail=full&gpu=rtx3090&hours=100&providers=azure&pricing=spot")
        .get_json()["rent"][0]
    )
    assert unbanded["interruption"] == {
        "band": None,
        "overhead": 0.1,
        "job_overhead": 0.1,  # one instance
        "basis": "no published interruption rate: the spot_overhead assumption (0.1)",
    }


def test_a_failing_public_spot_file_costs_only_what_it_gives(fake, settings, app) -> None:  # type: ignore[no-untyped-def]
    """The advisor answering 500: spot offers keep coming, without a band (spot_overhead
    applies); spot.json answering 500 too: on demand only; the run succeeds both times and
    says what it lacked."""
    fake.fault("spot-advisor-data.json").status = 500
    assert _refresh(_env(settings, fake, credentials=False)).exit_code == 0
    offers = app.test_client().get("/offers?provider=aws&pricing=spot").get_json()["offers"]
    assert offers and all(o["interruption"] == "" for o in offers)
    fake.fault("spot.json").status = 500
    result = _refresh(_env(settings, fake, credentials=False) | {"BREAKEVEN_MAX_DROP_SHARE": "1"})
    assert result.exit_code == 0, result.output
    (aws,) = [
        p for p in app.test_client().get("/providers").get_json()["providers"] if p["name"] == "aws"
    ]
    version = aws["current_run"]["source_version"]
    assert (
        "public spot data unavailable" in version and "Spot Instance Advisor unavailable" in version
    )
    assert app.test_client().get("/offers?provider=aws&pricing=spot").get_json()["total"] == 0


@pytest.mark.parametrize("credentials", [False, True], ids=["public-files", "credentials"])
def test_savings_plans_come_from_the_public_file_with_or_without_credentials(
    fake, settings, app, credentials: bool
) -> None:  # type: ignore[no-untyped-def]
    """The Price List Query API serves no Savings Plans: either way they are read from the
    public file, a plan paid as used per instance and term, beside the on-demand offers."""
    fake.plan_files = {
        "us-east-1": plan_file(
            [plan_row("p5.48xlarge", 31.464), plan_row("p5.48xlarge", 21.9, years=3)]
        ),
        "us-west-2": plan_file([plan_row("g6.xlarge", 0.5, region="us-west-2")]),
    }
    env = _env(settings, fake, credentials) | {
        "BREAKEVEN_AWS_SAVINGS_PLANS_URL": f"{fake.base_url}{PLANS_INDEX}",  # type: ignore[attr-defined]
    }
    result = _refresh(env)
    assert result.exit_code == 0, result.output
    assert [r["api"] for r in fake.requests if r["api"].startswith("plans")] == [
        *("plans index", "plans", "plans")
    ]
    client = app.test_client()
    committed = client.get("/offers?provider=aws&limit=1000").get_json()["offers"]
    plans = {
        (o["product"], o["region"], o["pricing"]): o["usd_per_hour"]
        for o in committed
        if o["purchase_option"] == "savings_plan"
    }
    assert plans == {
        ("p5.48xlarge", "us-east-1", "reserved_1y"): 31.464,
        ("p5.48xlarge", "us-east-1", "reserved_3y"): 21.9,
        ("g6.xlarge", "us-west-2", "reserved_1y"): 0.5,
    }
    (aws,) = [p for p in client.get("/providers").get_json()["providers"] if p["name"] == "aws"]
    assert "savings plans (3)" in aws["current_run"]["source_version"]


def test_a_failing_savings_plans_file_costs_only_the_plans(fake, settings, app) -> None:  # type: ignore[no-untyped-def]
    fake.plan_files = {"us-east-1": plan_file([plan_row("p5.48xlarge", 31.464)])}
    fake.fault("plans us-east-1").status = 500
    env = _env(settings, fake, credentials=False) | {
        "BREAKEVEN_AWS_SAVINGS_PLANS_URL": f"{fake.base_url}{PLANS_INDEX}",  # type: ignore[attr-defined]
    }
    result = _refresh(env)
    assert result.exit_code == 0, result.output
    client = app.test_client()
    offers = client.get("/offers?provider=aws&limit=1000").get_json()["offers"]
    assert offers and not any(o["purchase_option"] == "savings_plan" for o in offers)
    (aws,) = [p for p in client.get("/providers").get_json()["providers"] if p["name"] == "aws"]
    assert "savings plans unavailable" in aws["current_run"]["source_version"]


def test_the_legacy_spot_js_is_read_too(fake) -> None:  # type: ignore[no-untyped-def]
    """spot.js: the same document as callback({...}); with legacy region names (us-east)."""
    from pricing.adapters.aws.public_spot import fetch_document, parse_spot_prices

    text = (SAMPLES / "aws_spot_js_excerpt.js").read_text()
    assert text.startswith("callback(")
    legacy = json.loads(text[len("callback(") :].rstrip().rstrip(";").rstrip()[:-1])
    offers = parse_spot_prices(legacy, ["us-east-1"], INSTANCES, TODAY)
    assert offers and {o.region for o in offers} == {"us-east-1"}
    served = fetch_document(requests.Session(), f"{fake.base_url}/spot.js", 5)
    assert served == fake.public["spot.json"]


def test_throttling_is_retried_with_backoff(fake, settings) -> None:  # type: ignore[no-untyped-def]
    fake.throttle_first = 2
    result = _refresh(_env(settings, fake, credentials=True))
    assert result.exit_code == 0, result.output
    assert len([r for r in fake.requests if r["api"] == "GetProducts"]) == 4 + 2


def test_a_broken_page_fails_the_run_and_keeps_the_previous_offers(fake, settings, app) -> None:  # type: ignore[no-untyped-def]
    env = _env(settings, fake, credentials=True)
    assert _refresh(env).exit_code == 0
    client = app.test_client()
    before = client.get("/offers?provider=aws").get_json()["offers"]
    fake.broken_page = 2
    fake.price_list["us-east-1"][0] = price_list_entry("p4d.24xlarge", 1.0)  # must not land
    result = _refresh(env)
    assert result.exit_code == 1 and "aws: failed" in result.output
    after = client.get("/offers?provider=aws").get_json()["offers"]
    assert after == before
    (aws,) = [p for p in client.get("/providers").get_json()["providers"] if p["name"] == "aws"]
    assert aws["status"] == "failed" and aws["last_error"]
    assert aws["current_run"]["row_count"] == len(before)


def test_a_missing_offer_file_fails_the_run(fake, settings) -> None:  # type: ignore[no-untyped-def]
    del fake.offer_files["us-west-2"]
    result = _refresh(_env(settings, fake, credentials=False))
    assert result.exit_code == 1 and "HTTP 404" in result.output


def test_fake_paths_stay_on_loopback(fake) -> None:  # type: ignore[no-untyped-def]
    assert fake.base_url.startswith("http://localhost") or fake.base_url.startswith("http://127.")  # type: ignore[attr-defined]
    assert Path(SAMPLES).is_dir()


def test_repeated_items_collapse_to_one_offer_whatever_the_order() -> None:
    first = parse_price_list(
        [price_list_entry("p5.48xlarge", 55.04)], INSTANCES, TODAY, skip_report()
    )
    again = parse_price_list(
        [price_list_entry("p5.48xlarge", 60.0)], INSTANCES, TODAY, skip_report()
    )
    assert unique(first + first) == first  # the same item twice: one offer, unchanged
    for offers in (first + again, again + first):
        (kept,) = unique(offers)
        assert kept.usd_per_hour == 60.0  # the higher, whichever came first
        assert "repeats this item at 55.04 and 60: the higher kept" in kept.notes


# -- reserved instances: a term's hourly rate and upfront fee, paired --------------------------


def _term(
    instance_type: str,
    sku: str,
    code: str,
    lease: str,
    option: str,
    hourly: float | None,
    upfront: float | None,
    offering_class: str = "standard",
    **fields: str,
) -> list[dict]:
    """A reserved term's rows as the offer file writes them: an hourly row (Unit Hrs) and,
    for Partial and All Upfront, an "Upfront Fee" row (Unit Quantity), sharing SKU and
    OfferTermCode."""
    common = {
        "SKU": sku,
        "OfferTermCode": code,
        "TermType": "Reserved",
        "LeaseContractLength": lease,
        "PurchaseOption": option,
        "OfferingClass": offering_class,
        "EffectiveDate": "2026-06-01",
        **fields,
    }
    rows = []
    if hourly is not None:
        what = f"Linux/UNIX (Amazon VPC), {instance_type} reserved instance applied"
        rows.append(bulk_row(instance_type, hourly, PriceDescription=what, **common))
    if upfront is not None:
        rows.append(
            bulk_row(
                instance_type, upfront, PriceDescription="Upfront Fee", Unit="Quantity", **common
            )
        )
    return rows


def test_offer_file_prices_reserved_terms_at_their_effective_rate() -> None:
    """Each standard Linux term is one offer at hourly + upfront / term hours; the pieces
    that are no price on their own, Windows and the dearer convertible are not taken."""
    rows = [
        bulk_row("p5.48xlarge", 55.04, SKU="P5OD"),
        *_term("p5.48xlarge", "P5", "NOUP1", "1yr", "No Upfront", 38.5, None),
        *_term("p5.48xlarge", "P5", "PART1", "1yr", "Partial Upfront", 17.0, 175_000.0),
        *_term("p5.48xlarge", "P5", "ALL3", "3yr", "All Upfront", 0.0, 690_000.0),
        # convertible dearer than standard for the same term: the standard is kept
        *_term("p5.48xlarge", "P5", "CONV1", "1yr", "No Upfront", 44.0, None, "convertible"),
        # convertible alone for a term (3yr No Upfront): taken, it is the only price
        *_term("p5.48xlarge", "P5", "CONV3", "3yr", "No Upfront", 30.0, None, "convertible"),
        # a Partial Upfront hourly row whose fee row is missing: no price on its own
        *_term("g5.xlarge", "G5", "PART3", "3yr", "Partial Upfront", 0.2, None),
        # an All Upfront fee alone is a whole price (its hourly row, 0, may be absent)
        *_term("g5.xlarge", "G5", "ALL1", "1yr", "All Upfront", None, 5_000.0),
        # Windows, and a lease that is no 1- or 3-year term
        *_term(
            "g5.xlarge", "G5W", "WIN1", "1yr", "No Upfront", 0.9, None, Operating_System="Windows"
        ),
        *_term("g5.xlarge", "G5", "ODD", "2yr", "No Upfront", 0.1, None),
    ]
    offers = _parse_file(offer_file(rows)).offers
    priced = {(o.product, o.pricing, o.purchase_option): o for o in offers}
    assert set(priced) == {
        ("p5.48xlarge", PricingModel.ON_DEMAND, ""),
        ("p5.48xlarge", PricingModel.RESERVED_1Y, "no_upfront"),
        ("p5.48xlarge", PricingModel.RESERVED_1Y, "partial_upfront"),
        ("p5.48xlarge", PricingModel.RESERVED_3Y, "all_upfront"),
        ("p5.48xlarge", PricingModel.RESERVED_3Y, "no_upfront"),
        ("g5.xlarge", PricingModel.RESERVED_1Y, "all_upfront"),
    }
    partial = priced[("p5.48xlarge", PricingModel.RESERVED_1Y, "partial_upfront")]
    # 17.0 + 175,000 / 8,760 = 36.977169 an hour; the fee is 175,000 / (17 x 8,760 + 175,000)
    assert partial.usd_per_hour == pytest.approx(36.977169)
    assert partial.upfront_share == pytest.approx(175_000 / (17.0 * 8760 + 175_000))
    assert partial.price_as_of == "2026-06-01"  # the term's EffectiveDate, not the read day
    every = priced[("p5.48xlarge", PricingModel.RESERVED_3Y, "all_upfront")]
    assert every.usd_per_hour == pytest.approx(690_000 / 26_280)
    assert every.upfront_share == 1.0
    no_upfront = priced[("p5.48xlarge", PricingModel.RESERVED_1Y, "no_upfront")]
    assert (no_upfront.usd_per_hour, no_upfront.upfront_share) == (38.5, 0.0)
    assert "standard" in no_upfront.notes
    assert "convertible" in priced[("p5.48xlarge", PricingModel.RESERVED_3Y, "no_upfront")].notes
    assert priced[("g5.xlarge", PricingModel.RESERVED_1Y, "all_upfront")].usd_per_hour == (
        pytest.approx(5000 / 8760)
    )


def test_price_list_reserved_terms_read_as_the_bulk_file_reads_them() -> None:
    """The Price List API's terms.Reserved, in the shape of the verbatim bulk JSON excerpt."""
    verbatim = json.loads((SAMPLES / "aws_bulk_offer_ec2_json_excerpt.json").read_text())
    shape = next(iter(next(iter(verbatim["terms"]["Reserved"].values())).values()))
    assert {d["unit"] for d in shape["priceDimensions"].values()} == {"Quantity", "Hrs"}

    def term(code: str, lease: str, option: str, hourly: str, fee: str | None, cls: str) -> dict:
        t = json.loads(json.dumps(shape))
        t["offerTermCode"] = code
        t["effectiveDate"] = "2026-06-01T00:00:00Z"
        t["termAttributes"] = {
            "LeaseContractLength": lease,
            "OfferingClass": cls,
            "PurchaseOption": option,
        }
        dims = {}
        for d in t["priceDimensions"].values():
            if d["unit"] == "Hrs":
                dims["h"] = {**d, "pricePerUnit": {"USD": hourly}}
            elif fee is not None:
                dims["f"] = {**d, "pricePerUnit": {"USD": fee}}
        t["priceDimensions"] = dims
        return t

    entry = json.loads(price_list_entry("p4d.24xlarge", 21.957642))
    entry["terms"]["Reserved"] = {
        "S.A": term("A", "1yr", "Partial Upfront", "6.4", "56000", "standard"),
        "S.B": term("B", "3yr", "No Upfront", "9.5", None, "standard"),
        "S.C": term("C", "1yr", "Partial Upfront", "7.0", "60000", "convertible"),
        "S.D": term("D", "3yr", "Partial Upfront", "4.0", None, "standard"),  # fee missing
    }
    offers = parse_price_list([json.dumps(entry)], INSTANCES, TODAY, skip_report())
    priced = {(o.pricing, o.purchase_option): o.usd_per_hour for o in offers}
    assert priced == {
        (PricingModel.ON_DEMAND, ""): 21.957642,
        (PricingModel.RESERVED_1Y, "partial_upfront"): pytest.approx(6.4 + 56000 / 8760),
        (PricingModel.RESERVED_3Y, "no_upfront"): 9.5,
    }
