"""One broken provider never touches another's run or the last good prices."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pricing.adapters.gcp.skus import COMPUTE_ENGINE
from service.cli import cli
from tests.fakes.aws import AwsFake, bulk_row, offer_file
from tests.fakes.gcp import API_KEY, GcpFake, accelerator_zone, sku

US = ["us-central1"]


@pytest.fixture
def fakes(httpserver):  # type: ignore[no-untyped-def]
    aws = AwsFake(offer_files={"us-east-1": offer_file([bulk_row("p5.48xlarge", 55.04)])})
    gcp = GcpFake(
        skus={
            COMPUTE_ENGINE.split("/")[1]: [
                sku("Nvidia L4 GPU running in Americas", 0.56004, US),
                sku("G2 Instance Core running in Americas", 0.02, US, group="CPU"),
                sku("G2 Instance Ram running in Americas", 0.003, US, group="RAM"),
            ]
        },
        zones={"zones/us-central1-a": accelerator_zone({"nvidia-l4": 8})},
    )
    base = aws.install(httpserver)
    gcp.install(httpserver)
    return aws, gcp, base


def _env(settings, base: str) -> dict[str, str | None]:  # type: ignore[no-untyped-def]
    return {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        "BREAKEVEN_REFRESH_PROVIDERS": "aws,gcp",
        "BREAKEVEN_AWS_REGIONS": "us-east-1",
        "BREAKEVEN_AWS_BULK_URL": base,
        "BREAKEVEN_GCP_BILLING_ENDPOINT": base,
        "BREAKEVEN_GCP_COMPUTE_ENDPOINT": base,
        "BREAKEVEN_GCP_PROJECT": "p",
        "BREAKEVEN_GCP_API_KEY": API_KEY,
        "BREAKEVEN_HTTP_RETRIES": "1",
        "BREAKEVEN_HTTP_BACKOFF_SECONDS": "0.01",
    }


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        ("500", "HTTP 500"),
        ("malformed", "not an AmazonEC2 offer file"),
        ("zero", "refused: would drop 1 of 1"),  # the parser drops $0 rows; the run is empty
    ],
)
def test_a_broken_provider_leaves_the_others_and_its_last_good_run(
    fakes,
    settings,
    app,
    fault: str,
    error: str,  # type: ignore[no-untyped-def]
) -> None:
    aws, gcp, base = fakes
    env = _env(settings, base)
    first = CliRunner().invoke(cli, ["refresh"], env=env)
    assert first.exit_code == 0, first.output
    client = app.test_client()
    good_aws = client.get("/offers?provider=aws").get_json()["offers"]
    assert [o["product"] for o in good_aws] == ["p5.48xlarge"]

    if fault == "500":
        aws.bulk_status = 500
    elif fault == "malformed":
        aws.offer_files["us-east-1"] = b"<html><body>Service Unavailable</body></html>"
    else:
        aws.offer_files["us-east-1"] = offer_file([bulk_row("p5.48xlarge", 0.0)])
    gcp.skus[COMPUTE_ENGINE.split("/")[1]][0] = sku("Nvidia L4 GPU running in Americas", 0.5, US)

    second = CliRunner().invoke(cli, ["refresh"], env=env)
    assert second.exit_code == 1
    assert "aws: failed" in second.output and "gcp: ok" in second.output

    assert client.get("/offers?provider=aws").get_json()["offers"] == good_aws
    gcp_offers = client.get("/offers?provider=gcp").get_json()["offers"]
    assert gcp_offers and all("0.5000" in o["notes"] for o in gcp_offers)  # the new run
    providers = {p["name"]: p for p in client.get("/providers").get_json()["providers"]}
    assert providers["aws"]["status"] == "failed" and error in providers["aws"]["last_error"]
    assert providers["aws"]["current_run"]["id"] and providers["aws"]["age_seconds"] >= 0
    assert providers["gcp"]["status"] == "ok" and providers["gcp"]["last_error"] == ""
