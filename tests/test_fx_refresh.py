"""Fetching the ECB's rates (pricing/adapters/ecb.py, service/jobs/fx.py): a fake ECB on
127.0.0.1 serves the feed in its real format; what a fetch stores is what answers convert
with, and a fetch that fails stores nothing and leaves the rates before serving."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from click.testing import CliRunner

from pricing.adapters.ecb import MAX_BYTES, fetch_rates
from pricing.adapters.kit import HttpConfig
from pricing.errors import AdapterError
from pricing.fx import EuroRate
from service.cli.main import cli
from service.http.app import create_app
from service.jobs.fx import refresh_rates
from service.settings import Settings
from tests.helpers import ecb_feed

TODAY = datetime.now(UTC).date()
FAST = HttpConfig(timeout_seconds=5, retries=0)


def feed(day: date, usd: str = "1.0500", cny: str = "7.4550") -> str:
    return ecb_feed({day: {"USD": usd, "CNY": cny}})


@pytest.fixture
def ecb(httpserver, settings: Settings) -> Settings:  # type: ignore[no-untyped-def]
    """Settings pointed at the fake ECB, serving today's rates."""
    httpserver.expect_request("/eurofxref-hist-90d.xml").respond_with_data(
        feed(TODAY), content_type="text/xml"
    )
    return settings.model_copy(
        update={"ecb_rates_url": httpserver.url_for("/eurofxref-hist-90d.xml")}
    )


def test_a_fetch_is_what_answers_convert_with(ecb: Settings) -> None:
    """Today's 7.4550 / 1.0500 = 7.1000 CNY a dollar, today: not stale, age 0."""
    app = create_app(ecb)
    runtime = app.extensions["breakeven"]
    assert refresh_rates(runtime).written == 2
    body = (
        app.test_client()
        .get("/breakeven?detail=full&gpu=rtx4090&hours=500&currency=CNY")
        .get_json()
    )
    assert body["fx"]["as_of"] == TODAY.isoformat()
    assert body["fx"]["per_usd"] == pytest.approx(7.1)
    assert (body["fx"]["age_days"], body["fx"]["stale"]) == (0, False)
    # the bundled year is still there under it
    assert runtime.fx.rate("CNY", date(2025, 6, 2)).day == date(2025, 6, 2)
    app.extensions["breakeven"].store.dispose()


def test_a_day_fetched_again_replaces_its_figure(ecb: Settings) -> None:
    app = create_app(ecb)
    store = app.extensions["breakeven"].store
    day = TODAY - timedelta(days=1)
    store.write_rates([EuroRate(day, "USD", 1.0), EuroRate(day, "CNY", 7.0)], datetime.now(UTC))
    store.write_rates([EuroRate(day, "USD", 1.1), EuroRate(day, "CNY", 7.7)], datetime.now(UTC))
    stored = sorted((r.currency, r.per_eur) for r in store.rates() if r.day == day)
    assert stored == [("CNY", 7.7), ("USD", 1.1)]
    store.dispose()


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ("nope", 200, "not an ECB rate feed"),
        (feed(TODAY, usd="-1"), 200, "is not a rate"),
        (
            feed(TODAY)
            .replace('currency="USD"', 'currency="usd"')
            .replace('currency="CNY"', 'x="y"'),
            200,
            "no rates",
        ),
        ("", 503, "HTTP 503"),
        ("x" * (MAX_BYTES + 10), 200, "over 2,000,000 bytes"),
    ],
)
def test_a_broken_feed_fails_the_fetch_and_stores_nothing(
    httpserver, settings: Settings, body: str, status: int, says: str
) -> None:  # type: ignore[no-untyped-def]
    httpserver.expect_request("/feed.xml").respond_with_data(body, status=status)
    url = httpserver.url_for("/feed.xml")
    with pytest.raises(AdapterError, match=says):
        fetch_rates(url, FAST)
    app = create_app(settings.model_copy(update={"ecb_rates_url": url, "http_retries": 0}))
    runtime = app.extensions["breakeven"]
    with pytest.raises(AdapterError):
        refresh_rates(runtime)
    assert runtime.store.rates() == []
    assert runtime.fx.rate("CNY").day == date(2026, 4, 13)  # the bundled year serves on
    runtime.store.dispose()


def test_the_cli_fetches_and_says_what_it_stored(ecb: Settings, httpserver) -> None:  # type: ignore[no-untyped-def]
    env = {"BREAKEVEN_DATA_DIR": str(ecb.data_dir), "BREAKEVEN_ECB_RATES_URL": ecb.ecb_rates_url}
    result = CliRunner().invoke(cli, ["fx-refresh"], env=env)
    assert result.exit_code == 0, result.output
    assert f"2 stored; newest {TODAY}" in result.output
    env["BREAKEVEN_ECB_RATES_URL"] = httpserver.url_for("/missing.xml")
    failed = CliRunner().invoke(cli, ["fx-refresh"], env={**env, "BREAKEVEN_HTTP_RETRIES": "0"})
    assert failed.exit_code == 1 and "the rates stored before stay" in failed.output


# -- a fetched feed checked like prices (issue 58, the hostile run's N2) ---------------------


def _serve(httpserver, settings: Settings, days: dict[date, dict[str, str]]) -> Settings:  # type: ignore[no-untyped-def]
    httpserver.expect_request("/hostile.xml").respond_with_data(
        ecb_feed(days), content_type="text/xml"
    )
    url = httpserver.url_for("/hostile.xml")
    return settings.model_copy(update={"ecb_rates_url": url, "http_retries": 0})


@pytest.mark.parametrize(
    ("days", "says"),
    [
        # (a) figures that overflow a cross rate: 1e300 yen a euro, 1e-300 dollars a euro
        (
            {TODAY - timedelta(days=1): {"USD": "1e-300", "JPY": "1e300", "KRW": "1e-300"}},
            "outside",
        ),
        # (c) a day in 2099: it would be the newest rate for ever, never stale
        ({date(2099, 1, 1): {"USD": "1.1", "JPY": "170"}}, "in the future"),
        # the dollar itself 1,000 x off: every cross rate goes through it
        ({TODAY: {"USD": "1100", "JPY": "163"}}, "held back"),
    ],
)
def test_an_impossible_feed_is_refused_whole(httpserver, settings, days, says) -> None:  # type: ignore[no-untyped-def]
    app = create_app(_serve(httpserver, settings, days))
    runtime = app.extensions["breakeven"]
    before = runtime.fx.rate("JPY")
    with pytest.raises(AdapterError, match=says):
        refresh_rates(runtime)
    assert runtime.store.rates() == []
    answer = app.test_client().get("/breakeven?gpu=rtx3090&hours=500&currency=JPY").get_json()
    assert answer["fx"]["per_usd"] == pytest.approx(before.per_usd)
    assert answer["fx"]["as_of"] == before.day.isoformat()
    result = CliRunner().invoke(
        cli,
        ["fx-refresh"],
        env={
            "BREAKEVEN_DATA_DIR": str(settings.data_dir),
            "BREAKEVEN_ECB_RATES_URL": runtime.settings.ecb_rates_url,
            "BREAKEVEN_HTTP_RETRIES": "0",
        },
    )
    assert result.exit_code == 1 and says in result.output
    runtime.store.dispose()


def test_a_currency_that_jumped_is_held_back_and_said(httpserver, settings: Settings) -> None:  # type: ignore[no-untyped-def]
    """(b) the yen 1,000 x its rate: held back, said, and the answer keeps the rate before;
    the dollar and the yuan of the same day are stored, and name the fetched feed."""
    bundled = create_app(settings).extensions["breakeven"]
    yen, yuan = bundled.fx.rate("JPY"), bundled.fx.current().latest("CNY")
    bundled.store.dispose()
    usd = bundled.fx.current().latest("USD")
    jumped = {
        TODAY: {
            "USD": f"{usd:.4f}",
            "JPY": f"{yen.per_usd * usd * 1000:.2f}",
            "CNY": f"{yuan * 1.01:.4f}",
        }
    }
    app = create_app(_serve(httpserver, settings, jumped))
    runtime = app.extensions["breakeven"]
    fetched = refresh_rates(runtime)
    assert fetched.written == 2 and len(fetched.held) == 1 and "JPY" in fetched.held[0]
    client = app.test_client()
    kept = client.get("/breakeven?gpu=rtx3090&hours=500&currency=JPY").get_json()["fx"]
    assert kept["per_usd"] == pytest.approx(yen.per_usd) and kept["as_of"] == str(yen.day)
    new = client.get("/breakeven?gpu=rtx3090&hours=500&currency=CNY&detail=full").get_json()
    assert new["fx"]["as_of"] == TODAY.isoformat()
    assert "fetched from its feed" in new["fx"]["source"]  # was "(bundled copy)"
    old = client.get(
        "/breakeven?gpu=rtx3090&hours=500&currency=CNY&at=2025-06-02&detail=full"
    ).get_json()
    assert "bundled copy" in old["fx"]["source"]
    runtime.store.dispose()
