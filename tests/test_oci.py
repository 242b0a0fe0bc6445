"""The OCI adapter: Oracle's public price list through a fake in its wire format, the GPU
parts priced as the bare-metal shapes they rent, to the cent, the noise the list really
holds passed over or reported, and a failing list never taking the others down."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from hardware import load_hardware
from pricing.adapters.oci import (
    NO_PRICE,
    UNKNOWN_PART,
    OciAdapter,
    parse_products,
    shapes,
    skip_report,
)
from pricing.errors import AdapterError
from service.cli import cli
from tests.fakes.oci import OciFake, part, sample
from tests.helpers import web_adapter

RESOLVE = load_hardware().registry.canonical


def test_the_sample_prices_each_shape_at_its_parts_rate_times_its_gpus() -> None:
    """H100 and H200 10 USD a GPU-hour on 8-GPU shapes (80.00), B200 14 (112.00), MI300X 6
    (48.00), L40S 3.5 on a 4-GPU shape (14.00), all dated by the list's lastUpdated; the
    licence, Cloud@Customer, VMware and software parts passed over; GB200 and A100 v2,
    GPUs the shape table does not name, reported."""
    skipped = skip_report()
    day, offers = parse_products(sample(), shapes(), skipped)
    assert day == "2026-08-14"
    prices = {o.product: (o.accelerator, o.count, o.usd_per_hour) for o in offers}
    assert prices == {
        "BM.GPU.H100.8": ("h100-sxm", 8, 80.0),
        "BM.GPU.H200.8": ("h200", 8, 80.0),
        "BM.GPU.B200.8": ("b200", 8, 112.0),
        "BM.GPU.MI300X.8": ("mi300x", 8, 48.0),
        "BM.GPU.L40S.4": ("l40s", 4, 14.0),
    }
    assert all(
        o.price_as_of == "2026-08-14" and "lastUpdated 2026-08-14" in o.source for o in offers
    )
    assert skipped.names(UNKNOWN_PART) == {"B110979", "B95907"}
    assert not skipped.names(NO_PRICE)


@pytest.mark.parametrize(
    "broken",
    [
        {
            "currencyCodeLocalizations": [
                {"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": 0}]}
            ]
        },
        {
            "currencyCodeLocalizations": [
                {"currencyCode": "EUR", "prices": [{"model": "PAY_AS_YOU_GO", "value": 9.1}]}
            ]
        },
        {
            "currencyCodeLocalizations": [
                {"currencyCode": "USD", "prices": [{"model": "MONTHLY_COMMIT", "value": 9}]}
            ]
        },
        {
            "currencyCodeLocalizations": [
                {"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": "n/a"}]}
            ]
        },
    ],
)
def test_a_part_without_a_usd_pay_as_you_go_price_is_reported_and_the_rest_priced(
    broken: dict,
) -> None:
    document = sample()
    document["items"] = [part("B98415", **broken), part("B110519")]
    skipped = skip_report()
    _, offers = parse_products(document, shapes(), skipped)
    assert [o.product for o in offers] == ["BM.GPU.H200.8"]
    assert skipped.names(NO_PRICE) == {"B98415"}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"lastUpdated": "2026-08-14T09:09:55Z"}, "no 'items' list"),
        ({"items": []}, "lastUpdated is None"),
        ({"lastUpdated": "yesterday", "items": []}, "not a time"),
        (
            {
                "lastUpdated": "2026-08-14T09:09:55Z",
                "items": [{"partNumber": "B98415", "metricName": "Node Per Hour"}],
            },
            "not GPU Per Hour",
        ),
    ],
)
def test_a_list_the_adapter_cannot_mean_fails_loudly(document: dict, message: str) -> None:
    with pytest.raises(AdapterError, match=message):
        parse_products(document, shapes(), skip_report())


def test_last_updated_is_read_as_a_day_in_utc() -> None:
    """A stamp of 01:00 in Tokyo on 7 December is 16:00 UTC on the 6th: the day the list
    held in the fetch's own calendar, never "in the future" of a fetch at 17:00 UTC."""
    document = {**sample(), "lastUpdated": "2026-12-07T01:00:00+09:00"}
    day, _ = parse_products(document, shapes(), skip_report())
    assert day == "2026-12-06"


# -- whole fetches through the fake ----------------------------------------------------------


@pytest.fixture
def fake(httpserver):  # type: ignore[no-untyped-def]
    fake = OciFake()
    fake.url = fake.install(httpserver)  # type: ignore[attr-defined]
    yield fake
    fake.release()


def _adapter(fake: OciFake, retries: int = 3, timeout: float = 10.0) -> OciAdapter:
    return web_adapter(OciAdapter, fake.url, retries, timeout)  # type: ignore[attr-defined]


def test_a_fetch_asks_for_dollars_and_says_what_it_skipped(fake) -> None:  # type: ignore[no-untyped-def]
    batch = _adapter(fake).fetch()
    assert fake.requests == [{"currencyCode": "USD"}]
    assert len(batch.offers) == 5
    assert batch.source_version.startswith("Oracle Cloud price list API")
    assert "lastUpdated 2026-08-14" in batch.source_version
    assert "2 GPU parts not in pricing/data/oci_shapes.csv skipped" in batch.source_version


def test_a_list_dated_in_the_future_or_pricing_no_shape_fails(fake) -> None:  # type: ignore[no-untyped-def]
    fake.document = {**sample(), "lastUpdated": "2099-01-01T00:00:00Z"}
    with pytest.raises(AdapterError, match="in the future"):
        _adapter(fake).fetch()
    fake.document = {**sample(), "items": [part("B111824")]}
    with pytest.raises(AdapterError, match="priced none of the shapes"):
        _adapter(fake).fetch()


def test_retries_timeouts_and_a_cut_answer(fake) -> None:  # type: ignore[no-untyped-def]
    fake.faults.statuses = [503, 429]
    assert _adapter(fake).fetch().offers
    fake.faults.truncate_page = 1
    with pytest.raises(AdapterError, match="not JSON"):
        _adapter(fake).fetch()
    fake.faults.truncate_page = None
    fake.faults.delay_seconds = 10.0
    with pytest.raises(AdapterError, match="Timeout"):
        _adapter(fake, retries=0, timeout=0.3).fetch()


def test_refresh_through_settings_and_a_failing_list_spares_the_others(fake, settings, app) -> None:  # type: ignore[no-untyped-def]
    """Through settings alone the list's rows replace the bundled capture's (the same
    figures, now the live list's); a second refresh where it answers 500 keeps them and
    lands Colab's run beside it."""
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_OCI_PRICES_URL": fake.url,
        "BREAKEVEN_REFRESH_PROVIDERS": "oci,colab",
        "BREAKEVEN_HTTP_RETRIES": "0",
    }
    first = CliRunner().invoke(cli, ["refresh"], env=env)
    assert first.exit_code == 0, first.output
    client = app.test_client()
    live = client.get("/offers?provider=oci").get_json()["offers"]
    assert {o["product"] for o in live} >= {"BM.GPU.H100.8", "BM.GPU.B200.8"}
    assert all(o["source"].startswith("Oracle Cloud price list API") for o in live)
    fake.faults.status = 500
    second = CliRunner().invoke(cli, ["refresh"], env=env)
    assert second.exit_code == 1
    assert "oci: failed" in second.output and "colab: ok" in second.output
    assert client.get("/offers?provider=oci").get_json()["offers"] == live
