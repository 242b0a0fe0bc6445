"""The Verda adapter: its public instance types and long-term periods read through a fake in
their wire format, noise dropped, each contract priced as a committed term of its own length
to the cent, and a failing list never taking the other providers down."""

from __future__ import annotations

from decimal import Decimal

import pytest
from click.testing import CliRunner

from hardware import load_hardware
from pricing.adapters.kit import SkipReport
from pricing.adapters.verda import (
    NO_GPU,
    NO_PRICE,
    OTHER_CURRENCY,
    OTHER_LENGTH,
    PROVIDER,
    UNKNOWN_GPU,
    VerdaAdapter,
    parse_instance_types,
    parse_periods,
    skip_report,
)
from pricing.errors import AdapterError
from pricing.offer import TERM_HOURS, PricingModel
from service.cli import cli
from tests.fakes.verda import VerdaFake, instance_types, periods
from tests.helpers import check_a_failing_source_spares_the_others, check_http_faults, web_adapter

RESOLVE = load_hardware().registry.canonical
TODAY = "2026-12-06"


def _offers() -> tuple[dict[tuple[str, PricingModel], float], SkipReport]:
    skipped = skip_report()
    terms = parse_periods(periods(), skipped)
    offers = parse_instance_types(instance_types(), terms, RESOLVE, TODAY, skipped)
    return {(o.product, o.pricing): o.usd_per_hour for o in offers}, skipped


def test_each_enabled_period_of_a_terms_length_is_its_discount() -> None:
    """1, 3, 6, 12 and 24 months at 2, 3, 4, 8 and 25 % off; the 9-month period has no term
    and is reported, the 3-year one is not sold and is left out."""
    skipped = skip_report()
    terms = parse_periods(periods(), skipped)
    assert terms == {
        PricingModel.RESERVED_1M: Decimal("0.02"),
        PricingModel.RESERVED_3M: Decimal("0.03"),
        PricingModel.RESERVED_6M: Decimal("0.04"),
        PricingModel.RESERVED_1Y: Decimal("0.08"),
        PricingModel.RESERVED_2Y: Decimal("0.25"),
    }
    assert skipped.names(OTHER_LENGTH) == {"9_MONTHS"}


def test_the_sample_prices_on_demand_spot_and_every_term_to_the_cent() -> None:
    """8 x H100 SXM5 at 28.44 an instance-hour (3.555 a GPU): spot 11.20; a 6-month contract
    4 % off, 27.3024 (3.4128 a GPU); 2 years 25 % off, 21.33 (2.66625 a GPU). The A100 type's
    spot price "0" is no spot offer."""
    prices, _ = _offers()
    node = "8H100.80S.176V"
    assert prices[(node, PricingModel.ON_DEMAND)] == 28.44
    assert prices[(node, PricingModel.SPOT)] == 11.20
    assert round(prices[(node, PricingModel.RESERVED_6M)] / 8, 4) == 3.4128
    assert round(prices[(node, PricingModel.RESERVED_2Y)] / 8, 5) == 2.66625
    assert round(prices[(node, PricingModel.RESERVED_1M)], 4) == 27.8712  # 28.44 x 0.98
    assert round(prices[("1H100.80S.22V", PricingModel.RESERVED_1Y)], 4) == 3.2706  # the bundled
    assert ("8A100.176V", PricingModel.SPOT) not in prices
    assert prices[("8A100.176V", PricingModel.ON_DEMAND)] == 14.376
    assert {p for _, p in prices} == {PricingModel.ON_DEMAND, PricingModel.SPOT} | {
        PricingModel.RESERVED_1M,
        PricingModel.RESERVED_3M,
        PricingModel.RESERVED_6M,
        PricingModel.RESERVED_1Y,
        PricingModel.RESERVED_2Y,
    }


def test_the_noise_is_dropped_and_reported_under_its_reason() -> None:
    """A CPU node, a GPU no registry knows, an H200 priced "n/a" and a type priced in EUR:
    none is an offer, each is in the run record."""
    prices, skipped = _offers()
    assert {product for product, _ in prices} == {"1H100.80S.22V", "8H100.80S.176V", "8A100.176V"}
    assert skipped.names(NO_GPU) == {"CPU.4V.16G"}
    assert skipped.names(UNKNOWN_GPU) == {"1MI999.30V"}
    assert skipped.names(NO_PRICE) == {"1H200.141S.44V price_per_hour='n/a'"}
    assert skipped.names(OTHER_CURRENCY) == {"1H100.80S.22V.EU"}


def test_a_committed_offer_is_a_whole_term_paid_as_sold() -> None:
    skipped = skip_report()
    terms = parse_periods(periods(), skipped)
    offers = parse_instance_types(instance_types(), terms, RESOLVE, TODAY, skipped)
    six = next(o for o in offers if o.product == "8H100.80S.176V" and o.pricing == "reserved_6m")
    assert six.provider == PROVIDER and six.accelerator == "h100-sxm" and six.count == 8
    assert six.term_hours == TERM_HOURS[PricingModel.RESERVED_6M] == 4380.0
    assert (six.purchase_option, six.upfront_share) == ("commitment", 0.0)
    assert "long-term contract of 6 months: 4 % off the on-demand 28.44" in six.notes
    one = next(o for o in offers if o.product == six.product and o.pricing == "reserved_1m")
    assert "long-term contract of 1 month: 2 % off" in one.notes
    assert six.price_as_of == TODAY


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"types": []}, "not a list"),
        (["an instance type"], "not an object"),
        ([{"id": "x", "gpu": {"number_of_gpus": 1}}], "without its id"),
    ],
)
def test_instance_types_the_list_cannot_mean_fail_loudly(document: object, message: str) -> None:
    with pytest.raises(AdapterError, match=message):
        parse_instance_types(document, {}, RESOLVE, TODAY, skip_report())


@pytest.mark.parametrize(
    ("unit", "value", "term"),
    [
        ("month", 6, PricingModel.RESERVED_6M),
        ("months", 6.0, PricingModel.RESERVED_6M),
        (" Month ", "3", PricingModel.RESERVED_3M),
        ("YEARS", 2, PricingModel.RESERVED_2Y),
        ("year", 0.5, PricingModel.RESERVED_6M),
    ],
)
def test_a_periods_length_is_read_in_any_spelling(unit: str, value: object, term: str) -> None:
    period = {**periods()[0], "unit_name": unit, "unit_value": value}
    assert parse_periods([period], skip_report()) == {term: Decimal("0.02")}


def test_two_periods_of_one_length_keep_the_larger_discount() -> None:
    """A "12 months" at 10 % and a "1 year" at 8 %: a buyer takes the 10 %."""
    twelve = {**periods()[3], "code": "12_MONTHS", "unit_name": "month", "unit_value": 12}
    twelve["discount_percentage"] = 10.0
    terms = parse_periods([twelve, periods()[3]], skip_report())
    assert terms == {PricingModel.RESERVED_1Y: Decimal("0.1")}


def test_a_list_whose_sold_periods_are_no_terms_length_fails() -> None:
    """Contracts on sale but none of a length a term has: not 'Verda sells no contract'."""
    odd = [{**periods()[0], "unit_name": "week", "unit_value": 2}, periods()[5]]
    with pytest.raises(AdapterError, match="none of the 2 long-term periods sold"):
        parse_periods(odd, skip_report())
    assert parse_periods([periods()[6]], skip_report()) == {}  # none sold: no terms, no error


def test_a_gpu_count_written_as_a_float_is_read() -> None:
    node = {
        **instance_types()[1],
        "gpu": {"description": "8x H100 SXM5 80GB", "number_of_gpus": 8.0},
    }
    offers = parse_instance_types([node], {}, RESOLVE, TODAY, skip_report())
    assert {(o.pricing, o.count, o.usd_per_hour) for o in offers} == {
        (PricingModel.ON_DEMAND, 8, 28.44),
        (PricingModel.SPOT, 8, 11.20),
    }


@pytest.mark.parametrize("discount", [-5, 100, 140, "lots", None, True])
def test_a_discount_outside_0_to_100_percent_fails_the_periods(discount: object) -> None:
    bad = [{**periods()[0], "discount_percentage": discount}]
    with pytest.raises(AdapterError, match="discount_percentage"):
        parse_periods(bad, skip_report())


# -- whole fetches through the fake ----------------------------------------------------------


@pytest.fixture
def fake(httpserver):  # type: ignore[no-untyped-def]
    fake = VerdaFake()
    fake.url = fake.install(httpserver)
    yield fake
    fake.release()


def _adapter(fake: VerdaFake, retries: int = 3, timeout: float = 10.0) -> VerdaAdapter:
    return web_adapter(VerdaAdapter, fake.url, retries, timeout)


def test_throttling_server_errors_and_a_hung_backend(fake) -> None:  # type: ignore[no-untyped-def]
    check_http_faults(fake, _adapter)


def test_a_fetch_reads_both_lists_and_reports_what_it_skipped(fake) -> None:  # type: ignore[no-untyped-def]
    batch = _adapter(fake).fetch()
    assert fake.requests == ["/v1/long-term/periods/instances", "/v1/instance-types"]
    assert len(batch.offers) == 3 * 6 + 2  # 3 types x (on demand + 5 terms), 2 H100 spot
    assert batch.source_version.startswith("Verda API /v1/instance-types")
    assert "1 contract lengths that are not a committed term skipped (9_MONTHS)" in (
        batch.source_version
    )
    assert all(o.price_as_of == "2026-12-06" for o in batch.offers)


def test_a_failing_periods_list_fails_the_fetch_rather_than_drop_the_terms(fake) -> None:  # type: ignore[no-untyped-def]
    """Prices on demand alone would read as Verda selling no contract."""
    fake.faults.truncate_page = 2
    with pytest.raises(AdapterError, match="not JSON"):
        _adapter(fake).fetch()


def test_an_empty_list_prices_nothing_and_fails(fake) -> None:  # type: ignore[no-untyped-def]
    fake.types = []
    with pytest.raises(AdapterError, match="priced no GPU"):
        _adapter(fake).fetch()


# -- the refresh, through settings alone -----------------------------------------------------


def test_refresh_reads_the_lists_through_settings_and_a_6_month_contract_is_answered(
    fake, settings, app
) -> None:  # type: ignore[no-untyped-def]
    """`breakeven refresh --provider verda` with only its URL set: the live rows replace the
    bundled ones, and 8 x H100 for 4,000 h on a 6-month term pays one whole term (4,380 h)
    at 27.3024 an hour: 119,584.51 USD."""
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_VERDA_URL": fake.url,
        "BREAKEVEN_HTTP_RETRIES": "1",
        "BREAKEVEN_HTTP_BACKOFF_SECONDS": "0.01",
    }
    result = CliRunner().invoke(cli, ["refresh", "--provider", "verda"], env=env)
    assert result.exit_code == 0, result.output
    assert "verda: ok" in result.output
    client = app.test_client()
    offers = client.get("/offers?provider=verda").get_json()["offers"]
    assert {o["product"] for o in offers} == {"1H100.80S.22V", "8H100.80S.176V", "8A100.176V"}
    answer = client.get(
        "/breakeven?detail=full&gpu=h100-sxm&gpus=8&for_hours=4000&providers=verda"
        "&pricing=reserved_6m"
    ).get_json()
    tier = next(t for t in answer["tiers"] if t["tier"] == "reserved_6m")
    assert tier["best"]["product"] == "8H100.80S.176V"
    assert tier["best"]["commitment"]["term_hours"] == 4380.0
    assert tier["best"]["commitment"]["terms"] == 1
    assert tier["total_usd"] == pytest.approx(27.3024 * 4380, abs=0.01)


def test_a_failing_list_keeps_the_last_good_prices_and_spares_the_others(
    fake, settings, app
) -> None:  # type: ignore[no-untyped-def]
    check_a_failing_source_spares_the_others(fake, settings, app, "verda", "nativ-x/fsku")
