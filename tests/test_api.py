"""The REST API through Flask's test client, on the bundled snapshot."""

from __future__ import annotations

import csv
import io

import pytest

from tests.helpers import source_of

PROBLEM = "application/problem+json"


def test_breakeven_answers_from_the_bundled_snapshot(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500")
    assert response.status_code == 200
    body = response.get_json()
    assert body["gpu"] == "rtx3090" and body["workload"] == "transformer"
    assert set(body) >= {
        "assumptions",
        "buy",
        "rent",
        "verdict",
        "savings_usd",
        "breakeven",
        "prices",
    }
    assert body["verdict"] in {"buy", "rent"}
    assumptions = body["assumptions"]
    for name in ("gpus", "memory", "pricing", "price", "watts", "electricity", "pue", "load",
                 "host_cost", "host_watts", "utilization", "resale", "depreciation",
                 "spot_overhead"):  # fmt: skip
        assert assumptions[name] is not None, name
    # the 3090 is no longer sold new: its newest used price (hardware/data/prices.csv)
    assert (assumptions["price"], assumptions["price_basis"]) == (650.0, "used")
    assert assumptions["memory"] == 24.0
    buy = body["buy"]
    assert buy["total_usd"] == pytest.approx(
        buy["purchase_usd"]
        + buy["host_usd"]
        + buy["network_usd"]
        + buy["energy_usd"]
        + buy["site_usd"]
        - buy["resale_usd"]
    )
    totals = [r["total_usd"] for r in body["rent"]]
    assert totals == sorted(totals) and 0 < len(totals) <= 10
    for row in body["rent"]:
        assert source_of(body, row) and row["price_as_of"] and row["wall_clock_hours"] > 0
    cheapest = body["rent"][0]["present_usd"]
    assert body["savings_usd"] == pytest.approx(abs(cheapest - buy["present_usd"]))
    assert body["prices"]["stale"] is True  # the snapshot's prices are months old


def test_parameters_change_the_answer(client) -> None:  # type: ignore[no-untyped-def]
    base = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()
    dear = client.get(
        "/breakeven?detail=full&gpu=rtx3090&hours=500&electricity=0.5&host_cost=0"
    ).get_json()
    assert dear["assumptions"]["electricity"] == 0.5
    assert dear["buy"]["energy_usd"] > base["buy"]["energy_usd"]
    assert dear["buy"]["host_usd"] == 0
    spot = client.get(
        "/breakeven?detail=full&gpu=3090&hours=500&pricing=spot&workload=cnn"
    ).get_json()
    assert {r["pricing"] for r in spot["rent"]} == {"spot"}
    aws = client.get("/breakeven?detail=full&gpu=rtx4090&hours=500&providers=aws&top=2").get_json()
    assert {r["provider"] for r in aws["rent"]} == {"aws"} and len(aws["rent"]) == 2


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("gpu=rtx3090", "hours"),
        ("gpu=rtx3090&hours=-5", "hours"),
        ("gpu=rtx3090&hours=0", "hours"),
        ("gpu=rtx3090&hours=nan", "hours"),
        ("gpu=rtx3090&hours=1e308", "hours"),
        ("gpu=rtx3090&hours=inf", "hours"),
        ("gpu=rtx3090&hours=lots", "hours"),
        ("gpu=rtx3090&hours=500&workload=gan", "workload"),
        ("gpu=rtx3090&hours=500&gpus=0", "gpus"),
        ("gpu=rtx3090&hours=500&gpus=2.5", "gpus"),
        ("gpu=rtx3090&hours=500&utilization=2", "utilization"),
        ("gpu=rtx3090&hours=500&pricing=cheap", "pricing"),
        ("gpu=rtx3090&hours=500&electricity=-1", "electricity"),
        ("gpu=rtx3090&hours=500&hour=3", "hour"),
        ("hours=500", "gpu"),
        ("gpu=&hours=500", "gpu"),
    ],
)
def test_bad_input_is_a_problem_document_naming_the_parameter(client, query, parameter) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/breakeven?detail=full&{query}")
    assert response.status_code == 400
    assert response.mimetype == PROBLEM
    body = response.get_json()
    assert body["status"] == 400 and body["type"].endswith("invalid-parameters")
    assert parameter in [e["parameter"] for e in body["errors"]]
    assert "Traceback" not in response.get_data(as_text=True)


def test_unknown_gpu_is_404_with_closest_ids(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/breakeven?detail=full&gpu=rtx3095&hours=500")
    assert response.status_code == 404 and response.mimetype == PROBLEM
    body = response.get_json()
    assert "rtx3090" in body["suggestions"]
    assert body["errors"][0]["parameter"] == "gpu"


def test_no_matching_rental_is_422(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500&providers=nobody")
    assert response.status_code == 422 and response.mimetype == PROBLEM
    assert response.get_json()["type"].endswith("no-matching-offers")


def test_card_without_price_asks_for_one(client) -> None:  # type: ignore[no-untyped-def]
    # the A10: no dated price of the card alone was found (hardware/data/README.md)
    response = client.get("/breakeven?detail=full&gpu=a10&hours=500")
    assert response.status_code == 422
    assert response.get_json()["errors"][0]["parameter"] == "price"
    assert client.get("/breakeven?detail=full&gpu=a10&hours=500&price=3000").status_code == 200


def test_gpus_lists_specs_prices_and_sourced_throughput(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/gpus").get_json()
    assert body["count"] == len(body["gpus"]) >= 38
    by_id = {g["id"]: g for g in body["gpus"]}
    assert (by_id["rtx3090"]["buy"]["purchase_usd"], by_id["rtx3090"]["buy"]["bases"]) == (
        650,
        ["used", "launch"],
    )
    assert by_id["a10"]["buy"] is None
    assert set(by_id["tpu-v6e"]["throughput"]) == {"cnn", "transformer", "rnn"}
    assert by_id["tpu-v6e"]["throughput"]["cnn"]["method"] == "adjusted"  # MLPerf-anchored


def test_gpu_by_alias_and_unknown(client) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/gpus/nvidia-tesla-t4").get_json()["id"] == "t4"
    response = client.get("/gpus/a100")
    assert response.status_code == 200 and response.get_json()["id"] == "a100-40gb"
    missing = client.get("/gpus/h300")
    assert missing.status_code == 404 and missing.mimetype == PROBLEM
    assert missing.get_json()["suggestions"]


def test_offers_filters_and_csv(client) -> None:  # type: ignore[no-untyped-def]
    everything = client.get("/offers").get_json()
    assert everything["count"] == len(everything["offers"]) > 30
    row = everything["offers"][0]
    for field in ("zone", "usd_per_accelerator_hour", "fetched_at", "price_as_of", "source"):
        assert field in row
    a100 = client.get("/offers?accelerator=A100&provider=aws").get_json()["offers"]
    assert a100 and {(o["accelerator"], o["provider"]) for o in a100} == {("a100-40gb", "aws")}
    spot = client.get("/offers?pricing=spot&region=us").get_json()["offers"]
    assert spot and all(o["pricing"] == "spot" and o["region"].startswith("us") for o in spot)
    response = client.get("/offers?provider=aws&format=csv")
    assert response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert len(rows) == len(client.get("/offers?provider=aws").get_json()["offers"])
    assert {r["provider"] for r in rows} == {"aws"}
    assert client.get("/offers?accelerator=nope").status_code == 404
    assert client.get("/offers?format=xml").status_code == 400


def test_providers_show_the_current_run_and_its_age(client) -> None:  # type: ignore[no-untyped-def]
    (bundled,) = client.get("/providers").get_json()["providers"]
    assert bundled["name"] == "bundled" and bundled["status"] == "ok"
    assert bundled["current_run"]["row_count"] > 30
    assert bundled["current_run"]["age_seconds"] >= 0
    assert bundled["last_error"] == ""


def test_health_and_openapi(client) -> None:  # type: ignore[no-untyped-def]
    health = client.get("/health").get_json()
    assert health["status"] == "ok" and health["offers"] > 30
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.1")
    for path in ("/breakeven", "/gpus", "/gpus/{gpu_id}", "/offers", "/providers", "/health"):
        assert path in spec["paths"], path
    params = {p["name"] for p in spec["paths"]["/breakeven"]["get"]["parameters"]}
    assert {"gpu", "hours", "workload", "spot_overhead"} <= params


def test_unknown_route_is_a_problem_document(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/nope")
    assert response.status_code == 404 and response.mimetype == PROBLEM
