"""The RunPod adapter: the parser on real-format payloads, then whole fetches via a fake."""

from __future__ import annotations

import logging
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

from hardware import load_hardware
from pricing.adapters.kit import HttpConfig, SkipReport
from pricing.adapters.runpod import (
    BAD_PRICE,
    PROVIDER,
    REGION_NOTE,
    SOURCE,
    UNKNOWN_GPU,
    RunPodAdapter,
    RunPodConfig,
    parse_gpu_types,
    pod_counts,
    skip_report,
)
from pricing.errors import AdapterError, AdapterNotConfigured
from pricing.http import make_session
from pricing.offer import Offer, PricingModel
from tests.fakes.runpod import (
    API_KEY,
    SOMETHING_WENT_WRONG,
    RunPodFake,
    gpu_type,
    response,
    sample,
)

RESOLVE = load_hardware().registry.canonical
TODAY = "2026-11-29"
OD, SPOT = PricingModel.ON_DEMAND, PricingModel.SPOT
FIELDS = (
    "id",
    "displayName",
    "memoryInGb",
    "maxGpuCount",
    "secureCloud",
    "communityCloud",
    "securePrice",
    "communityPrice",
    "secureSpotPrice",
    "communitySpotPrice",
    "lowestPrice",
    "stockStatus",
)


def _parse(types: list[dict[str, Any]], skipped: SkipReport | None = None) -> list[Offer]:
    return parse_gpu_types(response(types), RESOLVE, TODAY, skipped or skip_report())


def _by_key(offers: list[Offer]) -> dict[tuple[str, PricingModel], Offer]:
    by_key = {(o.product, o.pricing): o for o in offers}
    assert len(by_key) == len(offers)  # no two offers alike
    return by_key


# -- parser ----------------------------------------------------------------------------------


def test_sample_tiers_counts_and_what_is_left_out() -> None:
    skipped = skip_report()
    offers = parse_gpu_types(sample(), RESOLVE, TODAY, skipped)
    assert skipped.lines() == []
    per_gpu = Counter((o.accelerator, o.market, o.pricing) for o in offers)
    assert per_gpu == {
        # RTX 3090, RTX 4090, H100 SXM: every tier priced, maxGpuCount 8 -> 1, 2, 4, 8
        **{(gpu, m, p): 4 for gpu in ("rtx3090", "rtx4090", "h100-sxm") for m in
           ("secure", "community") for p in (OD, SPOT)},
        # A100 PCIe (its own registry row, issue 33): secureSpotPrice null
        ("a100-80gb-pcie", "secure", OD): 4,
        ("a100-80gb-pcie", "community", OD): 4,
        ("a100-80gb-pcie", "community", SPOT): 4,
        # B200: communityCloud false, spot prices null
        ("b200", "secure", OD): 4,
        # RTX 5090: maxGpuCount 4 -> 1, 2, 4; spot prices null
        ("rtx5090", "secure", OD): 3,
        ("rtx5090", "community", OD): 3,
    }  # fmt: skip
    assert len(offers) == 70
    assert sorted({o.count for o in offers if o.accelerator == "rtx5090"}) == [1, 2, 4]


def test_sample_hand_checked_offers() -> None:
    offers = _by_key(parse_gpu_types(sample(), RESOLVE, TODAY, skip_report()))
    spot = offers[("8x RTX 3090 (community)", SPOT)]
    assert (spot.accelerator, spot.count, spot.market) == ("rtx3090", 8, "community")
    assert spot.usd_per_hour == 0.88  # 8 x 0.11, exact
    assert spot.usd_per_accelerator_hour == pytest.approx(0.11)
    on_demand = offers[("8x RTX 3090 (community)", OD)]
    assert on_demand.usd_per_hour == 1.76  # 8 x 0.22
    assert offers[("2x RTX 3090 (secure)", OD)].usd_per_hour == 0.86  # 2 x 0.43
    assert offers[("1x RTX 3090 (secure)", SPOT)].usd_per_hour == 0.21
    a100 = offers[("4x A100 PCIe (secure)", OD)]
    assert (a100.accelerator, a100.count, a100.usd_per_hour) == ("a100-80gb-pcie", 4, 7.56)
    assert a100.memory_gb == 80.0
    assert a100.notes == f"{REGION_NOTE}; stock: Low"
    assert ("1x A100 PCIe (secure)", SPOT) not in offers  # secureSpotPrice null
    h100 = offers[("8x H100 SXM (secure)", OD)]
    assert (h100.accelerator, h100.usd_per_hour, h100.memory_gb) == ("h100-sxm", 21.52, 80.0)
    assert offers[("1x H100 SXM (community)", SPOT)].usd_per_hour == 1.45
    assert ("1x B200 (community)", OD) not in offers  # communityCloud false
    rtx5090 = offers[("4x RTX 5090 (community)", OD)]
    assert rtx5090.usd_per_hour == 2.76 and rtx5090.memory_gb == 32.0
    assert rtx5090.notes == REGION_NOTE  # stockStatus null: no stock note
    assert ("8x RTX 5090 (secure)", OD) not in offers  # past maxGpuCount 4
    for offer in offers.values():
        assert (offer.provider, offer.service, offer.region) == (PROVIDER, "RunPod", "global")
        assert (offer.price_as_of, offer.source, offer.confidence) == (TODAY, SOURCE, "high")
        assert offer.market in ("secure", "community")
        assert offer.product.endswith(f" ({offer.market})")
        assert offer.product.startswith(f"{offer.count}x ")
        assert (offer.interruption, offer.reliability, offer.zone) == ("", None, "")
        assert offer.host_included and not offer.estimated


@pytest.mark.parametrize("unpriced", [None, 0, 0.0, "0", "missing"])
def test_null_zero_and_missing_prices_make_no_offer_and_no_report(unpriced: object) -> None:
    prices = {"securePrice": 0.5, "communityPrice": unpriced, "secureSpotPrice": unpriced}
    if unpriced == "missing":
        prices = {"securePrice": 0.5}
    entry = gpu_type("NVIDIA GeForce RTX 4090", "RTX 4090", **prices)
    if unpriced == "missing":
        for key in ("communityPrice", "secureSpotPrice", "communitySpotPrice"):
            del entry[key]
    skipped = skip_report()
    (offer,) = _parse([entry], skipped)
    assert (offer.product, offer.pricing, offer.usd_per_hour) == ("1x RTX 4090 (secure)", OD, 0.5)
    assert skipped.lines() == []


def test_a_type_with_no_price_at_all_is_silent_even_when_unknown() -> None:
    skipped = skip_report()
    assert _parse([gpu_type("unknown", "unknown"), gpu_type("NVIDIA A40", "A40")], skipped) == []
    assert skipped.lines() == []


def test_a_tier_flagged_off_has_no_offers_whatever_its_price() -> None:
    entry = gpu_type(
        "NVIDIA L40S",
        "L40S",
        secureCloud=False,
        securePrice=0.86,
        secureSpotPrice=0.5,
        communityPrice=0.79,
        communitySpotPrice=-1,  # malformed, but its tier is on: reported
    )
    entry["secureSpotPrice"] = "not a number"  # its tier is off: not even reported
    skipped = skip_report()
    (offer,) = _parse([entry], skipped)
    assert (offer.product, offer.market, offer.usd_per_hour) == (
        "1x L40S (community)",
        "community",
        0.79,
    )
    assert skipped.names(BAD_PRICE) == {"NVIDIA L40S communitySpotPrice"}
    both_off = gpu_type("NVIDIA L4", "L4", secureCloud=False, communityCloud=False, securePrice=0.4)
    assert _parse([both_off]) == []


def test_a_missing_tier_flag_does_not_hide_a_price() -> None:
    entry = gpu_type("NVIDIA L4", "L4", communityPrice=0.39)
    del entry["communityCloud"]
    (offer,) = _parse([entry])
    assert (offer.accelerator, offer.market, offer.usd_per_hour) == ("l4", "community", 0.39)


@pytest.mark.parametrize(
    "bad", [-0.5, "cheap", "", True, False, float("nan"), float("inf"), "-1", [0.5], {"usd": 1}]
)
def test_a_malformed_price_is_reported_and_the_rest_priced(bad: object) -> None:
    skipped = skip_report()
    types = [
        gpu_type("NVIDIA GeForce RTX 3090", "RTX 3090", securePrice=bad, communityPrice=0.22),
        gpu_type("NVIDIA GeForce RTX 4090", "RTX 4090", communitySpotPrice=bad, securePrice=0.69),
    ]
    offers = _parse(types, skipped)
    assert sorted((o.product, o.usd_per_hour) for o in offers) == [
        ("1x RTX 3090 (community)", 0.22),
        ("1x RTX 4090 (secure)", 0.69),
    ]
    assert skipped.names(BAD_PRICE) == {
        "NVIDIA GeForce RTX 3090 securePrice",
        "NVIDIA GeForce RTX 4090 communitySpotPrice",
    }
    (line,) = skipped.lines()
    assert line.startswith("2 malformed prices skipped (RTX 3090 securePrice=")


def test_bad_prices_count_each_even_for_one_gpu() -> None:
    skipped = skip_report()
    entry = gpu_type("NVIDIA GeForce RTX 3090", "RTX 3090", securePrice="x", communityPrice="y")
    assert _parse([entry], skipped) == []
    assert skipped.lines()[0].startswith("2 malformed prices skipped")
    assert skipped.names(UNKNOWN_GPU) == set()


def test_a_numeric_string_price_is_read() -> None:
    offers = _parse([gpu_type("NVIDIA L4", "L4", securePrice=" 0.44 ", maxGpuCount=2)])
    assert [(o.count, o.usd_per_hour) for o in offers] == [(1, 0.44), (2, 0.88)]


def test_unknown_gpus_are_reported_by_display_name() -> None:
    skipped = skip_report()
    types = [
        gpu_type("NVIDIA A40", "A40", securePrice=0.4, communityPrice=0.35),
        gpu_type("NVIDIA RTX A2000", "RTX A2000", securePrice=0.2),
        gpu_type("NVIDIA GeForce RTX 4090", "RTX 4090", communityPrice=0.34),
    ]
    offers = _parse(types, skipped)
    assert [o.accelerator for o in offers] == ["rtx4090"]
    assert skipped.names(UNKNOWN_GPU) == {"NVIDIA A40", "NVIDIA RTX A2000"}
    assert skipped.lines() == ["2 GPU types not in the hardware registry skipped (A40, RTX A2000)"]


def test_the_id_resolves_first_then_the_display_name() -> None:
    types = [
        # displayName "A100" alone would be the 40 GB card; the id says 80 GB PCIe
        gpu_type("NVIDIA A100 80GB PCIe", "A100", securePrice=1.89),
        # the id is no registry alias; the display name is
        gpu_type("AMD Instinct MI300X OAM", "MI300X", securePrice=2.49, memoryInGb=192),
    ]
    offers = _parse(types)
    assert [(o.product, o.accelerator) for o in offers] == [
        ("1x A100 (secure)", "a100-80gb-pcie"),
        ("1x MI300X (secure)", "mi300x"),
    ]


@pytest.mark.parametrize(
    ("max_gpu_count", "counts"),
    [
        (8, [1, 2, 4, 8]),
        (16, [1, 2, 4, 8]),
        (6, [1, 2, 4]),
        (2, [1, 2]),
        (1, [1]),
        (0, [1]),
        (-4, [1]),
        (None, [1]),
        ("8", [1]),
        (8.0, [1]),
        (True, [1]),
    ],
)
def test_pod_sizes_follow_max_gpu_count(max_gpu_count: object, counts: list[int]) -> None:
    assert pod_counts(max_gpu_count) == counts
    entry = gpu_type("NVIDIA L40S", "L40S", communityPrice=0.79, maxGpuCount=max_gpu_count)
    offers = _parse([entry])
    assert [(o.count, o.usd_per_hour) for o in offers] == [(c, round(0.79 * c, 2)) for c in counts]


def test_a_missing_max_gpu_count_offers_one_gpu() -> None:
    entry = gpu_type("NVIDIA L40S", "L40S", communityPrice=0.79)
    del entry["maxGpuCount"]
    assert [o.count for o in _parse([entry])] == [1]


@pytest.mark.parametrize(
    ("memory", "expected"), [(48, 48.0), (23.5, 23.5), (0, None), (None, None), ("48", None)]
)
def test_memory_per_gpu_when_a_positive_number(memory: object, expected: float | None) -> None:
    (offer,) = _parse([gpu_type("NVIDIA L40S", "L40S", securePrice=0.86, memoryInGb=memory)])
    assert offer.memory_gb == expected


@pytest.mark.parametrize(
    ("lowest", "notes"),
    [
        ({"stockStatus": "High"}, f"{REGION_NOTE}; stock: High"),
        ({"stockStatus": None}, REGION_NOTE),
        ({}, REGION_NOTE),
        (None, REGION_NOTE),
    ],
)
def test_stock_status_goes_to_the_notes(lowest: object, notes: str) -> None:
    (offer,) = _parse([gpu_type("NVIDIA L4", "L4", securePrice=0.44, lowestPrice=lowest)])
    assert offer.notes == notes


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({}, "no data.gpuTypes list"),
        ({"data": None}, "no data.gpuTypes list"),
        ({"data": {}}, "no data.gpuTypes list"),
        ({"data": {"gpuTypes": None}}, "no data.gpuTypes list"),
        ({"data": {"gpuTypes": {"id": "NVIDIA L4"}}}, "no data.gpuTypes list"),
        ({"data": {"gpuTypes": []}}, "lists no GPU types"),
        ({"data": {"gpuTypes": ["NVIDIA L4"]}}, r"gpuTypes\[0\] is not an object"),
        ([], "not a JSON object"),
    ],
)
def test_payloads_without_the_gpu_types_list_fail(payload: object, message: str) -> None:
    with pytest.raises(AdapterError, match=message):
        parse_gpu_types(payload, RESOLVE, TODAY, skip_report())


def test_a_graphql_errors_array_fails_with_its_first_message() -> None:
    payload = {
        "errors": [{"message": SOMETHING_WENT_WRONG, "path": ["gpuTypes"]}, {"message": "2nd"}],
        "data": sample()["data"],  # partial data does not outweigh an error
    }
    with pytest.raises(AdapterError, match="Something went wrong") as error:
        parse_gpu_types(payload, RESOLVE, TODAY, skip_report())
    assert "2nd" not in str(error.value)
    with pytest.raises(AdapterError, match=r"Unauthorized \(the API key was refused"):
        parse_gpu_types({"errors": [{"message": "Unauthorized"}], "data": None}, RESOLVE, TODAY,
                        skip_report())  # fmt: skip


# -- whole fetches through the fake ----------------------------------------------------------


@pytest.fixture
def fake(httpserver):  # type: ignore[no-untyped-def]
    fake = RunPodFake()
    fake.types = [
        *sample()["data"]["gpuTypes"][:2],  # RTX 3090, RTX 4090: every tier, up to 8 GPUs
        gpu_type("NVIDIA A40", "A40", securePrice=0.4, extraField="not asked for"),
    ]
    fake.url = fake.install(httpserver)  # type: ignore[attr-defined]
    yield fake
    fake.release()


def _adapter(
    fake: RunPodFake, api_key: str | None = API_KEY, retries: int = 3, timeout: float = 10.0
) -> RunPodAdapter:
    http = HttpConfig(timeout_seconds=timeout, retries=retries, backoff_seconds=0.01)
    config = RunPodConfig(url=fake.url, api_key=api_key, http=http)  # type: ignore[attr-defined]
    return RunPodAdapter(
        config,
        RESOLVE,
        http=make_session(config.http.retries, 0.01),
        clock=lambda: datetime(2026, 11, 29, 23, 59, tzinfo=UTC),
    )


def test_fetch_posts_the_query_with_the_bearer_key_and_prices_every_known_type(
    fake, caplog
) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.WARNING, logger="pricing.adapters.runpod"):
        batch = _adapter(fake).fetch()
    (request,) = fake.requests
    assert request["method"] == "POST" and request["path"] == "/graphql"
    assert request["authorization"] == f"Bearer {API_KEY}"
    assert request["content_type"].startswith("application/json")
    assert "gpuTypes" in request["query"]
    assert all(name in request["query"] for name in FIELDS)
    assert "gpuCount: 1" in request["query"]
    # the fake answers only what was asked: counts up to 8 prove maxGpuCount was
    assert Counter(o.accelerator for o in batch.offers) == {"rtx3090": 16, "rtx4090": 16}
    offers = _by_key(list(batch.offers))
    assert offers[("8x RTX 4090 (community)", SPOT)].usd_per_hour == 1.6  # 8 x 0.20
    assert offers[("1x RTX 3090 (secure)", OD)].notes == f"{REGION_NOTE}; stock: High"
    assert {o.price_as_of for o in batch.offers} == {TODAY}
    assert batch.source_version == (
        f"{SOURCE}; 1 GPU types not in the hardware registry skipped (A40)"
    )
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "NVIDIA A40" in warnings[0].getMessage()


def test_no_key_is_not_configured_and_asks_nothing(fake) -> None:  # type: ignore[no-untyped-def]
    for key in (None, ""):
        with pytest.raises(AdapterNotConfigured, match="no BREAKEVEN_RUNPOD_API_KEY"):
            _adapter(fake, api_key=key).fetch()
    assert fake.requests == []


def test_a_refused_key_fails_without_showing_the_key(fake) -> None:  # type: ignore[no-untyped-def]
    wrong = "rpa_WRONGKEY9876543210ZYXWVUTSRQPONMLKJIHG"
    with pytest.raises(AdapterError, match="HTTP 401: the API key was refused") as error:
        _adapter(fake, api_key=wrong).fetch()
    assert "BREAKEVEN_RUNPOD_API_KEY" in str(error.value)
    assert wrong not in str(error.value)
    assert len(fake.requests) == 1  # a refusal is not retried
    assert fake.requests[0]["authorization"] == f"Bearer {wrong}"


def test_forbidden_refuses_and_other_statuses_name_the_graphql_error(fake) -> None:  # type: ignore[no-untyped-def]
    fake.body, fake.status = '{"errors": [{"message": "Forbidden"}]}', 403
    with pytest.raises(AdapterError, match="HTTP 403: the API key was refused") as error:
        _adapter(fake).fetch()
    assert API_KEY not in str(error.value)
    fake.body = (
        '{"errors": [{"message": "Cannot query field \\"fooPrice\\" on type \\"GpuType\\"."}]}'
    )
    fake.status = 400
    with pytest.raises(AdapterError, match=r'HTTP 400: Cannot query field "fooPrice"'):
        _adapter(fake).fetch()
    fake.body, fake.status = "not found", 404
    with pytest.raises(AdapterError, match=r"HTTP 404$"):
        _adapter(fake).fetch()


def test_an_error_in_a_200_answer_fails_with_its_message(fake) -> None:  # type: ignore[no-untyped-def]
    fake.errors = [{"message": SOMETHING_WENT_WRONG, "path": ["gpuTypes"]}]
    with pytest.raises(AdapterError, match="RunPod answered an error: Something went wrong"):
        _adapter(fake).fetch()
    fake.errors = [{"message": "Unauthorized", "path": ["gpuTypes"]}]
    with pytest.raises(AdapterError, match="BREAKEVEN_RUNPOD_API_KEY"):
        _adapter(fake).fetch()


def test_throttling_is_retried(fake) -> None:  # type: ignore[no-untyped-def]
    fake.throttle_first = 2
    batch = _adapter(fake).fetch()
    assert len(fake.requests) == 3
    assert all(r["method"] == "POST" and r["query"] for r in fake.requests)  # body re-sent
    assert len(batch.offers) == 32


def test_server_errors_are_retried(fake) -> None:  # type: ignore[no-untyped-def]
    fake.faults.statuses = [503, 502]
    batch = _adapter(fake).fetch()
    assert len(fake.requests) == 3 and len(batch.offers) == 32


def test_a_server_error_past_the_retries_fails(fake) -> None:  # type: ignore[no-untyped-def]
    fake.faults.status = 500
    with pytest.raises(AdapterError, match="HTTP 500: fake HTTP 500"):
        _adapter(fake).fetch()
    assert len(fake.requests) == 4  # the first try and 3 retries


def test_a_hung_backend_times_out(fake) -> None:  # type: ignore[no-untyped-def]
    fake.faults.delay_seconds = 10.0
    with pytest.raises(AdapterError, match="Timeout"):
        _adapter(fake, retries=0, timeout=0.3).fetch()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"data": {"gpuTypes": [{"id": ', "not JSON"),
        ("<html>Bad Gateway</html>", "not JSON"),
        ('{"data": {"gpuTypes": []}}', "lists no GPU types"),
        ('{"data": null}', "no data.gpuTypes list"),
        ('{"errors": []}', "no data.gpuTypes list"),
    ],
)
def test_a_malformed_body_fails_the_fetch(fake, body: str, message: str) -> None:  # type: ignore[no-untyped-def]
    fake.body = body
    with pytest.raises(AdapterError, match=message):
        _adapter(fake).fetch()


def test_a_truncated_body_fails_the_fetch(fake) -> None:  # type: ignore[no-untyped-def]
    fake.faults.truncate_page = 1
    with pytest.raises(AdapterError, match=r"POST http://.*/graphql: answer is not JSON"):
        _adapter(fake).fetch()
