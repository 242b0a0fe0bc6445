"""The Voltage Park adapter: its public locations list read page by page through a fake in
the list's wire format, noise dropped, a price per GPU-hour priced per offer to the cent."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from hardware import load_hardware
from pricing.adapters.kit import listed_price
from pricing.adapters.voltagepark import (
    NO_PRICE,
    PROVIDER,
    UNKNOWN_GPU,
    VoltageParkAdapter,
    parse_locations,
    skip_report,
)
from pricing.errors import AdapterError
from pricing.offer import PricingModel
from service.cli import cli
from tests.fakes.voltagepark import VoltageParkFake, locations
from tests.helpers import check_a_failing_source_spares_the_others, check_http_faults, web_adapter

RESOLVE = load_hardware().registry.canonical
TODAY = "2026-12-06"


def test_the_sample_prices_each_fabric_at_its_lowest_location_and_drops_the_noise() -> None:
    """Two H100 locations: Ethernet 1.99 and 2.15 a GPU-hour, one GPU at a time; InfiniBand
    2.49 and 2.39, whole 8-GPU nodes. A null, a "0.00" and an "n/a" price and a GPU no
    registry knows are dropped and reported, each under its reason."""
    skipped = skip_report()
    offers = parse_locations(locations(), RESOLVE, TODAY, skipped)
    by_product = {o.product: o for o in offers}
    assert set(by_product) == {"1x h100-sxm5-80gb, Ethernet", "8x h100-sxm5-80gb, InfiniBand"}
    ethernet = by_product["1x h100-sxm5-80gb, Ethernet"]
    assert (ethernet.count, ethernet.usd_per_hour) == (1, 1.99)
    infiniband = by_product["8x h100-sxm5-80gb, InfiniBand"]
    assert (infiniband.count, infiniband.usd_per_hour) == (8, pytest.approx(2.39 * 8))
    for offer in offers:
        assert offer.provider == PROVIDER and offer.accelerator == "h100-sxm"
        assert offer.pricing == PricingModel.ON_DEMAND and offer.price_as_of == TODAY
        assert "the lowest of" in offer.notes or "one location" in offer.notes
    assert "the lowest of 2 locations; 16 GPUs free" in ethernet.notes
    assert skipped.names(UNKNOWN_GPU) == {"x999-sxm-1tb"}
    assert len(skipped.names(NO_PRICE)) == 2  # null and "0.00"; "n/a" is the unknown GPU's
    assert "h100-sxm5-80gb gpu_price_ethernet=None" in skipped.names(NO_PRICE)


def test_nodes_of_another_size_are_their_own_offer() -> None:
    """A 4-GPU node's InfiniBand rate is not folded into the 8-GPU node's offer."""
    small = {**locations()[1], "specs_per_node": {"gpu_model": "h100-sxm5-80gb", "gpu_count": 4}}
    small["gpu_price_infiniband"] = "2.20"
    offers = parse_locations([*locations()[:2], small], RESOLVE, TODAY, skip_report())
    nodes = {o.product: o.usd_per_hour for o in offers if "InfiniBand" in o.product}
    assert nodes == {
        "4x h100-sxm5-80gb, InfiniBand": pytest.approx(2.20 * 4),
        "8x h100-sxm5-80gb, InfiniBand": pytest.approx(2.39 * 8),
    }


def test_an_unreadable_price_on_a_known_gpu_is_reported_and_the_other_fabric_priced() -> None:
    location = {**locations()[1], "gpu_price_ethernet": "n/a"}
    skipped = skip_report()
    offers = parse_locations([location], RESOLVE, TODAY, skipped)
    assert [o.product for o in offers] == ["8x h100-sxm5-80gb, InfiniBand"]
    assert skipped.names(NO_PRICE) == {"h100-sxm5-80gb gpu_price_ethernet='n/a'"}


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ("1.99", "1.99"),
        (2, "2"),
        (2.39, "2.39"),
        (" 3.5 ", "3.5"),
        ("0.00", None),
        ("-1", None),
        ("n/a", None),
        ("1e400", None),  # a float cannot hold it: times 8 it would be inf
        ("NaN", None),
        (True, None),
        (None, None),
        ([], None),
    ],
)
def test_a_listed_price_is_read_exactly_or_refused(value: object, read: str | None) -> None:
    found = listed_price(value)
    assert (None if found is None else str(found)) == read


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("not an object", "not an object"),
        ({"id": "x", "gpu_price_ethernet": "1.99"}, "no specs_per_node.gpu_model"),
        ({"id": "x", "specs_per_node": {"gpu_model": "h100-sxm5-80gb"}}, "bad gpu_count"),
    ],
)
def test_a_location_the_list_cannot_mean_fails_loudly(location: object, message: str) -> None:
    with pytest.raises(AdapterError, match=message):
        parse_locations([location], RESOLVE, TODAY, skip_report())


# -- whole fetches through the fake ----------------------------------------------------------


@pytest.fixture
def fake(httpserver):  # type: ignore[no-untyped-def]
    fake = VoltageParkFake()
    fake.url = fake.install(httpserver)  # type: ignore[attr-defined]
    yield fake
    fake.release()


def _adapter(fake: VoltageParkFake, retries: int = 3, timeout: float = 10.0) -> VoltageParkAdapter:
    return web_adapter(VoltageParkAdapter, fake.url, retries, timeout)  # type: ignore[attr-defined]


def test_throttling_server_errors_and_a_hung_backend(fake) -> None:  # type: ignore[no-untyped-def]
    check_http_faults(fake, _adapter)


def test_a_fetch_follows_the_pages_and_reports_what_it_skipped(fake) -> None:  # type: ignore[no-untyped-def]
    fake.page_size = 1  # four pages of one location each
    batch = _adapter(fake).fetch()
    assert [r["offset"] for r in fake.requests] == ["0", "1", "2", "3"]
    assert {o.product for o in batch.offers} == {
        "1x h100-sxm5-80gb, Ethernet",
        "8x h100-sxm5-80gb, InfiniBand",
    }
    assert batch.source_version.startswith("Voltage Park API")
    assert "1 locations with GPUs not in the hardware registry skipped" in batch.source_version
    assert all(o.price_as_of == "2026-12-06" for o in batch.offers)


def test_a_server_that_ignores_the_offset_is_an_error_not_fifty_pages(fake) -> None:  # type: ignore[no-untyped-def]
    """Every page the same location and has_next true: the second page brings none new."""
    fake.results = locations()[:2] * 3  # the same two ids again and again
    fake.page_size = 2
    with pytest.raises(AdapterError, match="none new"):
        _adapter(fake).fetch()
    assert len(fake.requests) == 2


def test_a_has_next_that_is_not_a_boolean_fails(fake) -> None:  # type: ignore[no-untyped-def]
    fake.faults.bodies = {1: '{"results": [], "has_next": "true"}'}
    with pytest.raises(AdapterError, match="has_next is 'true'"):
        _adapter(fake).fetch()


def test_a_cut_or_empty_answer_fails_the_fetch(fake) -> None:  # type: ignore[no-untyped-def]
    fake.faults.truncate_page = 1
    with pytest.raises(AdapterError, match="not JSON"):
        _adapter(fake).fetch()
    fake.faults.truncate_page = None
    fake.results = []
    with pytest.raises(AdapterError, match="priced no GPU"):
        _adapter(fake).fetch()


# -- the refresh, through settings alone -----------------------------------------------------


def test_refresh_reads_the_list_through_settings_and_its_run_replaces_the_bundled_rows(
    fake, settings, app
) -> None:  # type: ignore[no-untyped-def]
    """`breakeven refresh --provider voltagepark` with only its URL set: the live rows (the
    sample's cheapest InfiniBand node, 8 x 2.39) replace the bundled capture's, and an
    8-GPU node rented in several still clusters over InfiniBand."""
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_VOLTAGEPARK_URL": fake.url,
        "BREAKEVEN_HTTP_RETRIES": "1",
        "BREAKEVEN_HTTP_BACKOFF_SECONDS": "0.01",
    }
    result = CliRunner().invoke(cli, ["refresh", "--provider", "voltagepark"], env=env)
    assert result.exit_code == 0, result.output
    assert "voltagepark: ok" in result.output
    client = app.test_client()
    offers = client.get("/offers?provider=voltagepark").get_json()["offers"]
    assert {o["product"] for o in offers} == {
        "1x h100-sxm5-80gb, Ethernet",
        "8x h100-sxm5-80gb, InfiniBand",
    }
    node = next(o for o in offers if o["count"] == 8)
    assert node["usd_per_hour"] == pytest.approx(19.12) and "gpu-price-index" not in node["source"]
    big = client.get(
        "/breakeven?detail=full&gpu=h100-sxm&gpus=64&months=36&providers=voltagepark"
    ).get_json()
    clustered = [r for r in big["rent"] if r["product"].startswith("8x")]
    assert clustered and clustered[0]["fabric"] == "infiniband"
    assert clustered[0]["instances"] * 8 >= 64


def test_a_failing_list_keeps_the_last_good_prices_and_spares_the_others(
    fake, settings, app
) -> None:  # type: ignore[no-untyped-def]
    check_a_failing_source_spares_the_others(fake, settings, app, "voltagepark", "gpu-price-index")
