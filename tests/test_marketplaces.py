"""GPU marketplaces: the same card for rent, offline and live, by market tier.

The bundled catalog rents RTX 3090s (RunPod, Vast.ai); `breakeven refresh` reads both
marketplaces through settings alone (endpoint and key), skips one without a key, and one
that fails takes neither the other nor its own last good prices down.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from service.cli import cli
from tests.fakes import runpod, vast

RTX3090 = "/breakeven?detail=full&gpu=rtx3090&hours=500"


# -- offline: the bundled catalog -----------------------------------------------------------


def test_offline_the_answer_names_a_rented_rtx3090(client) -> None:  # type: ignore[no-untyped-def]
    """snapshot.csv: RunPod 1x/2x/4x/8x RTX 3090 (0.43 USD/h a card, Secure Cloud) and Vast.ai
    1x (0.25, de) and 2x (0.45, ca and tw): 7 offers. The 2-card Vast offer is cheapest for
    the work: 500 h / (2 x 0.968 scaling) = 258.3 h x 0.45 = 116.2 USD."""
    answer = client.get(RTX3090).get_json()
    same = answer["same_card"]
    assert same["offers"] == 7
    cheapest = same["cheapest"]
    assert (cheapest["accelerator"], cheapest["provider"], cheapest["count"]) == (
        "rtx3090",
        "vast",
        2,
    )
    assert cheapest["market"] == "verified" and cheapest["usd_per_hour"] == 0.45
    assert cheapest["total_usd"] == pytest.approx(cheapest["wall_clock_hours"] * 0.45)
    assert cheapest["breakeven_hours"] is not None  # against a 3090 rental buying can pay off
    assert answer["assumptions"]["market"] == "all"


def test_the_market_filter_keeps_only_the_tiers_asked(client) -> None:  # type: ignore[no-untyped-def]
    cloud = client.get(f"{RTX3090}&market=cloud").get_json()
    assert cloud["same_card"] is None  # no cloud rents an RTX 3090
    assert {r["market"] for r in cloud["rent"]} == {"cloud"}
    assert cloud["assumptions"]["market"] == ["cloud"]
    marketplaces = client.get(f"{RTX3090}&market=secure,verified").get_json()
    assert {r["provider"] for r in marketplaces["rent"]} <= {"runpod", "vast"}
    secure = client.get("/offers?market=secure").get_json()
    assert secure["total"] > 0 and {o["provider"] for o in secure["offers"]} == {"runpod"}
    ranked = client.get("/rank?gpu=rtx3090&hours=500&market=verified").get_json()
    assert ranked["market"] == ["verified"] and {r["provider"] for r in ranked["rent"]} == {"vast"}


@pytest.mark.parametrize("value", ["nosuch", "", "cloud,", "Cloud", "cloud;secure"])
def test_an_unknown_market_is_a_400_naming_it(client, value: str) -> None:  # type: ignore[no-untyped-def]
    for path in (RTX3090 + "&", "/offers?", "/rank?"):
        response = client.get(f"{path}market={value}")
        assert response.status_code == 400, (path, value)
        assert response.get_json()["errors"][0]["parameter"] == "market"


# -- live: both marketplaces through settings alone -----------------------------------------


@pytest.fixture
def fakes(httpserver):  # type: ignore[no-untyped-def]
    pods = runpod.RunPodFake(types=runpod.sample()["data"]["gpuTypes"])
    hosts = vast.VastFake(offers=vast.sample()["offers"])
    return pods, hosts, pods.install(httpserver), hosts.install(httpserver)


def _env(settings, runpod_url: str, vast_url: str, keys: bool = True) -> dict[str, str | None]:  # type: ignore[no-untyped-def]
    return {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_REFRESH_PROVIDERS": "runpod,vast",
        "BREAKEVEN_RUNPOD_URL": runpod_url,
        "BREAKEVEN_VAST_URL": vast_url,
        "BREAKEVEN_RUNPOD_API_KEY": runpod.API_KEY if keys else None,
        "BREAKEVEN_VAST_API_KEY": vast.API_KEY if keys else None,
        "BREAKEVEN_HTTP_RETRIES": "1",
        "BREAKEVEN_HTTP_BACKOFF_SECONDS": "0.01",
    }


def test_refresh_reads_both_marketplaces_through_settings(fakes, settings, app) -> None:  # type: ignore[no-untyped-def]
    """The RunPod sample's RTX 3090: community 0.22, secure 0.43, community spot 0.11 a GPU;
    the Vast sample's verified Texas RTX 3090 at dph_total 0.1810."""
    _, _, runpod_url, vast_url = fakes
    result = CliRunner().invoke(cli, ["refresh"], env=_env(settings, runpod_url, vast_url))
    assert result.exit_code == 0, result.output
    assert "runpod: ok" in result.output and "vast: ok" in result.output
    client = app.test_client()
    offers = client.get("/offers?accelerator=rtx3090").get_json()["offers"]
    live = {(o["provider"], o["market"], o["pricing"], o["count"]): o for o in offers}
    assert live[("runpod", "community", "on_demand", 1)]["usd_per_hour"] == 0.22
    assert live[("runpod", "secure", "on_demand", 2)]["usd_per_hour"] == 0.86
    assert live[("runpod", "community", "spot", 1)]["usd_per_hour"] == 0.11
    texas = [o for o in offers if o["provider"] == "vast" and o["region"] == "us"]
    assert texas and all("bundled" not in o["source"] for o in offers)
    assert not [o for o in offers if "skypilot" in o["source"]]  # live rows replaced bundled
    same = client.get(RTX3090).get_json()["same_card"]["cheapest"]
    assert same["provider"] in {"runpod", "vast"} and same["price_as_of"] != "before 2026-11-30"


def test_without_keys_both_are_skipped_and_the_bundled_rows_serve(fakes, settings, app) -> None:  # type: ignore[no-untyped-def]
    pods, hosts, runpod_url, vast_url = fakes
    result = CliRunner().invoke(
        cli, ["refresh"], env=_env(settings, runpod_url, vast_url, keys=False)
    )
    assert result.exit_code == 0, result.output
    assert "runpod: skipped" in result.output and "vast: skipped" in result.output
    assert pods.requests == [] and hosts.requests == []
    offers = app.test_client().get("/offers?provider=runpod").get_json()["offers"]
    # the bundled rows: the catalog's, or a dated price from RunPod's own page
    bundled = ("skypilot-catalog", "runpod.io/pricing, checked 2026-09-25")
    assert offers and all(any(b in o["source"] for b in bundled) for o in offers)


def test_a_failing_marketplace_keeps_its_last_good_prices_and_spares_the_other(
    fakes, settings, app
) -> None:  # type: ignore[no-untyped-def]
    pods, hosts, runpod_url, vast_url = fakes
    env = _env(settings, runpod_url, vast_url)
    assert CliRunner().invoke(cli, ["refresh"], env=env).exit_code == 0
    client = app.test_client()
    good = client.get("/offers?provider=runpod").get_json()["offers"]
    pods.faults.status = 500
    hosts.offers = [o for o in hosts.offers if o.get("gpu_name") != "RTX 3090"]
    second = CliRunner().invoke(cli, ["refresh"], env=env | {"BREAKEVEN_MAX_DROP_SHARE": "1"})
    assert second.exit_code == 1
    assert "runpod: failed" in second.output and "vast: ok" in second.output
    assert client.get("/offers?provider=runpod").get_json()["offers"] == good
    vast_3090 = client.get("/offers?provider=vast&accelerator=rtx3090").get_json()
    assert vast_3090["total"] == 0  # vast's new run, without the 3090s, is current
    providers = {p["name"]: p for p in client.get("/providers").get_json()["providers"]}
    assert (
        providers["runpod"]["status"] == "failed"
        and "HTTP 500" in providers["runpod"]["last_error"]
    )
    assert providers["vast"]["status"] == "ok"
