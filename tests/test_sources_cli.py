"""Azure and Lambda through `breakeven refresh`, configured only by settings, then used by
/breakeven."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from service.cli import cli
from tests.fakes.azure import AzureFake, item
from tests.fakes.lambda_cloud import API_KEY, LambdaFake, instance_type


def _refresh(settings, provider: str, **env: str | None):  # type: ignore[no-untyped-def]
    base = {"BREAKEVEN_DATA_DIR": str(settings.data_dir), "BREAKEVEN_HTTP_BACKOFF_SECONDS": "0.01"}
    return CliRunner().invoke(cli, ["refresh", "--provider", provider], env={**base, **env})


def test_azure_refresh_stores_linux_on_demand_and_spot_that_breakeven_uses(
    httpserver,
    settings,
    app,  # type: ignore[no-untyped-def]
) -> None:
    fake = AzureFake(
        items=[
            item("Standard_NC24ads_A100_v4", 3.673),
            item("Standard_NC24ads_A100_v4", 0.9, suffix=" Spot"),
            item(
                "Standard_NC24ads_A100_v4",
                5.1,
                product_name="Virtual Machines NCadsA100v4 Series Windows",
            ),
            item("Standard_NC24ads_A100_v4", 20000.0, kind="Reservation"),
            item("Standard_ND96asr_v4", 27.197),
        ],
        page_size=2,
    )
    url = fake.install(httpserver)
    result = _refresh(settings, "azure", BREAKEVEN_AZURE_PRICES_URL=url)
    assert result.exit_code == 0, result.output
    assert "azure: ok, 4 offers" in result.output  # the reservation is a 1-year term
    assert len(fake.requests) == 3  # 5 items, 2 a page
    client = app.test_client()
    offers = client.get("/offers?provider=azure").get_json()["offers"]
    assert sorted((o["product"], o["pricing"], o["usd_per_hour"]) for o in offers) == [
        ("Standard_NC24ads_A100_v4", "on_demand", 3.673),
        ("Standard_NC24ads_A100_v4", "reserved_1y", round(20000.0 / 8760, 6)),
        ("Standard_NC24ads_A100_v4", "spot", 0.9),
        ("Standard_ND96asr_v4", "on_demand", 27.197),
    ]
    nd = next(o for o in offers if o["product"] == "Standard_ND96asr_v4")
    assert nd["count"] == 8 and nd["usd_per_accelerator_hour"] == pytest.approx(27.197 / 8)
    answer = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&providers=azure").get_json()
    assert {r["provider"] for r in answer["rent"]} == {"azure"}
    assert answer["rent"][0]["product"] == "Standard_NC24ads_A100_v4"


def test_lambda_refresh_with_a_key_and_skipped_without(httpserver, settings, app) -> None:  # type: ignore[no-untyped-def]
    fake = LambdaFake(
        types={
            "gpu_1x_a10": instance_type("gpu_1x_a10", "1x A10 (24 GB PCIe)", "75", ["us-east-1"]),
            "gpu_8x_h100_sxm5": instance_type(
                "gpu_8x_h100_sxm5", "8x H100 (80 GB SXM5)", 2392, ["us-south-1"], gpus=8
            ),
        }
    )
    url = fake.install(httpserver)
    skipped = _refresh(settings, "lambda", BREAKEVEN_LAMBDA_URL=url)
    assert skipped.exit_code == 0 and "lambda: skipped" in skipped.output
    assert fake.requests == []

    result = _refresh(
        settings, "lambda", BREAKEVEN_LAMBDA_URL=url, BREAKEVEN_LAMBDA_API_KEY=API_KEY
    )
    assert result.exit_code == 0, result.output
    assert API_KEY not in result.output
    client = app.test_client()
    offers = {o["product"]: o for o in client.get("/offers?provider=lambda").get_json()["offers"]}
    assert (
        offers["gpu_1x_a10"]["usd_per_hour"] == 0.75
        and offers["gpu_1x_a10"]["accelerator"] == "a10"
    )
    h100 = offers["gpu_8x_h100_sxm5"]
    assert (h100["accelerator"], h100["count"], h100["region"]) == ("h100-sxm", 8, "us-south-1")
    assert h100["usd_per_accelerator_hour"] == pytest.approx(23.92 / 8)
    answer = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&providers=lambda").get_json()
    assert {r["product"] for r in answer["rent"]} == {"gpu_1x_a10", "gpu_8x_h100_sxm5"}
