"""The Lambda Cloud adapter: the parser on real-format payloads, then whole fetches via a fake."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from hardware import load_hardware
from pricing.adapters.kit import HttpConfig, SkipReport
from pricing.adapters.lambda_cloud import (
    NO_CAPACITY_NOTE,
    SOURCE,
    UNKNOWN_GPU,
    LambdaAdapter,
    LambdaConfig,
    parse_instance_types,
    skip_report,
)
from pricing.errors import AdapterError, AdapterNotConfigured
from pricing.http import make_session
from pricing.offer import PricingModel
from tests.fakes.lambda_cloud import (
    API_KEY,
    INVALID_KEY,
    LambdaFake,
    instance_type,
    response,
    sample,
)

RESOLVE = load_hardware().registry.canonical
TODAY = "2026-11-29"


def _parse(types: dict, skipped: SkipReport | None = None):  # type: ignore[no-untyped-def]
    return parse_instance_types(response(types), RESOLVE, TODAY, skipped or skip_report())


# -- parser ----------------------------------------------------------------------------------


def test_sample_string_cents_regions_and_the_placeholder_gpu() -> None:
    skipped = skip_report()
    offers = parse_instance_types(sample(), RESOLVE, TODAY, skipped)
    (offer,) = offers  # gpu_1x_a100's "RTX A100" is no real GPU: reported, never priced
    assert (offer.product, offer.accelerator, offer.count) == ("gpu_4x_a6000", "quadro-rtx6000", 4)
    assert offer.usd_per_hour == 1.10  # "110" cents, a string in the sample
    assert offer.usd_per_accelerator_hour == pytest.approx(0.275)
    assert (offer.region, offer.notes) == ("us-az-1", "")
    assert offer.provider == "lambda" and offer.service == "Lambda Cloud"
    assert offer.pricing == PricingModel.ON_DEMAND
    assert (offer.price_as_of, offer.source, offer.confidence) == (TODAY, SOURCE, "high")
    assert skipped.lines() == [
        "1 instance types with GPUs not in the hardware registry skipped (RTX A100 (24 GB))"
    ]


def test_sample_string_cents_80_is_exactly_0_80_per_hour() -> None:
    data = sample()["data"]
    data["gpu_1x_a100"]["instance_type"]["description"] = "1x A100 (40 GB SXM4)"
    (offer,) = _parse({"gpu_1x_a100": data["gpu_1x_a100"]})
    assert offer.usd_per_hour == 0.8 and offer.accelerator == "a100-40gb"
    assert offer.region == "us-tx-1"


def test_int_cents_eight_h100_sxm5_divide_per_gpu() -> None:
    (offer,) = _parse(
        {"gpu_8x_h100_sxm5": instance_type("gpu_8x_h100_sxm5", "8x H100 (80 GB SXM5)", 2392)}
    )
    assert (offer.accelerator, offer.count) == ("h100-sxm", 8)
    assert offer.usd_per_hour == 23.92
    assert offer.usd_per_accelerator_hour == pytest.approx(23.92 / 8)
    assert offer.usd_per_accelerator_hour == pytest.approx(2.99)


def test_memory_and_form_pick_the_variant() -> None:
    types = {
        "gpu_1x_a100_sxm4": instance_type("gpu_1x_a100_sxm4", "1x A100 (40 GB SXM4)", 129),
        "gpu_8x_a100_80gb_sxm4": instance_type(
            "gpu_8x_a100_80gb_sxm4", "8x A100 (80 GB SXM4)", 1432
        ),
        "gpu_1x_a100_80gb": instance_type("gpu_1x_a100_80gb", "1x A100 (80 GB)", 179),
        "gpu_1x_h100_pcie": instance_type("gpu_1x_h100_pcie", "1x H100 (80 GB PCIe)", 249),
        "gpu_1x_a10": instance_type("gpu_1x_a10", "1x A10 (24 GB PCIe)", 75),
        "gpu_8x_v100": instance_type("gpu_8x_v100", "8x Tesla V100 (16 GB)", 440),
    }
    resolved = {o.product: (o.accelerator, o.count) for o in _parse(types)}
    assert resolved == {
        "gpu_1x_a100_sxm4": ("a100-40gb", 1),
        "gpu_8x_a100_80gb_sxm4": ("a100-80gb", 8),
        "gpu_1x_a100_80gb": ("a100-80gb", 1),
        "gpu_1x_h100_pcie": ("h100-pcie", 1),
        "gpu_1x_a10": ("a10", 1),
        "gpu_8x_v100": ("v100-16gb", 8),
    }


def test_one_offer_per_region_with_capacity_and_one_in_us_without() -> None:
    types = {
        "gpu_1x_a10": instance_type(
            "gpu_1x_a10", "1x A10 (24 GB PCIe)", "75", regions=["us-east-1", "us-west-1"]
        ),
        "gpu_1x_h100_pcie": instance_type("gpu_1x_h100_pcie", "1x H100 (80 GB PCIe)", 249),
    }
    offers = _parse(types)
    assert [(o.product, o.region, o.notes) for o in offers] == [
        ("gpu_1x_a10", "us-east-1", ""),
        ("gpu_1x_a10", "us-west-1", ""),
        ("gpu_1x_h100_pcie", "us", NO_CAPACITY_NOTE),
    ]
    assert {o.usd_per_hour for o in offers} == {0.75, 2.49}


@pytest.mark.parametrize("cents", [1.5, "1.50", "", None, "-80", -80, True, "80 cents", [80]])
def test_bad_cents_fail_the_parse(cents: object) -> None:
    with pytest.raises(AdapterError, match="gpu_1x_a10: bad price_cents_per_hour"):
        _parse({"gpu_1x_a10": instance_type("gpu_1x_a10", "1x A10 (24 GB PCIe)", cents)})  # type: ignore[arg-type]


def test_gpus_from_specs_win_over_the_description_count() -> None:
    entry = instance_type(
        "gpu_2x_h100", "1x H100 (80 GB SXM5)", 598, gpus=2, gpu_description="H100 (80 GB SXM5)"
    )
    (offer,) = _parse({"gpu_2x_h100": entry})
    assert (offer.accelerator, offer.count) == ("h100-sxm", 2)
    assert offer.usd_per_accelerator_hour == pytest.approx(2.99)


def test_gpu_description_names_the_gpu_when_present() -> None:
    entry = instance_type(
        "gpu_1x_gh", "1x GPU instance", 149, gpus=1, gpu_description="A100 (80 GB SXM4)"
    )
    (offer,) = _parse({"gpu_1x_gh": entry})
    assert (offer.accelerator, offer.count) == ("a100-80gb", 1)


def test_cpu_only_types_are_skipped_silently_and_unknown_gpus_reported() -> None:
    skipped = skip_report()
    types = {
        "cpu_4x_general": instance_type("cpu_4x_general", "4x vCPU", 20, gpus=0),
        "cpu_8x_general": instance_type("cpu_8x_general", "CPU only", 40),
        "gpu_1x_gh200": instance_type("gpu_1x_gh200", "1x GH200 (96 GB)", 149, gpus=1),
        "gpu_2x_gh200": instance_type("gpu_2x_gh200", "2x GH200 (96 GB)", 298),
        "gpu_1x_new": instance_type("gpu_1x_new", "one new accelerator", 99, gpus=1),
    }
    assert _parse(types, skipped) == []
    assert skipped.names(UNKNOWN_GPU) == {"gpu_1x_gh200", "gpu_2x_gh200", "gpu_1x_new"}
    assert skipped.lines() == [
        "3 instance types with GPUs not in the hardware registry skipped "
        "(GH200 (96 GB), one new accelerator)"
    ]


@pytest.mark.parametrize(
    "payload",
    [{}, {"data": []}, {"data": None}, {"data": {"x": {"regions": []}}}, []],
)
def test_payloads_without_the_data_object_fail(payload: object) -> None:
    with pytest.raises(AdapterError):
        parse_instance_types(payload, RESOLVE, TODAY, skip_report())  # type: ignore[arg-type]


# -- whole fetches through the fake ----------------------------------------------------------


@pytest.fixture
def fake(httpserver) -> LambdaFake:  # type: ignore[no-untyped-def]
    fake = LambdaFake()
    fake.types = {
        "gpu_8x_h100_sxm5": instance_type(
            "gpu_8x_h100_sxm5", "8x H100 (80 GB SXM5)", 2392, regions=["us-tx-1"], gpus=8
        ),
        "gpu_1x_a10": instance_type("gpu_1x_a10", "1x A10 (24 GB PCIe)", "75"),
        "gpu_1x_a100": sample()["data"]["gpu_1x_a100"],  # the placeholder "RTX A100"
    }
    fake.base_url = fake.install(httpserver)  # type: ignore[attr-defined]
    return fake


def _adapter(fake: LambdaFake, api_key: str | None = API_KEY) -> LambdaAdapter:
    http = HttpConfig(retries=3, backoff_seconds=0.01)
    config = LambdaConfig(url=fake.base_url, api_key=api_key, http=http)  # type: ignore[attr-defined]
    return LambdaAdapter(
        config,
        RESOLVE,
        http=make_session(config.http.retries, 0.01),
        clock=lambda: datetime(2026, 11, 29, 23, 59, tzinfo=UTC),
    )


def test_fetch_sends_the_key_as_bearer_and_prices_every_known_type(fake, caplog) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.WARNING, logger="pricing.adapters.lambda_cloud"):
        batch = _adapter(fake).fetch()
    assert fake.requests == [
        {"path": "/api/v1/instance-types", "authorization": f"Bearer {API_KEY}"}
    ]
    assert sorted((o.product, o.region, o.count, o.usd_per_hour) for o in batch.offers) == [
        ("gpu_1x_a10", "us", 1, 0.75),
        ("gpu_8x_h100_sxm5", "us-tx-1", 8, 23.92),
    ]
    assert all(o.price_as_of == TODAY for o in batch.offers)
    assert batch.source_version.startswith(SOURCE)
    assert "RTX A100 (24 GB)" in batch.source_version
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "gpu_1x_a100" in warnings[0].getMessage()


def test_no_key_is_not_configured_and_asks_nothing(fake) -> None:  # type: ignore[no-untyped-def]
    for key in (None, ""):
        with pytest.raises(AdapterNotConfigured, match="BREAKEVEN_LAMBDA_API_KEY"):
            _adapter(fake, api_key=key).fetch()
    assert fake.requests == []


def test_a_refused_key_fails_without_showing_the_key(fake) -> None:  # type: ignore[no-untyped-def]
    wrong = "secret_wrong-key_fedcba9876543210"
    with pytest.raises(AdapterError, match="refused") as error:
        _adapter(fake, api_key=wrong).fetch()
    assert wrong not in str(error.value) and "401" in str(error.value)
    assert fake.requests[0]["authorization"] == f"Bearer {wrong}"
    assert INVALID_KEY["error"]["code"] == "global/invalid-api-key"


def test_forbidden_and_server_errors_name_the_status(fake) -> None:  # type: ignore[no-untyped-def]
    fake.body, fake.status = '{"error": {"code": "global/forbidden"}}', 403
    with pytest.raises(AdapterError, match="HTTP 403: the API key was refused") as error:
        _adapter(fake).fetch()
    assert API_KEY not in str(error.value)
    fake.body, fake.status = "not found", 404
    with pytest.raises(AdapterError, match=r"HTTP 404$"):
        _adapter(fake).fetch()


def test_throttling_is_retried(fake) -> None:  # type: ignore[no-untyped-def]
    fake.throttle_first = 2
    batch = _adapter(fake).fetch()
    assert len(fake.requests) == 3
    assert len(batch.offers) == 2


def test_throttling_past_the_retries_fails(fake) -> None:  # type: ignore[no-untyped-def]
    fake.throttle_first = 10
    with pytest.raises(AdapterError, match="HTTP 429"):
        _adapter(fake).fetch()
    assert len(fake.requests) == 4  # the first try and 3 retries


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"data": {"gpu_1x_a10": ', "not JSON"),
        ("<html>Bad Gateway</html>", "not JSON"),
        ('{"error": {"code": "global/unknown"}}', "no 'data' object"),
        ('{"data": []}', "no 'data' object"),
    ],
)
def test_a_malformed_body_fails_the_fetch(fake, body: str, message: str) -> None:  # type: ignore[no-untyped-def]
    fake.body = body
    with pytest.raises(AdapterError, match=message):
        _adapter(fake).fetch()
