"""The work a job states keeps the bounds of hours= once converted to hours (hostile review
2026-12-01, #5): each job parameter had bounds of its own, but their product did not, so
epochs=5e-324 made a job of 0 h (Colab lines of -0.5 h, a sensitivity that divided by zero)
and tokens=1 one of 4e-11 h. The problem names the parameter that sized the job."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.engine.work import MAX_HOURS, MIN_HOURS

TINY_VISION = "model=resnet50&images=1&epochs=5e-324"
FLOOR = f"under the {MIN_HOURS:g} h floor of hours="


@pytest.mark.parametrize(
    ("url", "parameter"),
    [
        # was a 500: ZeroDivisionError in sensitivity._swing
        (f"/breakeven?detail=full&gpu=rtx4090&{TINY_VISION}&sensitivity=all", "epochs"),
        # was a 200 with hours 0.0 and Colab lines of -0.5 h, total -0.3756 USD
        (f"/breakeven?detail=full&gpu=rtx4090&{TINY_VISION}", "epochs"),
        # was a 200 ranked by throughput_per_1000_usd, every tco_usd null
        (f"/rank?gpu=rtx4090&{TINY_VISION}", "epochs"),
        ("/breakeven?detail=full&gpu=rtx3090&param_count=1e6&tokens=1", "tokens"),  # was 3.7e-11 h
        ("/rank?param_count=1e6&tokens=1", "tokens"),
        ("/breakeven?detail=full&gpu=rtx3090&model=llama-3-8b&tokens=1", "tokens"),
        # ref_hours keeps the floor on the run done, but a faster card does it in less
        ("/breakeven?detail=full&gpu=h100-sxm&ref_gpu=t4&ref_count=1&ref_hours=0.001", "ref_hours"),
    ],
)
def test_a_job_under_the_hours_floor_is_a_400_naming_what_sized_it(
    client, url: str, parameter: str
) -> None:  # type: ignore[no-untyped-def]
    response = client.get(url)
    body = response.get_json()
    assert response.status_code == 400, body
    assert body["type"].endswith("invalid-parameters")
    assert body["errors"][0]["parameter"] == parameter
    assert FLOOR in body["detail"]


def test_the_problem_quotes_the_value_as_given_and_the_hours_it_made(client) -> None:  # type: ignore[no-untyped-def]
    detail = client.get(f"/breakeven?detail=full&gpu=rtx4090&{TINY_VISION}").get_json()["detail"]
    assert detail == f"epochs: epochs=5e-324 x images=1 makes the job 0 h on one rtx4090, {FLOOR}"
    detail = client.get("/breakeven?detail=full&gpu=rtx3090&param_count=1e6&tokens=1").get_json()[
        "detail"
    ]
    assert re.match(r"tokens: tokens=1 x param_count=1e\+06 makes the job \d\.\de-11 h ", detail)


def test_a_job_over_the_hours_bound_names_that_bound(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get(
        "/breakeven?detail=full&gpu=rtx3090&model=vit-l-16&images=1e12&epochs=10000"
    )
    assert response.status_code == 400
    body = response.get_json()
    assert body["errors"][0]["parameter"] == "epochs"
    assert f"over the {MAX_HOURS:,} h bound of hours=" in body["detail"]


def test_the_largest_published_run_is_well_inside_the_bound(client) -> None:  # type: ignore[no-untyped-def]
    """The bound is a real one: 100 x Llama 3.1 405B's 30.84M H100 hours. That run, stated
    in hours, is answered; ten times past the bound is not."""
    assert client.get("/breakeven?detail=full&gpu=h100-sxm&hours=30840000").status_code == 200
    response = client.get(f"/breakeven?detail=full&gpu=h100-sxm&hours={MAX_HOURS * 10:g}")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == "hours"


@pytest.mark.parametrize("command", ["quote", "rank"])
def test_the_cli_refuses_such_a_job_too(settings, command: str) -> None:  # type: ignore[no-untyped-def]
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    job = ["--gpu", "rtx4090", "--model", "resnet50", "--images", "1", "--epochs", "5e-324"]
    result = CliRunner().invoke(cli, [command, *job, "--json"], env=env)
    assert result.exit_code != 0
    assert FLOOR.replace("hours=", "--hours") in result.output  # the CLI's spelling
