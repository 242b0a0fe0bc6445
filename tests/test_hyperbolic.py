"""The Hyperbolic adapter: its public rental options read through a fake in the list's wire
format, noise dropped, each option priced from its cents to the cent, its network named so
clusters take the right fabric, and a failing list never taking the others down."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from hardware import load_hardware
from pricing.adapters.hyperbolic import (
    NO_PRICE,
    NOT_OFFERED,
    PROVIDER,
    UNKNOWN_GPU,
    HyperbolicAdapter,
    parse_options,
    skip_report,
)
from pricing.errors import AdapterError
from pricing.offer import PricingModel
from service.cli import cli
from tests.fakes.hyperbolic import HyperbolicFake, options
from tests.helpers import check_a_failing_source_spares_the_others, check_http_faults, web_adapter

HARDWARE = load_hardware()
RESOLVE = HARDWARE.registry.canonical
TODAY = "2026-12-06"


def _priced() -> dict[tuple[str, str], float]:
    offers = parse_options(options(), RESOLVE, TODAY, skip_report())
    return {(o.product, o.region): o.usd_per_hour for o in offers}


def test_each_option_is_its_cents_for_the_whole_option() -> None:
    """319 cents: 3.19 USD an hour for 1 x H100 SXM5 (the bundled row's figure); 2,552 cents
    for 8 x H100 SXM5 on InfiniBand: 25.52 an hour, 3.19 a GPU-hour; a second us-east-1
    H100 VM at 301 cents is the region's lowest."""
    prices = _priced()
    assert prices[("1x h100 sxm5 virtual-machine, Ethernet", "us-east-1")] == 3.01
    assert prices[("1x h100 sxm5 virtual-machine, Ethernet", "ca-east-3")] == 4.85
    assert prices[("8x h100 sxm5 bare-metal, InfiniBand", "uk-southeast-3")] == 25.52
    assert prices[("8x h100 sxm5 virtual-machine, RoCE", "eu-north-4")] == 25.52
    assert prices[("8x h200 sxm5 virtual-machine, Ethernet", "eu-north-5")] == 31.92
    assert prices[("1x h100 pcie virtual-machine, Ethernet", "ca-east-1")] == 2.75
    assert len(prices) == 13


def test_the_noise_is_dropped_and_reported_under_its_reason() -> None:
    skipped = skip_report()
    offers = parse_options(options(), RESOLVE, TODAY, skipped)
    assert skipped.names(NOT_OFFERED) == {"1 x h100 sxm5 in us-central-1"}
    assert skipped.names(UNKNOWN_GPU) == {"x999 oam"}
    assert skipped.names(NO_PRICE) == {
        "1x h200 sxm5 virtual-machine, Ethernet in us-east-3 costPerHourCents=0",
        "1x h100 sxm5 virtual-machine, Ethernet in us-east-4 costPerHourCents='3.19'",
    }
    for offer in offers:
        assert offer.provider == PROVIDER and offer.pricing == PricingModel.ON_DEMAND
        assert offer.price_as_of == TODAY and offer.accelerator in {"h100-sxm", "h200", "h100-pcie"}


def test_the_network_in_the_product_sets_the_fabric_clusters_scale_by() -> None:
    """InfiniBand bare metal, a RoCE VM and an Ethernet VM of the same 8 x H100."""
    fabric = HARDWARE.fabrics.of
    assert fabric(PROVIDER, "8x h100 sxm5 bare-metal, InfiniBand") == "infiniband"
    assert fabric(PROVIDER, "8x h100 sxm5 virtual-machine, RoCE") == "roce"
    assert fabric(PROVIDER, "8x h100 sxm5 virtual-machine, Ethernet") == "ethernet"


def test_a_field_in_another_case_or_cents_written_as_a_float_is_read_alike() -> None:
    """ "H100" and "h100" in one region are one offer at the lowest; "Infiniband" is
    InfiniBand; 2552.0 cents are 25.52 USD; a disabled option missing its region is
    skipped, not a failed list; cents that are not whole, or past any price, are skipped."""
    node = next(o for o in options() if o["connectionType"] == "infiniband")
    loud = {**node, "gpuType": "H100", "gpuFormFactor": "SXM5", "connectionType": "Infiniband"}
    loud["costPerHourCents"] = 2551.0
    off = {**node, "enabled": False, "region": None, "gpuCount": None}
    odd = [{**node, "costPerHourCents": bad} for bad in (2552.5, float("inf"), 10**400)]
    skipped = skip_report()
    offers = parse_options([node, loud, off, *odd], RESOLVE, TODAY, skipped)
    assert [(o.product, o.usd_per_hour) for o in offers] == [
        ("8x h100 sxm5 bare-metal, InfiniBand", 25.51)
    ]
    assert len(skipped.names(NOT_OFFERED)) == 1 and len(skipped.names(NO_PRICE)) == 3


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"options": []}, "not a list"),
        (["an option"], "not an object"),
        ([{"enabled": True, "gpuType": "h100", "region": "r"}], "without its GPUs"),
        ([{"enabled": True, "gpuType": "h100", "gpuCount": 1}], "without a region"),
    ],
)
def test_options_the_list_cannot_mean_fail_loudly(document: object, message: str) -> None:
    with pytest.raises(AdapterError, match=message):
        parse_options(document, RESOLVE, TODAY, skip_report())


# -- whole fetches through the fake ----------------------------------------------------------


@pytest.fixture
def fake(httpserver):  # type: ignore[no-untyped-def]
    fake = HyperbolicFake()
    fake.url = fake.install(httpserver)  # type: ignore[attr-defined]
    yield fake
    fake.release()


def _adapter(fake: HyperbolicFake, retries: int = 3, timeout: float = 10.0) -> HyperbolicAdapter:
    return web_adapter(HyperbolicAdapter, fake.url, retries, timeout)  # type: ignore[attr-defined]


def test_throttling_server_errors_and_a_hung_backend(fake) -> None:  # type: ignore[no-untyped-def]
    check_http_faults(fake, _adapter)


def test_a_fetch_reads_the_list_and_reports_what_it_skipped(fake) -> None:  # type: ignore[no-untyped-def]
    batch = _adapter(fake).fetch()
    assert len(batch.offers) == 13 and fake.requests == 1
    assert batch.source_version.startswith("Hyperbolic API")
    assert "1 options not enabled skipped" in batch.source_version
    assert "2 prices that are not positive whole cents skipped" in batch.source_version


def test_a_cut_or_empty_answer_fails_the_fetch(fake) -> None:  # type: ignore[no-untyped-def]
    fake.faults.truncate_page = 1
    with pytest.raises(AdapterError, match="not JSON"):
        _adapter(fake).fetch()
    fake.faults.truncate_page = None
    fake.options = []
    with pytest.raises(AdapterError, match="priced no GPU"):
        _adapter(fake).fetch()


# -- the refresh, through settings alone -----------------------------------------------------


def test_refresh_reads_the_list_through_settings_and_its_run_replaces_the_bundled_rows(
    fake, settings, app
) -> None:  # type: ignore[no-untyped-def]
    """`breakeven refresh --provider hyperbolic` with only its URL set: the live options
    replace the bundled row, and 64 H100s for three years cluster its InfiniBand nodes."""
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_HYPERBOLIC_URL": fake.url,
        "BREAKEVEN_HTTP_RETRIES": "1",
        "BREAKEVEN_HTTP_BACKOFF_SECONDS": "0.01",
    }
    result = CliRunner().invoke(cli, ["refresh", "--provider", "hyperbolic"], env=env)
    assert result.exit_code == 0, result.output
    assert "hyperbolic: ok, 13 offers" in result.output
    client = app.test_client()
    offers = client.get("/offers?provider=hyperbolic&limit=100").get_json()["offers"]
    assert len(offers) == 13 and all("fsku" not in o["source"] for o in offers)
    big = client.get(
        "/breakeven?detail=full&gpu=h100-sxm&gpus=64&months=36&providers=hyperbolic"
        "&pricing=on_demand"
    ).get_json()
    clustered = [r for r in big["rent"] if "bare-metal, InfiniBand" in r["product"]]
    assert clustered and clustered[0]["fabric"] == "infiniband"


def test_a_failing_list_keeps_the_last_good_prices_and_spares_the_others(
    fake, settings, app
) -> None:  # type: ignore[no-untyped-def]
    check_a_failing_source_spares_the_others(fake, settings, app, "hyperbolic", "nativ-x/fsku")
