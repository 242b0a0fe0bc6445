"""Azure's spot eviction bands: Resource Graph's rows read, the token asked for, the bands
set on Spot VM offers, and the overhead an answer charges for them, 1 and 8 instances."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from pricing.adapters.azure import AzureAdapter, AzureConfig, load_vm_map
from pricing.adapters.azure.eviction import (
    AZURE_WRITES,
    QUERY,
    TOKEN_SCOPE,
    Credentials,
    band_label,
    fetch_bands,
    fetch_token,
    parse_rows,
)
from pricing.adapters.kit import HttpConfig
from pricing.errors import AdapterError
from pricing.http import make_session
from pricing.offer import AWS_INTERRUPTION_BANDS, AZURE_EVICTION_BANDS, PricingModel
from service.cli import cli
from service.engine.interruption import AZURE_BAND_SHARE, LOST_HOURS_PER_INTERRUPTION
from service.jobs.refresh import azure_config, http_config
from service.settings import Settings
from tests.fakes.azure import (
    ACCESS_TOKEN,
    API_KEY,
    CLIENT_ID,
    TENANT,
    AzureFake,
    ResourceGraphFake,
    eviction_rows,
    item,
)

CREDENTIALS = Credentials(tenant_id=TENANT, client_id=CLIENT_ID, client_secret=API_KEY)
TIMEOUT = 5.0


def _session():  # type: ignore[no-untyped-def]
    return make_session(retries=0, backoff_seconds=0.01)


# -- the bands as Azure writes them --------------------------------------------------------


def test_each_band_azure_writes_has_its_own_label_never_an_aws_one() -> None:
    assert [band_label(w) for w in AZURE_WRITES] == list(AZURE_EVICTION_BANDS)
    assert set(AZURE_EVICTION_BANDS).isdisjoint(AWS_INTERRUPTION_BANDS)  # "5-10%" is AWS's
    # a "%" and spaces, as some clients keep them, read the same
    assert band_label("5-10%") == band_label(" 5 - 10 % ") == "5-10% per hour"
    assert band_label("20+%") == "20+% per hour"


def test_every_band_label_fits_the_stored_column() -> None:
    """The interruption column is VARCHAR(TEXT_LIMITS["interruption"]) on PostgreSQL: a longer
    label would be refused there, and only there."""
    from pricing.offer import INTERRUPTION_BANDS, TEXT_LIMITS

    assert max(map(len, INTERRUPTION_BANDS)) <= TEXT_LIMITS["interruption"]


@pytest.mark.parametrize("value", ["", "25-30", "0-5 per day", "high", None, 5, ["0-5"]])
def test_anything_else_is_no_band(value) -> None:  # type: ignore[no-untyped-def]
    assert band_label(value) is None


def test_the_sample_rows_give_four_bands_keyed_by_lower_case_region_and_size() -> None:
    bands, unread = parse_rows(eviction_rows())
    assert bands == {
        ("eastus", "standard_nc4as_t4_v3"): "0-5% per hour",
        ("westus3", "standard_nc4as_t4_v3"): "20+% per hour",
        ("eastus", "standard_ncc40ads_h100_v5"): "10-15% per hour",
        ("eastus", "standard_nc24ads_a100_v4"): "5-10% per hour",
    }
    assert unread == 1  # the empty band


def test_each_azure_band_costs_its_upper_bound_an_hour_times_the_lost_half_hour() -> None:
    from service.engine.interruption import band_overhead, overhead_basis

    expected = {"0-5% per hour": 0.025, "5-10% per hour": 0.05, "10-15% per hour": 0.075}
    expected |= {"15-20% per hour": 0.10, "20+% per hour": 0.5}  # "20+": every VM, an hour
    assert {band: band_overhead(band) for band in AZURE_EVICTION_BANDS} == pytest.approx(expected)
    assert "open-ended, read as every VM evicted" in overhead_basis("20+% per hour", 0.1)[1]
    # the same digits as an AWS band are a month's share read over a day: 24 times less
    azure_10_15 = band_overhead("10-15% per hour")
    assert band_overhead("5-10%") == pytest.approx(azure_10_15 * 0.11 / 0.15 / 24)


def test_rows_without_a_size_region_or_band_are_counted_not_read() -> None:
    rows = [
        {"skuName": "Standard_ND96isr_H100_v5", "location": "EastUS", "evictionRate": "15-20"},
        {"location": "eastus", "evictionRate": "0-5"},  # no size
        {"skuName": "standard_nc4as_t4_v3", "evictionRate": "0-5"},  # no region
        {"skuName": 7, "location": "eastus", "evictionRate": "0-5"},
        "standard_nc4as_t4_v3",
        None,
    ]
    bands, unread = parse_rows(rows)
    assert bands == {("eastus", "standard_nd96isr_h100_v5"): "15-20% per hour"}
    assert unread == 5


# -- the token and the query, against the fake ---------------------------------------------


@pytest.fixture
def graph(httpserver) -> ResourceGraphFake:  # type: ignore[no-untyped-def]
    fake = ResourceGraphFake()
    fake.login_url, fake.url = fake.install(httpserver)  # type: ignore[attr-defined]
    return fake


def test_the_token_is_asked_by_the_client_credentials_grant(graph) -> None:  # type: ignore[no-untyped-def]
    token = fetch_token(_session(), graph.login_url, CREDENTIALS, TIMEOUT)
    assert token == ACCESS_TOKEN
    assert graph.token_requests == [
        {
            "grant_type": "client_credentials",
            "client_id": CLIENT_ID,
            "client_secret": API_KEY,
            "scope": TOKEN_SCOPE,
        }
    ]


def test_a_refused_secret_names_the_settings_and_never_quotes_the_answer(graph) -> None:  # type: ignore[no-untyped-def]
    graph.refuse_secret = True
    with pytest.raises(AdapterError) as raised:
        fetch_token(_session(), graph.login_url, CREDENTIALS, TIMEOUT)
    message = str(raised.value)
    assert "HTTP 401: the client credentials were refused" in message
    assert "BREAKEVEN_AZURE_CLIENT_SECRET" in message
    assert API_KEY not in message and "AADSTS" not in message


def test_a_token_refused_with_400_keeps_the_description_out(graph, httpserver) -> None:  # type: ignore[no-untyped-def]
    from tests.fakes.azure import LOGIN_PATH

    httpserver.clear()
    answer = {"error": "invalid_request", "error_description": "AADSTS900144: secret=x"}
    httpserver.expect_request(LOGIN_PATH, method="POST").respond_with_json(answer, status=400)
    with pytest.raises(AdapterError) as raised:
        fetch_token(_session(), graph.login_url, CREDENTIALS, TIMEOUT)
    assert str(raised.value).endswith("HTTP 400: invalid_request")
    assert "AADSTS" not in str(raised.value)


@pytest.mark.parametrize("token", ["qzx\nInjected: 1", "qzx\u0100", "", "qzx b", 42, None])
def test_a_token_that_is_not_a_bearer_token_is_refused_unquoted(graph, httpserver, token) -> None:  # type: ignore[no-untyped-def]
    from tests.fakes.azure import LOGIN_PATH

    httpserver.clear()
    answer = {"token_type": "Bearer", "expires_in": 3599, "access_token": token}
    httpserver.expect_request(LOGIN_PATH, method="POST").respond_with_json(answer)
    with pytest.raises(AdapterError, match="no well-formed access_token") as raised:
        fetch_token(_session(), graph.login_url, CREDENTIALS, TIMEOUT)
    assert "qzx" not in str(raised.value)


@pytest.mark.parametrize("tenant", ["../../evil", "a/b", "tenant?x=1", "", "x" * 101])
def test_a_tenant_that_is_not_an_id_or_domain_is_refused_before_any_request(graph, tenant) -> None:  # type: ignore[no-untyped-def]
    bad = Credentials(tenant_id=tenant, client_id=CLIENT_ID, client_secret=API_KEY)
    with pytest.raises(AdapterError, match="BREAKEVEN_AZURE_TENANT_ID"):
        fetch_token(_session(), graph.login_url, bad, TIMEOUT)
    assert graph.token_requests == []


def test_the_query_pages_through_skip_tokens(graph) -> None:  # type: ignore[no-untyped-def]
    bands = fetch_bands(_session(), graph.login_url, graph.url, CREDENTIALS, TIMEOUT)
    assert len(bands) == 4
    assert len(graph.queries) == 3  # five rows, two a page
    assert all(q["query"] == QUERY for q in graph.queries)
    assert all(set(q) == {"query", "options"} for q in graph.queries)  # tenant scope
    assert all(q["options"]["resultFormat"] == "objectArray" for q in graph.queries)
    assert [q["options"].get("$skipToken") for q in graph.queries] == [None, "page-2", "page-4"]


def test_the_secret_never_appears_in_the_credentials_repr() -> None:
    assert API_KEY not in repr(CREDENTIALS)


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ({"fail_page": 2}, "HTTP 500: InternalServerError"),
        ({"loop": True}, "$skipToken repeats"),
        ({"bodies": {1: json.dumps({"totalRecords": 0, "rows": []})}}, "no 'data' list"),
        ({"bodies": {1: '{"data": [{"skuName": "st'}}, "not JSON"),
        (
            {"bodies": {1: json.dumps({"data": [], "resultTruncated": "true", "count": 0})}},
            "result truncated, no $skipToken",
        ),
    ],
)
def test_a_broken_answer_fails_the_read_of_the_bands(graph, fault, message) -> None:  # type: ignore[no-untyped-def]
    for name, value in fault.items():
        setattr(graph, name, value)
    with pytest.raises(AdapterError, match=message.replace("$", r"\$")):
        fetch_bands(_session(), graph.login_url, graph.url, CREDENTIALS, TIMEOUT)


# -- the adapter: prices always, bands where they can be read ------------------------------


@pytest.fixture
def prices(httpserver) -> AzureFake:  # type: ignore[no-untyped-def]
    fake = AzureFake(page_size=10)
    fake.items = [
        item("Standard_NC24ads_A100_v4", 3.673),
        item("Standard_NC24ads_A100_v4", 0.7346, suffix=" Spot"),
        item("Standard_NC4as_T4_v3", 0.079, suffix=" Spot"),
        # no Spot item there: the Low Priority VM is the westus3 spot offer, and takes no band
        item("Standard_NC4as_T4_v3", 0.12, region="westus3", suffix=" Low Priority"),
        item("Standard_ND96isr_H100_v5", 98.32),
        item("Standard_ND96isr_H100_v5", 49.16, suffix=" Spot"),  # no row in Resource Graph
    ]
    fake.url = fake.install(httpserver)  # type: ignore[attr-defined]
    return fake


def _adapter(prices: AzureFake, graph: ResourceGraphFake, **config) -> AzureAdapter:  # type: ignore[no-untyped-def]
    settings = {
        "prices_url": prices.url,  # type: ignore[attr-defined]
        "http": HttpConfig(retries=0, backoff_seconds=0.01),
        "credentials": CREDENTIALS,
        "login_url": graph.login_url,  # type: ignore[attr-defined]
        "resource_graph_url": graph.url,  # type: ignore[attr-defined]
    }
    return AzureAdapter(
        AzureConfig(**{**settings, **config}),
        http=_session(),
        clock=lambda: datetime(2026, 12, 5, 6, 0, tzinfo=UTC),
        vms=load_vm_map(),
    )


def _bands(batch) -> dict[tuple[str, str, str], str]:  # type: ignore[no-untyped-def]
    return {(o.product, o.region, o.pricing.value): o.interruption for o in batch.offers}


def test_spot_vm_offers_carry_their_band_and_nothing_else_does(prices, graph) -> None:  # type: ignore[no-untyped-def]
    batch = _adapter(prices, graph).fetch()
    assert _bands(batch) == {
        ("Standard_NC24ads_A100_v4", "eastus", "on_demand"): "",
        ("Standard_NC24ads_A100_v4", "eastus", "spot"): "5-10% per hour",
        ("Standard_NC4as_T4_v3", "eastus", "spot"): "0-5% per hour",
        ("Standard_NC4as_T4_v3", "westus3", "spot"): "",  # Low Priority, though "20+" there
        ("Standard_ND96isr_H100_v5", "eastus", "on_demand"): "",
        ("Standard_ND96isr_H100_v5", "eastus", "spot"): "",  # Azure gave no band
    }
    assert batch.source_version.startswith(
        "eviction bands: Resource Graph (4 sizes and regions); Azure Retail Prices API"
    )


def test_without_credentials_nothing_is_asked_and_the_record_says_so(prices, graph) -> None:  # type: ignore[no-untyped-def]
    batch = _adapter(prices, graph, credentials=None).fetch()
    assert set(_bands(batch).values()) == {""}
    assert graph.token_requests == [] and graph.queries == []
    assert batch.source_version.startswith("eviction bands: no credentials, spot_overhead applies")


@pytest.mark.parametrize(
    "fault",
    [
        {"refuse_secret": True},
        {"fail_page": 1},
        {"loop": True},
        {"bodies": {1: "[" * 100_000 + "]" * 100_000}},  # nested past the parser's depth
    ],
)
def test_a_failed_read_of_the_bands_keeps_every_price(prices, graph, fault, caplog) -> None:  # type: ignore[no-untyped-def]
    for name, value in fault.items():
        setattr(graph, name, value)
    with caplog.at_level(logging.WARNING, logger="pricing.adapters.azure"):
        batch = _adapter(prices, graph).fetch()
    assert len(batch.offers) == 6 and set(_bands(batch).values()) == {""}
    assert batch.source_version.startswith(
        "eviction bands: unavailable (see the log), spot_overhead applies"
    )
    assert any("eviction rates unavailable" in r.getMessage() for r in caplog.records)


def test_some_but_not_all_credentials_name_the_missing_ones(tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings = Settings(data_dir=tmp_path, azure_tenant_id=TENANT, azure_client_id=CLIENT_ID)
    config = azure_config(settings, http_config(settings))
    assert config.credentials is None
    assert config.credentials_missing == ("BREAKEVEN_AZURE_CLIENT_SECRET",)
    batch_note = AzureAdapter(config)._bands()[1]
    assert batch_note == (
        "credentials incomplete (BREAKEVEN_AZURE_CLIENT_SECRET unset), spot_overhead applies"
    )
    none = azure_config(Settings(data_dir=tmp_path), http_config(settings))
    assert (none.credentials, none.credentials_missing) == (None, ())
    full = Settings(
        data_dir=tmp_path,
        azure_tenant_id=TENANT,
        azure_client_id=CLIENT_ID,
        azure_client_secret=API_KEY,
    )
    assert azure_config(full, http_config(full)).credentials == CREDENTIALS


# -- the answer: the band read as Azure states it, 1 and 8 instances -----------------------


def test_an_azure_band_costs_its_hourly_chance_times_the_lost_work_n_times_on_n(  # type: ignore[no-untyped-def]
    prices, graph, settings, app
) -> None:
    """ND96isr_H100_v5 spot in eastus, Resource Graph band "5-10" set here: Azure reads it as
    up to a 10 % chance a VM is evicted within the next hour, so one VM loses 0.10 / 1 h x
    0.5 h = 0.05 of its work; 8 VMs (1,000 H100-hours by a deadline of 1.35 days: 64 cards)
    stop when any one is evicted, so they do 8 x 0.05 / (1 - 7 x 0.05) = 0.40 / 0.65 = 0.6154
    more work (interruption.slowdown; the first-order 8 x 0.05 = 0.40 would understate it).
    Work time scales as 1 + that over N e(N): wall(8) / wall(1) = (1.6154 / 1.05) / (8 x
    e(8))."""
    graph.rows = [
        *graph.rows,
        {"skuName": "standard_nd96isr_h100_v5", "location": "eastus", "evictionRate": "5-10"},
    ]
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_HTTP_RETRIES": "0",
        "BREAKEVEN_AZURE_PRICES_URL": prices.url,  # type: ignore[attr-defined]
        "BREAKEVEN_AZURE_LOGIN_URL": graph.login_url,  # type: ignore[attr-defined]
        "BREAKEVEN_AZURE_RESOURCE_GRAPH_URL": graph.url,  # type: ignore[attr-defined]
        "BREAKEVEN_AZURE_TENANT_ID": TENANT,
        "BREAKEVEN_AZURE_CLIENT_ID": CLIENT_ID,
        "BREAKEVEN_AZURE_CLIENT_SECRET": API_KEY,
    }
    result = CliRunner().invoke(cli, ["refresh", "--provider", "azure"], env=env)
    assert result.exit_code == 0, result.output
    assert API_KEY not in result.output and ACCESS_TOKEN not in result.output
    client = app.test_client()

    def nd96(query: str) -> dict:  # type: ignore[type-arg]
        answer = client.get(
            f"/breakeven?detail=full&gpu=h100-sxm&hours=1000&providers=azure&pricing=spot&top=100{query}"
        ).get_json()
        (line,) = [r for r in answer["rent"] if r["product"] == "Standard_ND96isr_H100_v5"]
        return line

    one, eight = nd96(""), nd96("&deadline_days=1.35")
    assert (one["instances"], eight["instances"]) == (1, 8)
    share = AZURE_BAND_SHARE["5-10% per hour"]
    assert (share, LOST_HOURS_PER_INTERRUPTION) == (0.10, 0.5)
    assert one["interruption"]["band"] == "5-10% per hour"
    assert one["interruption"]["overhead"] == pytest.approx(0.05)
    assert one["interruption"]["job_overhead"] == pytest.approx(0.05)
    assert eight["interruption"]["job_overhead"] == pytest.approx(0.40 / 0.65)
    assert "(1 + o) / (1 - 7 x o) = 1.615 times its work" in eight["interruption"]["basis"]
    assert "Azure eviction rate 5-10% per hour" in one["interruption"]["basis"]
    assert "within the next hour" in one["interruption"]["basis"]
    ratio = eight["wall_clock_hours"] / one["wall_clock_hours"]
    assert ratio == pytest.approx((1 + 0.40 / 0.65) / 1.05 / (8 * eight["cluster_efficiency"]))
    assert eight["total_usd"] == pytest.approx(8 * 49.16 * eight["wall_clock_hours"])
    providers = client.get("/providers").get_json()["providers"]
    (azure,) = [p for p in providers if p["name"] == "azure"]
    assert azure["current_run"]["source_version"].startswith(
        "eviction bands: Resource Graph (5 sizes and regions)"
    )
    spot = [o for o in client.get("/offers?provider=azure").get_json()["offers"]]
    assert {o["interruption"] for o in spot if o["pricing"] == PricingModel.SPOT.value} == {
        "",
        "0-5% per hour",
        "5-10% per hour",
    }
