"""The Azure adapter: parsers on real-format items, then whole fetches against a local fake."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest

from pricing.adapters.azure import (
    API_VERSION,
    FRACTIONAL,
    PRICE_FILTER,
    REJECTED,
    UNMAPPED,
    AzureAdapter,
    AzureConfig,
    load_vm_map,
    parse_items,
    same_origin,
    skip_report,
)
from pricing.adapters.kit import HttpConfig, SkipReport
from pricing.errors import AdapterError
from pricing.http import make_session
from pricing.offer import PricingModel
from tests.fakes.azure import AzureFake, item, sample

VMS = load_vm_map()
TODAY = "2026-11-29"
RETRIES = 2


def _parse(items, skipped: SkipReport | None = None):  # type: ignore[no-untyped-def]
    return parse_items(items, VMS, TODAY, skipped if skipped is not None else skip_report())


def _priced(offers) -> set[tuple[str, str, str, float]]:  # type: ignore[no-untyped-def]
    return {(o.product, o.region, o.pricing.value, o.usd_per_hour) for o in offers}


# -- the curated table ------------------------------------------------------------------


def test_every_mapped_size_is_whole_gpus_of_a_registry_accelerator(hardware) -> None:  # type: ignore[no-untyped-def]
    names = sorted(VMS)
    assert len(names) == 22
    for name in names:
        size = VMS.get(name)
        assert size is not None and size.accelerator in hardware.registry, name
        assert size.count >= 1 and size.source, name
        assert name.startswith(("Standard_NC", "Standard_ND", "Standard_NV")), name
    assert FRACTIONAL.isdisjoint(names)
    nvl = [VMS.get(n) for n in ("Standard_NC40ads_H100_v5", "Standard_NCC40ads_H100_v5")]
    # the H100 NVL (94 GB) is its own registry row now, not the PCIe card's stand-in
    assert all(s is not None and (s.accelerator, s.memory_gb) == ("h100-nvl", None) for s in nvl)
    assert all("H100 GPU (94GB)" in s.source for s in nvl if s is not None)
    sizes = [s for s in map(VMS.get, names) if s is not None]
    assert len(sizes) == len(names)
    big = {s.name: (s.accelerator, s.count) for s in sizes if s.name.startswith("Standard_ND")}
    assert big == {
        "Standard_ND40rs_v2": ("v100-32gb", 8),
        "Standard_ND96asr_v4": ("a100-40gb", 8),
        "Standard_ND96amsr_A100_v4": ("a100-80gb", 8),
        "Standard_ND96isr_H100_v5": ("h100-sxm", 8),
        "Standard_ND96isr_H200_v5": ("h200", 8),
    }


# -- the parser -------------------------------------------------------------------------


def test_sample_keeps_linux_pay_as_you_go_and_spot_and_drops_the_rest() -> None:
    skipped = skip_report()
    offers = _parse(sample()["Items"], skipped)
    assert _priced(offers) == {
        ("Standard_NC4as_T4_v3", "uksouth", "on_demand", 0.615),
        # Spot (dated) beats the undated Low Priority meter of the same size and region.
        ("Standard_NC4as_T4_v3", "uksouth", "spot", 0.18),
        ("Standard_NCC40ads_H100_v5", "eastus2", "on_demand", 6.98),
        ("Standard_NCC40ads_H100_v5", "eastus2", "spot", 1.419034),
        # the Reservation item's 3,434 USD is the 1-year term's total: 3434 / 8760 an hour
        ("Standard_NC4as_T4_v3", "uksouth", "reserved_1y", 0.392009),
    }
    prices = {o.usd_per_hour for o in offers}
    assert prices.isdisjoint({0.799, 8.82, 3434.0, 0.123})  # Windows, " Win", the term total
    assert skipped.lines() == []

    t4 = next(o for o in offers if o.product == "Standard_NC4as_T4_v3" and o.pricing == "spot")
    assert (t4.accelerator, t4.count, t4.memory_gb) == ("t4", 1, None)
    assert t4.source == "Azure Retail Prices API, meter m-1s"
    assert t4.notes == "effectiveStartDate 2021-11-01T00:00:00Z; Spot VM: evictable"
    assert (t4.provider, t4.service, t4.price_as_of, t4.confidence) == (
        "azure",
        "Virtual Machines",
        TODAY,
        "high",
    )

    ncc = next(
        o for o in offers if o.product.startswith("Standard_NCC") and o.pricing == "on_demand"
    )
    assert (ncc.accelerator, ncc.count, ncc.memory_gb) == ("h100-nvl", 1, None)
    assert ncc.source == "Azure Retail Prices API, meter NCC40adsH100v5"  # no meterId: skuName
    assert ncc.notes == "effectiveStartDate 2026-07-01T00:00:00Z"


def test_low_priority_is_spot_and_says_so() -> None:
    low = next(i for i in sample()["Items"] if i["skuName"].endswith(" Low Priority"))
    (offer,) = _parse([low])
    assert offer.pricing == PricingModel.SPOT and offer.usd_per_hour == 0.123
    assert offer.notes == "Low Priority VM: evictable"
    # Suffix on meterName alone is enough.
    (by_meter,) = _parse([item("Standard_NC6s_v3", 0.9, meterName="NC6s v3 Spot")])
    assert by_meter.pricing == PricingModel.SPOT and "Spot VM" in by_meter.notes


def test_reservation_devtest_windows_other_units_and_zero_are_never_hourly_prices() -> None:
    """A reservation's price is its term's total: it is offered as a committed term at the
    total over the term's hours, never as an hourly price; the rest is never an offer."""
    reservation = next(i for i in sample()["Items"] if i["type"] == "Reservation")
    items = [
        reservation,
        item("Standard_NC24ads_A100_v4", 20000.0, kind="Reservation"),
        item("Standard_NC24ads_A100_v4", 45000.0, kind="Reservation", reservationTerm="3 Years"),
        item("Standard_NC24ads_A100_v4", 2.9, kind="DevTestConsumption"),
        item("Standard_NC24ads_A100_v4", 4.1, product_name="Virtual Machines NCadsA100v4 Windows"),
        item("Standard_NC24ads_A100_v4", 4.2, product_name="Virtual Machines NCadsA100v4 Srs Win"),
        item("Standard_NC24ads_A100_v4", 4.3, product_name="Windows Virtual Machines NCads"),
        item(
            "Standard_NC24ads_A100_v4",
            19000.0,
            kind="Reservation",
            product_name="Virtual Machines NCadsA100v4 Windows",
        ),
        item("Standard_NC24ads_A100_v4", 2650.0, unitOfMeasure="1/Month"),
        item("Standard_NC24ads_A100_v4", 0.0),
        item("Standard_NC24ads_A100_v4", 3.673),  # the one hourly Linux price
    ]
    skipped = skip_report()
    offers = _parse(items, skipped)
    assert _priced(offers) == {
        ("Standard_NC24ads_A100_v4", "eastus", "on_demand", 3.673),
        ("Standard_NC24ads_A100_v4", "eastus", "reserved_1y", round(20000 / 8760, 6)),
        ("Standard_NC24ads_A100_v4", "eastus", "reserved_3y", round(45000 / 26280, 6)),
        ("Standard_NC4as_T4_v3", "uksouth", "reserved_1y", round(3434 / 8760, 6)),
    }
    committed = [o for o in offers if o.pricing != "on_demand"]
    assert {(o.purchase_option, o.upfront_share) for o in committed} == {("reservation", 0.0)}
    assert skipped.lines() == []


def test_savings_plan_rates_are_committed_offers_and_a_bad_term_is_rejected() -> None:
    plans = [
        {"unitPrice": 2.55, "retailPrice": 2.55, "term": "1 Year"},
        {"unitPrice": 1.84, "retailPrice": 1.84, "term": "3 Years"},
        {"unitPrice": 1.0, "retailPrice": 1.0, "term": "5 Years"},  # no such term: ignored
    ]
    items = [
        item("Standard_NC24ads_A100_v4", 3.673, savingsPlan=plans),
        # a spot meter's savings plan would be nonsense: spot is never committed
        item("Standard_NC24ads_A100_v4", 0.7346, suffix=" Spot", savingsPlan=plans),
        item("Standard_NC24ads_A100_v4", 21000.0, kind="Reservation", reservationTerm="2 Years"),
    ]
    skipped = skip_report()
    offers = _parse(items, skipped)
    assert _priced(offers) == {
        ("Standard_NC24ads_A100_v4", "eastus", "on_demand", 3.673),
        ("Standard_NC24ads_A100_v4", "eastus", "spot", 0.7346),
        ("Standard_NC24ads_A100_v4", "eastus", "reserved_1y", 2.55),
        ("Standard_NC24ads_A100_v4", "eastus", "reserved_3y", 1.84),
    }
    plan = next(o for o in offers if o.pricing == "reserved_3y")
    assert (plan.purchase_option, plan.upfront_share) == ("savings_plan", 0.0)
    assert any("'2 Years'" in name for name in skipped.names(REJECTED))


def test_non_usd_and_malformed_items_are_rejected_and_counted(caplog) -> None:  # type: ignore[no-untyped-def]
    skipped = skip_report()
    items = [
        item("Standard_NC40ads_H100_v5", 6.5, currency="EUR"),
        item("Standard_NC40ads_H100_v5", 6.9, currency=None),
        item("Standard_NC40ads_H100_v5", "6.98"),  # type: ignore[arg-type]
        "not an item",
        item("Standard_NC40ads_H100_v5", 6.98, region="westus3"),
    ]
    offers = _parse(items, skipped)
    assert _priced(offers) == {("Standard_NC40ads_H100_v5", "westus3", "on_demand", 6.98)}
    assert len(skipped.names(REJECTED)) == 4
    assert any("priced in EUR" in name for name in skipped.names(REJECTED))
    with caplog.at_level(logging.WARNING, logger="pricing.adapters.azure"):
        assert skipped.version("v") == "v; 4 non-USD or malformed items rejected"
    (record,) = caplog.records
    assert "priced in EUR" in record.getMessage()


def test_unknown_gpu_size_is_reported_never_priced(caplog) -> None:  # type: ignore[no-untyped-def]
    skipped = skip_report()
    items = [
        item("Standard_ND96isr_B200_v6", 110.0),
        item("Standard_NC8ads_A10_v4", 0.9),
        item("Standard_NV12s_v3", 1.14),
        item("Standard_D4s_v5", 0.19),  # not a GPU family: not reported either
    ]
    assert _parse(items, skipped) == []
    assert skipped.names(UNMAPPED) == {
        "Standard_ND96isr_B200_v6",
        "Standard_NC8ads_A10_v4",
        "Standard_NV12s_v3",
    }
    with caplog.at_level(logging.WARNING, logger="pricing.adapters.azure"):
        report = skipped.version("v")
    assert report == (
        "v; 3 GPU VM sizes not in pricing/data/azure_vms.csv skipped "
        "(Standard_NC8ads_A10_v4, Standard_ND96isr_B200_v6, ...)"
    )
    (record,) = caplog.records
    assert "Standard_NV12s_v3" in record.getMessage()  # the log has the whole list


def test_fractional_nv_sizes_are_known_and_skipped_whole_ones_priced() -> None:
    skipped = skip_report()
    items = [item(name, 0.5) for name in sorted(FRACTIONAL)] + [
        item("Standard_NV36ads_A10_v5", 3.2),
        item("Standard_NV72ads_A10_v5", 6.52),
    ]
    offers = _parse(items, skipped)
    assert [(o.product, o.accelerator, o.count) for o in offers] == [
        ("Standard_NV36ads_A10_v5", "a10", 1),
        ("Standard_NV72ads_A10_v5", "a10", 2),
    ]
    assert skipped.lines() == []  # known and skipped: not reported as unmapped


def test_duplicates_keep_the_latest_effective_start_not_the_lowest_price() -> None:
    older = item("Standard_ND96isr_H100_v5", 90.0, start="2024-01-01T00:00:00Z")
    newer = item("Standard_ND96isr_H100_v5", 98.32, start="2025-03-01T00:00:00Z")
    other_region = item("Standard_ND96isr_H100_v5", 95.0, region="westus3", start="2023-01-01")
    for items in ([older, newer, other_region], [newer, other_region, older]):
        offers = _parse(items)
        assert _priced(offers) == {
            ("Standard_ND96isr_H100_v5", "eastus", "on_demand", 98.32),
            ("Standard_ND96isr_H100_v5", "westus3", "on_demand", 95.0),
        }
    # Spot and Low Priority on the same date: Spot, the current product, is kept.
    low = item("Standard_NC6s_v3", 0.3, suffix=" Low Priority")
    spot = item("Standard_NC6s_v3", 0.4, suffix=" Spot")
    for items in ([low, spot], [spot, low]):
        (offer,) = _parse(items)
        assert offer.usd_per_hour == 0.4 and offer.notes.endswith("Spot VM: evictable")
    # and on any dates: a newer Low Priority meter never replaces the Spot one (Azure's
    # eviction bands are for Spot VMs)
    newer_low = item("Standard_NC6s_v3", 0.3, suffix=" Low Priority", start="2026-11-01T00:00:00Z")
    for items in ([newer_low, spot], [spot, newer_low]):
        (offer,) = _parse(items)
        assert offer.usd_per_hour == 0.4 and offer.notes.endswith("Spot VM: evictable")


def test_next_page_links_must_stay_on_the_configured_origin() -> None:
    prices = "https://prices.azure.com/api/retail/prices"  # BREAKEVEN_AZURE_PRICES_URL's default
    link = sample()["NextPageLink"]  # https://prices.azure.com:443/...: the default port
    assert same_origin(link, prices)
    assert same_origin("HTTPS://PRICES.azure.com/x?$skip=1", prices)
    assert not same_origin("http://prices.azure.com/api/retail/prices", prices)
    assert not same_origin("https://prices.azure.com:8443/api", prices)
    assert not same_origin("https://prices.azure.com.evil.example/api", prices)
    assert not same_origin("/api/retail/prices?$skip=1000", prices)
    assert not same_origin("https://prices.azure.com:notaport/", prices)


def test_the_filter_is_exactly_the_one_azure_is_asked_for() -> None:
    assert PRICE_FILTER == (
        "serviceName eq 'Virtual Machines' and "
        "(priceType eq 'Consumption' or priceType eq 'Reservation') and "
        "(contains(armSkuName, 'Standard_NC') or contains(armSkuName, 'Standard_ND') or "
        "contains(armSkuName, 'Standard_NV'))"
    )


# -- whole fetches against the fake -----------------------------------------------------


@pytest.fixture
def fake(httpserver) -> AzureFake:  # type: ignore[no-untyped-def]
    fake = AzureFake(page_size=2)
    fake.items = [
        item("Standard_NC24ads_A100_v4", 3.673),
        item("Standard_NC24ads_A100_v4", 0.7346, suffix=" Spot"),
        item("Standard_ND96isr_H100_v5", 98.32),
        item("Standard_ND96isr_H100_v5", 120.0, product_name="Virtual Machines NDsv5 Windows"),
        item("Standard_NV36ads_A10_v5", 3.2, region="westeurope"),
        item("Standard_ND96isr_B200_v6", 110.0),  # unknown
    ]
    fake.url = fake.install(httpserver)  # type: ignore[attr-defined]
    return fake


def _adapter(fake: AzureFake, retries: int = RETRIES) -> AzureAdapter:
    http = HttpConfig(retries=retries, backoff_seconds=0.01)
    config = AzureConfig(prices_url=fake.url, http=http)  # type: ignore[attr-defined]
    return AzureAdapter(
        config,
        http=make_session(retries, 0.01),
        clock=lambda: datetime(2026, 11, 29, 18, 30, tzinfo=UTC),
    )


def test_fetch_follows_next_page_links_across_three_pages(fake, caplog) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.WARNING, logger="pricing.adapters.azure"):
        batch = _adapter(fake).fetch()
    assert fake.pages_asked() == [1, 2, 3]
    # The filter goes on the first request and rides along in every NextPageLink.
    assert all(r["filter"] == PRICE_FILTER for r in fake.requests)
    assert all(r["api-version"] == API_VERSION for r in fake.requests)
    assert _priced(batch.offers) == {
        ("Standard_NC24ads_A100_v4", "eastus", "on_demand", 3.673),
        ("Standard_NC24ads_A100_v4", "eastus", "spot", 0.7346),
        ("Standard_ND96isr_H100_v5", "eastus", "on_demand", 98.32),
        ("Standard_NV36ads_A10_v5", "westeurope", "on_demand", 3.2),
    }
    assert {o.price_as_of for o in batch.offers} == {TODAY}
    h100 = next(o for o in batch.offers if o.product == "Standard_ND96isr_H100_v5")
    assert h100.usd_per_accelerator_hour == pytest.approx(98.32 / 8)
    assert batch.source_version == (
        "eviction bands: no credentials, spot_overhead applies; "
        "Azure Retail Prices API 2023-01-01-preview, 3 pages; 1 GPU VM sizes not in "
        "pricing/data/azure_vms.csv skipped (Standard_ND96isr_B200_v6)"
    )
    warnings = [r for r in caplog.records if "azure_vms.csv" in r.getMessage()]
    assert len(warnings) == 1  # logged once per run, not once per item or page


def test_throttling_is_retried(fake) -> None:  # type: ignore[no-untyped-def]
    fake.throttle_first = 1
    batch = _adapter(fake).fetch()
    assert fake.pages_asked() == [1, 1, 2, 3]
    assert len(batch.offers) == 4


def test_a_failing_page_fails_the_whole_run(fake) -> None:  # type: ignore[no-untyped-def]
    fake.fail_page = 2
    with pytest.raises(AdapterError, match=r"page 2: .*HTTP 500"):
        _adapter(fake).fetch()
    assert fake.pages_asked() == [1] + [2] * (RETRIES + 1)  # retried, then given up


def test_a_truncated_page_fails_the_whole_run(fake) -> None:  # type: ignore[no-untyped-def]
    fake.truncate_page = 3
    with pytest.raises(AdapterError, match=r"page 3: .*not JSON"):
        _adapter(fake).fetch()
    assert fake.pages_asked() == [1, 2, 3]


def test_a_page_without_items_fails_the_whole_run(fake) -> None:  # type: ignore[no-untyped-def]
    fake.bodies[2] = json.dumps({"BillingCurrency": "USD", "NextPageLink": None, "Count": 0})
    with pytest.raises(AdapterError, match=r"page 2: .*no 'Items' list"):
        _adapter(fake).fetch()


@pytest.mark.parametrize(
    "origin",
    [
        "https://prices.example.invalid",  # another host
        "http://{host}:{other_port}",  # another port
        "https://{host}:{port}",  # another scheme
    ],
)
def test_a_next_page_link_to_another_origin_is_refused(fake, httpserver, origin) -> None:  # type: ignore[no-untyped-def]
    fake.next_link_origin = origin.format(
        host=httpserver.host, port=httpserver.port, other_port=httpserver.port + 1
    )
    with pytest.raises(AdapterError, match=r"page 1: NextPageLink .* refused"):
        _adapter(fake).fetch()
    assert fake.pages_asked() == [1]  # never followed


def test_a_next_page_link_loop_is_refused(fake) -> None:  # type: ignore[no-untyped-def]
    fake.loop_page = 2
    with pytest.raises(AdapterError, match="already followed"):
        _adapter(fake).fetch()
    assert fake.pages_asked() == [1, 2, 1]


def test_fake_stays_on_loopback(fake) -> None:  # type: ignore[no-untyped-def]
    assert fake.url.startswith(("http://localhost:", "http://127."))  # type: ignore[attr-defined]
