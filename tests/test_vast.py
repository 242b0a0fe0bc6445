"""The Vast.ai adapter: the parser on real-format payloads, then whole fetches via a fake."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from hardware import load_hardware
from pricing.adapters.kit import HttpConfig, SkipReport
from pricing.adapters.vast import (
    BAD_BID,
    BAD_OFFER,
    LIMIT,
    RENTED,
    SOURCE,
    UNKNOWN_GPU,
    VastAdapter,
    VastConfig,
    parse_offers,
    region_of,
    skip_report,
)
from pricing.errors import AdapterError, AdapterNotConfigured
from pricing.http import make_session
from pricing.offer import MARKETS, Offer, PricingModel
from tests.fakes.vast import (
    API_KEY,
    INVALID_KEY,
    PATH,
    VastFake,
    offer,
    response,
    sample,
)

RESOLVE = load_hardware().registry.canonical
TODAY = "2026-11-29"
ON_DEMAND, SPOT = PricingModel.ON_DEMAND, PricingModel.SPOT


def _parse(offers: list, skipped: SkipReport | None = None, **kwargs) -> list[Offer]:  # type: ignore[no-untyped-def]
    return parse_offers(response(offers), RESOLVE, TODAY, skipped or skip_report(), **kwargs)


def _by(offers: list[Offer]) -> dict[tuple[str, str, str], Offer]:
    """Offers by (product, region, pricing): the parser emits one per key."""
    table = {(o.product, o.region, str(o.pricing)): o for o in offers}
    assert len(table) == len(offers)
    return table


# -- parser ----------------------------------------------------------------------------------


def test_sample_one_row_per_group_and_pricing_hand_checked() -> None:
    skipped = skip_report()
    offers = _by(parse_offers(sample(), RESOLVE, TODAY, skipped))
    assert skipped.lines() == []
    assert sorted(offers) == sorted(
        [
            ("1x RTX 3090 (verified)", "us", "on_demand"),
            ("1x RTX 3090 (verified)", "us", "spot"),
            ("2x RTX 3090 (unverified)", "cz", "on_demand"),
            ("2x RTX 3090 (unverified)", "cz", "spot"),
            ("1x RTX 4090 (verified)", "cn", "on_demand"),
            ("1x RTX 4090 (verified)", "cn", "spot"),
            ("1x RTX 5090 (verified)", "us", "on_demand"),
            ("1x RTX 5090 (verified)", "us", "spot"),
            ("8x H100 SXM (verified)", "us", "on_demand"),
            ("8x H100 SXM (verified)", "us", "spot"),
            ("1x RTX 6000Ada (unverified)", "ca", "on_demand"),
            ("1x RTX 6000Ada (unverified)", "ca", "spot"),
        ]
    )
    for o in offers.values():
        assert (o.provider, o.service, o.source) == ("vast", "Vast.ai", SOURCE)
        assert (o.price_as_of, o.confidence, o.interruption) == (TODAY, "medium", "")
        assert o.market in MARKETS and o.host_included and not o.estimated


def test_sample_grouping_keeps_the_cheapest_of_each_pricing() -> None:
    offers = _by(parse_offers(sample(), RESOLVE, TODAY, skip_report()))
    # Two verified 1x RTX 3090 hosts in the US: Texas asks less on demand (0.18 + 5 GB of
    # disk at 0.15 $/GB/month), Florida has the lower bid floor (0.07 against 0.09).
    texas = offers[("1x RTX 3090 (verified)", "us", "on_demand")]
    assert texas.usd_per_hour == pytest.approx(0.18 + 0.15 * 5 / 720)
    assert texas.usd_per_hour == 0.18104166666666666  # dph_total, not dph_base (0.18)
    assert texas.notes == (
        "cheapest of 2 offers; machine 31877; dph_total: includes 5 GB of storage"
    )
    assert (texas.reliability, texas.memory_gb) == (0.9954, 24.0)
    florida = offers[("1x RTX 3090 (verified)", "us", "spot")]
    assert florida.usd_per_hour == 0.07  # min_bid, the whole offer's bid floor
    assert florida.notes.startswith("cheapest of 2 offers; machine 52290; min_bid")
    assert florida.reliability == 0.9321  # the chosen machine's, not the group's best
    assert (texas.accelerator, florida.accelerator) == ("rtx3090", "rtx3090")


def test_sample_counts_tiers_countries_and_memory() -> None:
    offers = _by(parse_offers(sample(), RESOLVE, TODAY, skip_report()))
    pair = offers[("2x RTX 3090 (unverified)", "cz", "on_demand")]
    assert (pair.count, pair.market) == (2, "unverified")
    assert pair.usd_per_hour == 0.30069444444444443  # the whole 2-GPU offer
    assert pair.usd_per_accelerator_hour == pytest.approx(0.30069444444444443 / 2)
    assert offers[("2x RTX 3090 (unverified)", "cz", "spot")].usd_per_hour == 0.16
    assert pair.notes.startswith("cheapest of 1 offer; machine 40216;")

    real = offers[("1x RTX 4090 (verified)", "cn", "on_demand")]  # the verbatim row
    assert real.usd_per_hour == 0.2466759259259259
    assert (real.reliability, real.memory_gb) == (0.9700835, 24.0)  # 24564 MB / 1024
    assert offers[("1x RTX 4090 (verified)", "cn", "spot")].usd_per_hour == 0.2

    h100 = offers[("8x H100 SXM (verified)", "us", "on_demand")]
    assert (h100.accelerator, h100.count, h100.memory_gb) == ("h100-sxm", 8, 79.6)
    assert h100.usd_per_accelerator_hour == pytest.approx(15.20173611111111 / 8)
    assert offers[("8x H100 SXM (verified)", "us", "spot")].usd_per_hour == 9.6

    assert offers[("1x RTX 5090 (verified)", "us", "on_demand")].memory_gb == 31.8

    ada = offers[("1x RTX 6000Ada (unverified)", "ca", "on_demand")]  # "deverified"
    assert (ada.accelerator, ada.market, ada.memory_gb) == ("rtx6000-ada", "unverified", 48.0)
    assert ada.reliability == 0.9712


def test_groups_split_by_gpu_count_tier_and_country_and_keep_the_cheapest() -> None:
    offers = [
        offer(1, dph_total=0.40, min_bid=0.20, geolocation="Texas, US", machine_id=11),
        offer(2, dph_total=0.30, min_bid=0.25, geolocation="Ohio, US", machine_id=12),
        offer(3, dph_total=0.35, min_bid=0.10, geolocation="Ohio, US", machine_id=13),
        offer(4, dph_total=0.10, geolocation="Ohio, US", verification="unverified", machine_id=14),
        offer(5, dph_total=0.11, geolocation="Bavaria, DE", machine_id=15),
        offer(6, dph_total=0.50, geolocation="Ohio, US", num_gpus=2, machine_id=16),
    ]
    got = {
        (o.product, o.region, str(o.pricing)): (o.usd_per_hour, o.notes.split("; ")[:2])
        for o in _parse(offers)
    }
    one, two = "cheapest of 1 offer", "cheapest of 3 offers"
    assert got == {
        ("1x RTX 4090 (verified)", "us", "on_demand"): (0.30, [two, "machine 12"]),
        ("1x RTX 4090 (verified)", "us", "spot"): (0.10, [two, "machine 13"]),
        ("1x RTX 4090 (unverified)", "us", "on_demand"): (0.10, [one, "machine 14"]),
        ("1x RTX 4090 (unverified)", "us", "spot"): (0.2, [one, "machine 14"]),
        ("1x RTX 4090 (verified)", "de", "on_demand"): (0.11, [one, "machine 15"]),
        ("1x RTX 4090 (verified)", "de", "spot"): (0.2, [one, "machine 15"]),
        ("2x RTX 4090 (verified)", "us", "on_demand"): (0.50, [one, "machine 16"]),
        ("2x RTX 4090 (verified)", "us", "spot"): (0.2, [one, "machine 16"]),
    }


def test_equal_prices_pick_the_same_offer_whatever_the_order() -> None:
    a = offer(7001, dph_total=0.3, min_bid=0.1, machine_id=1)
    b = offer(7002, dph_total=0.3, min_bid=0.1, machine_id=2)
    first, second = _parse([a, b]), _parse([b, a])
    assert first == second
    assert all("machine 1;" in o.notes for o in first)


@pytest.mark.parametrize(
    ("min_bid", "spot", "reported"),
    [(0.05, 0.05, False), (0, None, False), (None, None, False), (0.0, None, False)]
    + [(bad, None, True) for bad in ("0.05", True, -0.1, float("nan"), float("inf"), [0.1])],
)
def test_min_bid_prices_interruptible_only_when_positive(
    min_bid: object, spot: float | None, reported: bool
) -> None:
    skipped = skip_report()
    offers = _parse([offer(1, dph_total=0.3, min_bid=min_bid)], skipped)
    assert [o.usd_per_hour for o in offers if o.pricing == ON_DEMAND] == [0.3]
    assert [o.usd_per_hour for o in offers if o.pricing == SPOT] == ([spot] if spot else [])
    assert skipped.names(BAD_BID) == ({"1"} if reported else set())


def test_market_is_verified_only_for_verified_hosts() -> None:
    offers = [
        offer(1, verification="verified", geolocation="A, AA"),
        offer(2, verification="unverified", geolocation="B, BB"),
        offer(3, verification="deverified", geolocation="C, CC"),
        offer(4, verification=None, geolocation="D, DD"),
        offer(5, verification="Verified", geolocation="E, EE"),
    ]
    markets = {o.region: o.market for o in _parse(offers) if o.pricing == ON_DEMAND}
    assert markets == {
        "aa": "verified",
        "bb": "unverified",
        "cc": "unverified",
        "dd": "unverified",
        "ee": "unverified",
    }


@pytest.mark.parametrize(
    ("geolocation", "region"),
    [
        ("Texas, US", "us"),
        ("Quebec, ca", "ca"),
        ("Guangxi,CN", "cn"),
        ("Norway", "unknown"),  # a 2022 row: a bare country, no code
        ("NO", "unknown"),
        ("Somewhere, USA", "unknown"),
        ("Texas, U5", "unknown"),
        ("", "unknown"),
        (None, "unknown"),
        (42, "unknown"),
    ],
)
def test_region_is_the_country_code(geolocation: object, region: str) -> None:
    assert region_of(geolocation) == region


def test_missing_geolocation_and_null_geolocation_are_unknown() -> None:
    offers = _parse([offer(1, geolocation=None), offer(2, null=["geolocation"], dph_total=0.1)])
    (on_demand,) = [o for o in offers if o.pricing == ON_DEMAND]  # one group: both unknown
    assert (on_demand.region, on_demand.usd_per_hour) == ("unknown", 0.1)


@pytest.mark.parametrize(
    ("fields", "reliability"),
    [
        ({"reliability2": 0.91, "reliability": 0.99}, 0.91),
        ({"reliability2": None, "reliability": 0.99}, 0.99),  # reliability2 absent
        ({"reliability2": 1.5, "reliability": 0.97}, 0.97),
        ({"reliability2": "0.9", "reliability": None}, None),
        ({"reliability2": True, "reliability": -0.1}, None),
        ({"reliability2": 0, "reliability": 0.5}, 0.0),
        ({"reliability2": 1, "reliability": 0.5}, 1.0),
    ],
)
def test_reliability_is_reliability2_else_reliability_when_in_0_1(
    fields: dict, reliability: float | None
) -> None:
    offers = _parse([offer(1, **fields)])
    assert {o.reliability for o in offers} == {reliability}


@pytest.mark.parametrize(
    ("gpu_ram", "memory_gb"), [(24564, 24.0), (81559, 79.6), (0, None), (None, None), ("24", None)]
)
def test_memory_is_gpu_ram_per_gpu_in_gb(gpu_ram: object, memory_gb: float | None) -> None:
    offers = _parse([offer(1, gpu_ram=gpu_ram, num_gpus=4)])
    assert {o.memory_gb for o in offers} == {memory_gb}


@pytest.mark.parametrize(
    ("gpu_name", "gpu_ram", "accelerator", "product"),
    [
        ("A100 SXM4", 40960, "a100-40gb", "1x A100 SXM4 40GB (verified)"),
        ("A100 SXM4", 81920, "a100-80gb", "1x A100 SXM4 80GB (verified)"),
        ("A100 PCIE", 40536, "a100-40gb", "1x A100 PCIE 40GB (verified)"),
        ("A100 PCIE", 81920, "a100-80gb-pcie", "1x A100 PCIE 80GB (verified)"),
        ("Tesla V100", 16160, "v100-16gb", "1x Tesla V100 (verified)"),
        ("Tesla V100", 32510, "v100-32gb", "1x Tesla V100 32GB (verified)"),
        ("H100 PCIE", 81559, "h100-pcie", "1x H100 PCIE (verified)"),
        ("H100 SXM", 81559, "h100-sxm", "1x H100 SXM (verified)"),
        ("H200", 143771, "h200", "1x H200 (verified)"),
        ("RTX  3090", 24576, "rtx3090", "1x RTX 3090 (verified)"),
    ],
)
def test_memory_picks_the_variant_a_name_leaves_open(
    gpu_name: str, gpu_ram: int, accelerator: str, product: str
) -> None:
    (on_demand, _spot) = _parse([offer(1, gpu_name, gpu_ram=gpu_ram)])
    assert (on_demand.accelerator, on_demand.product) == (accelerator, product)


def test_rtx_spacing_variants_are_tried() -> None:
    known = {"RTX 6000 Ada": "rtx6000-ada", "RTX 3090Ti": "rtx3090ti"}
    skipped = skip_report()
    offers = parse_offers(
        response([offer(1, "RTX 6000Ada"), offer(2, "RTX 3090 Ti"), offer(3, "RTX 6000")]),
        known.get,
        TODAY,
        skipped,
    )
    assert {(o.accelerator, o.product) for o in offers} == {
        ("rtx6000-ada", "1x RTX 6000Ada (verified)"),
        ("rtx3090ti", "1x RTX 3090 Ti (verified)"),
    }
    assert skipped.names(UNKNOWN_GPU) == {"RTX 6000 (24 GB)"}


def test_unknown_gpus_are_reported_once_per_name_and_never_priced(caplog) -> None:  # type: ignore[no-untyped-def]
    skipped = skip_report()
    offers = [
        offer(1, "A40", gpu_ram=46068),
        offer(2, "A40", gpu_ram=46068, geolocation="Oslo, NO"),
        offer(3, "RTX A2000", gpu_ram=6144),
        offer(4, "RTX 4090"),
    ]
    priced = _parse(offers, skipped)
    assert {o.accelerator for o in priced} == {"rtx4090"}
    assert skipped.names(UNKNOWN_GPU) == {"A40 (45 GB)", "RTX A2000 (6 GB)"}
    with caplog.at_level(logging.WARNING, logger="pricing.adapters.vast"):
        version = skipped.version(SOURCE)
    assert version == (
        f"{SOURCE}; 2 GPU names not in the hardware registry skipped"
        " (A40 (45 GB), RTX A2000 (6 GB))"
    )
    assert "A40 (45 GB)" in caplog.records[0].getMessage()


@pytest.mark.parametrize(
    ("fields", "label"),
    [
        ({"num_gpus": 0}, "9: num_gpus 0"),
        ({"num_gpus": -2}, "9: num_gpus -2"),
        ({"num_gpus": "2"}, "9: num_gpus '2'"),
        ({"num_gpus": True}, "9: num_gpus True"),
        ({"num_gpus": 1.5}, "9: num_gpus 1.5"),
        ({"num_gpus": None}, "9: num_gpus None"),
        ({"dph_total": 0}, "9: dph_total 0"),
        ({"dph_total": -0.3}, "9: dph_total -0.3"),
        ({"dph_total": "0.30"}, "9: dph_total '0.30'"),
        ({"dph_total": True}, "9: dph_total True"),
        ({"dph_total": float("nan")}, "9: dph_total nan"),
        ({"dph_total": float("inf")}, "9: dph_total inf"),
        ({"dph_total": None}, "9: dph_total None"),
        ({"gpu_name": None}, "9: gpu_name None"),
        ({"gpu_name": " "}, "9: gpu_name ' '"),
        ({"gpu_name": 4090}, "9: gpu_name 4090"),
    ],
)
def test_a_bad_offer_is_skipped_and_counted_not_fatal(fields: dict, label: str) -> None:
    skipped = skip_report()
    bad = offer(9, geolocation="Oregon, US")
    bad.update(fields)
    offers = _parse([bad, offer(1, dph_total=0.25, min_bid=None)], skipped)
    assert [(o.region, o.usd_per_hour) for o in offers] == [("cn", 0.25)]
    assert skipped.lines() == [
        f"1 offers with a bad GPU name, GPU count or price skipped ({label})"
    ]


def test_every_bad_offer_counts_and_non_objects_are_bad_offers_too() -> None:
    skipped = skip_report()
    rows: list = [offer(i, num_gpus=0) for i in range(1, 4)] + ["offer", None, offer(5)]
    offers = _parse(rows, skipped)
    assert {o.count for o in offers} == {1}
    assert skipped.names(BAD_OFFER) == {"1", "2", "3", "#3", "#4"}
    assert skipped.lines()[0].startswith("5 offers with a bad GPU name, GPU count or price")


def test_rented_offers_are_left_out_and_counted() -> None:
    skipped = skip_report()
    offers = _parse(
        [offer(1, dph_total=0.05, rented=True), offer(2, dph_total=0.3, rented=False)], skipped
    )
    assert {o.usd_per_hour for o in offers if o.pricing == ON_DEMAND} == {0.3}
    assert skipped.names(RENTED) == {"1"}
    assert skipped.lines() == ["1 offers already rented left out"]


def test_a_truncated_or_full_answer_is_reported() -> None:
    truncated = skip_report()
    parse_offers(response([offer(1)], truncated=True), RESOLVE, TODAY, truncated)
    assert truncated.lines() == [
        "1 answer cut short at the offer limit: the dearest offers are missing (answer)"
    ]
    full = skip_report()
    _parse([offer(1), offer(2)], full, limit=2)
    assert full.lines() == truncated.lines()
    whole = skip_report()
    parse_offers(response([offer(1)], truncated=False), RESOLVE, TODAY, whole)
    _parse([offer(1), offer(2)], whole, limit=3)
    assert whole.lines() == []


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({}, "no 'offers' list"),
        ({"offers": None}, "no 'offers' list"),
        ({"offers": {"id": 1}}, "no 'offers' list"),  # the OpenAPI example's single object
        ({"error": "invalid_request", "msg": "Invalid json body"}, "no 'offers' list"),
        ([], "no 'offers' list"),
        ({"offers": []}, "lists no offers"),
    ],
)
def test_payloads_without_offers_fail(payload: object, message: str) -> None:
    with pytest.raises(AdapterError, match=message):
        parse_offers(payload, RESOLVE, TODAY, skip_report())  # type: ignore[arg-type]


# -- whole fetches through the fake ----------------------------------------------------------


@pytest.fixture
def fake(httpserver) -> VastFake:  # type: ignore[no-untyped-def]
    fake = VastFake()
    fake.offers = sample()["offers"] + [offer(99, "A40", gpu_ram=46068)]
    fake.url = fake.install(httpserver)  # type: ignore[attr-defined]
    yield fake  # type: ignore[misc]
    fake.release()


def _adapter(fake: VastFake, api_key: str | None = API_KEY) -> VastAdapter:
    http = HttpConfig(retries=3, backoff_seconds=0.01)
    config = VastConfig(url=fake.url, api_key=api_key, http=http)  # type: ignore[attr-defined]
    return VastAdapter(
        config,
        RESOLVE,
        http=make_session(config.http.retries, 0.01),
        clock=lambda: datetime(2026, 11, 29, 23, 59, tzinfo=UTC),
    )


def test_fetch_posts_the_query_with_the_bearer_key(fake, caplog) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.WARNING, logger="pricing.adapters.vast"):
        batch = _adapter(fake).fetch()
    (request,) = fake.requests
    assert (request["method"], request["path"]) == ("POST", PATH)
    assert request["authorization"] == f"Bearer {API_KEY}"
    assert request["content_type"] == "application/json"
    query = request["query"]
    assert query["rentable"] == {"eq": True} and query["rented"] == {"eq": False}
    assert query["type"] == "on-demand"
    assert query["limit"] == LIMIT and query["order"] == [["dph_total", "asc"]]
    assert "verified" not in query and "verification" not in query  # both tiers
    assert len(batch.offers) == 12
    assert {o.market for o in batch.offers} == {"verified", "unverified"}
    assert all(o.price_as_of == TODAY for o in batch.offers)
    assert batch.source_version == (
        f"{SOURCE}; 1 GPU names not in the hardware registry skipped (A40 (45 GB))"
    )
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "A40" in warnings[0].getMessage()
    assert API_KEY not in caplog.text


def test_no_key_is_not_configured_and_asks_nothing(fake) -> None:  # type: ignore[no-untyped-def]
    for key in (None, ""):
        with pytest.raises(AdapterNotConfigured, match="no BREAKEVEN_VAST_API_KEY"):
            _adapter(fake, api_key=key).fetch()
    assert fake.requests == []


@pytest.mark.parametrize("status", [404, 401, 403])
def test_a_refused_key_fails_without_showing_the_key(fake, status: int) -> None:  # type: ignore[no-untyped-def]
    fake.refuse_status = status
    wrong = "wrong-vast-key-fedcba9876543210"
    with pytest.raises(AdapterError, match="refused") as error:
        _adapter(fake, api_key=wrong).fetch()
    message = str(error.value)
    assert f"HTTP {status}: the API key was refused (BREAKEVEN_VAST_API_KEY)" in message
    assert wrong not in message
    assert len(fake.requests) == 1  # a refusal is not retried
    assert fake.requests[0]["authorization"] == f"Bearer {wrong}"
    assert INVALID_KEY["msg"] == "Invalid user key"


def test_a_404_that_does_not_blame_the_key_is_a_wrong_url(fake) -> None:  # type: ignore[no-untyped-def]
    fake.body, fake.status = "<html>Not Found</html>", 404
    with pytest.raises(AdapterError, match=r"HTTP 404$"):
        _adapter(fake).fetch()
    fake.body = '{"error": "not_found", "msg": "no such endpoint"}'
    with pytest.raises(AdapterError, match=r"HTTP 404$"):
        _adapter(fake).fetch()


def test_throttling_is_retried(fake) -> None:  # type: ignore[no-untyped-def]
    fake.throttle_first = 2
    batch = _adapter(fake).fetch()
    assert len(fake.requests) == 3
    assert all(r["method"] == "POST" and r["query"]["type"] == "on-demand" for r in fake.requests)
    assert len(batch.offers) == 12


def test_throttling_past_the_retries_fails(fake) -> None:  # type: ignore[no-untyped-def]
    fake.throttle_first = 10
    with pytest.raises(AdapterError, match="HTTP 429"):
        _adapter(fake).fetch()
    assert len(fake.requests) == 4  # the first try and 3 retries


def test_server_errors_are_retried_then_fail(fake) -> None:  # type: ignore[no-untyped-def]
    fake.faults.statuses = [502, 503]
    assert len(_adapter(fake).fetch().offers) == 12
    assert len(fake.requests) == 3
    fake.requests.clear()
    fake.faults.status = 500
    with pytest.raises(AdapterError, match=r"POST http://.*/api/v0/bundles/: HTTP 500$"):
        _adapter(fake).fetch()
    assert len(fake.requests) == 4


def test_a_connection_refused_is_an_adapter_error() -> None:
    config = VastConfig(url="http://127.0.0.1:9/api/v0/bundles/", api_key=API_KEY)
    adapter = VastAdapter(config, RESOLVE, http=make_session(0, 0.01))
    with pytest.raises(AdapterError, match="ConnectionError") as error:
        adapter.fetch()
    assert API_KEY not in str(error.value)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (None, "not JSON"),  # the answer cut off halfway
        ('{"offers": [{"id": 1, ', "not JSON"),
        ("<html>Bad Gateway</html>", "not JSON"),
        ('{"error": "invalid_request", "msg": "Invalid json body"}', "no 'offers' list"),
        ('{"offers": []}', "lists no offers"),
    ],
)
def test_a_malformed_body_fails_the_fetch(fake, body: str | None, message: str) -> None:  # type: ignore[no-untyped-def]
    if body is None:
        fake.faults.truncate_page = 1
    else:
        fake.body = body
    with pytest.raises(AdapterError, match=message):
        _adapter(fake).fetch()
