"""AWS Savings Plans: the public file's rows that price a plan paid as used, and the many that
do not (the sample's real rows: Windows, dedicated, reservation-discount and upfront rows)."""

from __future__ import annotations

import pytest

from pricing.adapters.aws.instances import load_instance_map
from pricing.adapters.aws.savings_plans import parse_plan_file, region_files
from pricing.errors import AdapterError
from pricing.offer import PricingModel
from tests.fakes.aws import PLANS_INDEX, plan_file, plan_row

INSTANCES = load_instance_map()
TODAY = "2026-12-05"
INDEX_URL = f"https://pricing.us-east-1.amazonaws.com{PLANS_INDEX}"


def _parse(data: bytes, region: str = "us-east-1", size: int = 1 << 20):  # type: ignore[no-untyped-def]
    chunks = (data[i : i + size] for i in range(0, len(data), size))
    return parse_plan_file(chunks, region, INSTANCES, TODAY)


def test_the_samples_real_rows_price_nothing() -> None:
    """Ten verbatim c5 rows: All Upfront, Windows and other licences, dedicated tenancy and
    the discounts of unused reservations; and c5 carries no accelerator."""
    found = _parse(plan_file([]))
    assert found.offers == []
    assert found.version == "20240701073603"


def test_a_plan_paid_as_used_is_a_committed_offer_at_its_hourly_rate() -> None:
    rows = [
        plan_row("p5.48xlarge", 31.464, years=1),
        plan_row("p5.48xlarge", 36.9, years=1, plan="ComputeSavingsPlans"),  # dearer: dropped
        plan_row("p5.48xlarge", 21.9, years=3),
        # none of these is a plan paid as used of a Linux instance on shared hardware
        plan_row("p5.48xlarge", 10.0, option="All Upfront"),
        plan_row("p5.48xlarge", 11.0, option="Partial Upfront"),
        plan_row("p5.48xlarge", 12.0, DiscountedOperation="RunInstances:0002"),  # Windows
        plan_row("p5.48xlarge", 13.0, DiscountedUsageType="DedicatedUsage:p5.48xlarge"),
        plan_row("p5.48xlarge", 14.0, DiscountedUsageType="UnusedBox:p5.48xlarge"),
        plan_row("p5.48xlarge", 15.0, DiscountedUsageType="HostBoxUsage:p5.48xlarge"),
        plan_row("p5.48xlarge", 16.0, DiscountedServiceCode="AmazonSageMaker"),
        plan_row("p5.48xlarge", 17.0, Currency="CNY"),
        plan_row("p5.48xlarge", 18.0, LeaseContractLength="5"),
        plan_row("m5.large", 0.05),  # no accelerator
    ]
    found = _parse(plan_file(rows))
    by_term = {offer.pricing: offer for offer in found.offers}
    assert set(by_term) == {PricingModel.RESERVED_1Y, PricingModel.RESERVED_3Y}
    one = by_term[PricingModel.RESERVED_1Y]
    assert (one.product, one.region, one.usd_per_hour) == ("p5.48xlarge", "us-east-1", 31.464)
    assert (one.purchase_option, one.upfront_share) == ("savings_plan", 0.0)
    assert one.price_as_of == "2024-07-01"  # the rate's EffectiveDate, not the day read
    assert "EC2 Instance Savings Plan" in one.notes and "1 year No Upfront" in one.notes
    assert (one.accelerator, one.count) == ("h100-sxm", 8)
    assert "Savings Plans us-east-1 index.csv version 20240701073603" in one.source
    assert by_term[PricingModel.RESERVED_3Y].usd_per_hour == 21.9


def test_the_cheaper_plan_is_kept_and_named_and_regions_keep_their_own() -> None:
    rows = [
        plan_row("g5.xlarge", 0.70, region="us-west-2"),
        plan_row("g5.xlarge", 0.66, region="us-west-2", plan="ComputeSavingsPlans"),
    ]
    (offer,) = _parse(plan_file(rows), region="us-west-2").offers
    assert (offer.region, offer.usd_per_hour) == ("us-west-2", 0.66)
    assert offer.notes.startswith("Compute Savings Plan")


def test_the_parse_is_the_same_across_chunk_boundaries() -> None:
    data = plan_file([plan_row("p4d.24xlarge", 15.5), plan_row("p5.48xlarge", 31.464)])
    whole = sorted((o.product, o.usd_per_hour) for o in _parse(data).offers)
    for size in (7, 64, 1000):
        assert sorted((o.product, o.usd_per_hour) for o in _parse(data, size=size).offers) == whole


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (plan_file([plan_row("p5.48xlarge", 0.0)]), "bad savings plan rate '0'"),
        (plan_file([plan_row("p5.48xlarge", 1, DiscountedRate="=1+2")]), "bad savings plan rate"),
        (plan_file([plan_row("p5.48xlarge", 31.464)])[:-40], "truncated"),
        (plan_file([], with_sample=False), "no rows after its header"),
        (b'"FormatVersion","v1.0"\n' * 5 + b'"SKU","Unit"\n"A","Hrs"\n', "not a savings plans"),
    ],
    ids=["zero-rate", "formula-cell", "cut-off", "no-rows", "other-file"],
)
def test_a_broken_file_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(AdapterError, match=message):
        _parse(data)


def test_the_region_index_names_files_on_its_own_host_only() -> None:
    base = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20240701073603"
    index = {"regions": [{"regionCode": "us-east-1", "versionUrl": f"{base}/us-east-1/index.json"}]}
    assert region_files(index, INDEX_URL) == {
        "us-east-1": f"https://pricing.us-east-1.amazonaws.com{base}/us-east-1/index.csv"
    }
    for elsewhere in ("https://attacker.example/x/index.json", "//attacker.example/index.json"):
        hostile = {"regions": [{"regionCode": "us-east-1", "versionUrl": elsewhere}]}
        with pytest.raises(AdapterError, match="refused"):
            region_files(hostile, INDEX_URL)
    with pytest.raises(AdapterError, match="no regions list"):
        region_files({"regions": "all"}, INDEX_URL)
