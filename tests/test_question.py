"""The question read once (service/documents/question.py): capacity as teams state it, the
rented card chosen, the owned card, and /rank answering what /breakeven answers."""

from __future__ import annotations

import math
from typing import Any

import pytest

from hardware import Workload
from service.engine.clusters import DEADLINE_TOLERANCE
from service.engine.hours import HOURS_PER_MONTH, HOURS_PER_YEAR

CARDS = ("rtx3090", "a100-80gb", "h100-sxm")
# Eighteen questions as people ask them: hours, described jobs, steady work, capacity, a
# country, a pricing tier, several cards, filters. Each is asked of /breakeven and /rank.
QUESTIONS = (
    "hours=500",
    "hours=50",
    "hours=5000",
    "hours=500&gpus=8",
    "for_hours=500&gpus=8",
    "for_hours=72",
    "hours_per_month=200&months=12",
    "gpus=8&months=12",
    "gpus=8&months=24&utilization=0.6",
    "model=llama-3-8b&tokens=1e9&method=lora",
    "model=resnet50&images=1281167&epochs=10",
    "ref_gpu=v100-16gb&ref_count=8&ref_hours=40",
    "hours=500&country=DE",
    "hours=500&pricing=any",
    "hours=2000&pricing=reserved_1y",
    "hours=500&deadline_days=3",
    "hours=500&providers=aws,gcp,azure",
    "hours=1000&rent_gpu=h100-sxm,a100-80gb",
)


def _headline(line: dict[str, Any]) -> tuple[object, ...]:
    return (
        line["provider"],
        line["product"],
        line["region"],
        line["pricing"],
        line["instances"],
    )


@pytest.mark.parametrize("gpu", CARDS)
def test_rank_names_the_rental_breakeven_names(client, gpu: str) -> None:  # type: ignore[no-untyped-def]
    """For the same question and card, /rank's cheapest rental is /breakeven's headline
    rental (or both refuse it alike): one reading of the question, one quote."""
    compared = 0
    for question in QUESTIONS:
        query = f"gpu={gpu}&{question}"
        breakeven = client.get(f"/breakeven?detail=full&{query}")
        ranked = client.get(f"/rank?{query}")
        assert ranked.status_code == breakeven.status_code, (query, ranked.get_json())
        if breakeven.status_code != 200:
            assert (
                ranked.get_json()["errors"][0]["parameter"]
                == (breakeven.get_json()["errors"][0]["parameter"])
            )
            continue
        b, r = breakeven.get_json(), ranked.get_json()
        assert r["rent"], query
        assert _headline(r["rent"][0]) == _headline(b["rent"][0]), query
        assert r["deadline"] == b["deadline"], query
        assert r["work"]["reading"] == b["work"]["reading"], query
        compared += 1
    assert compared >= 15  # the questions are answerable, not refused alike


def test_sixty_four_h100s_steady_for_three_years_in_a_colo(client, app) -> None:  # type: ignore[no-untyped-def]
    """Both phrasings are answered, both sides 64 cards for 36 months: 64 x 730 h x 36 =
    1,681,920 card-hours; the work is what 64 cards do at their scaling (8 nodes of 8 on
    InfiniBand), so the bought cards finish on the day."""
    hardware = app.extensions["breakeven"].hardware
    months = 36
    span = months * HOURS_PER_MONTH
    within = hardware.efficiency("h100-sxm", Workload.TRANSFORMER, 64)
    across = hardware.fabrics.efficiency("infiniband", 8)
    work = 64 * within * across * span
    answers = [
        client.get(
            f"/breakeven?detail=full&gpu=h100-sxm&gpus=64&{stated}&months=36&site=colo"
        ).get_json()
        for stated in ("hours_per_month=46720", "utilization=1")
    ]
    for body in answers:
        assert body["buy"]["gpus"] == 64
        assert body["buy"]["wall_clock_hours"] == pytest.approx(span)
        assert body["deadline"]["hours"] == pytest.approx(span)
        assert body["work"]["gpu_hours"] == pytest.approx(work)
        assert body["work"]["stated"] == "capacity"
        assert (
            "64 x h100-sxm steady for 36 months (26,280 h): 1,681,920 card-hours"
            in (body["summary"])
        )
        for line in body["rent"]:
            assert line["wall_clock_hours"] <= span * (1 + DEADLINE_TOLERANCE)
    assert answers[0]["work"] == answers[1]["work"]
    # the same card on 8-card nodes of the bought fabric (InfiniBand) is rented as 64 cards
    # for the same 36 months
    azure = client.get(
        "/breakeven?detail=full&gpu=h100-sxm&gpus=64&months=36&site=colo&rent_gpu=h100-sxm&providers=azure"
    ).get_json()
    line = azure["rent"][0]
    assert (line["accelerator"], line["fabric"]) == ("h100-sxm", "infiniband")
    assert line["count"] * line["instances"] == 64
    assert line["wall_clock_hours"] == pytest.approx(span)


def test_eight_a100s_for_500_hours(client, app) -> None:  # type: ignore[no-untyped-def]
    """8 x A100 80GB for 500 h: 4,000 card-hours; the bought cards take exactly the 500 h
    (utilization 1 over the span), the work is 8 x eta(8) x 500 h of one card's, and every
    rental finishes within the same 500 h."""
    hardware = app.extensions["breakeven"].hardware
    body = client.get("/breakeven?detail=full&gpu=a100-80gb&gpus=8&for_hours=500").get_json()
    eta = hardware.efficiency("a100-80gb", Workload.TRANSFORMER, 8)
    assert body["work"]["gpu_hours"] == pytest.approx(8 * eta * 500)
    assert body["buy"]["gpus"] == 8
    assert body["buy"]["wall_clock_hours"] == pytest.approx(500)
    assert body["deadline"]["hours"] == pytest.approx(500)
    assert body["assumptions"]["utilization"] == 1
    assert "8 x a100-80gb for 500 h: 4,000 card-hours" in body["summary"]
    for line in body["rent"]:
        assert line["wall_clock_hours"] <= 500 * (1 + DEADLINE_TOLERANCE)
    # the same card, eight to a node, is rented as eight cards for the same 500 h
    same = client.get(
        "/breakeven?detail=full&gpu=a100-80gb&gpus=8&for_hours=500&rent_gpu=a100-80gb"
    )
    line = same.get_json()["rent"][0]
    assert (line["count"], line["instances"]) == (8, 1)
    assert line["wall_clock_hours"] == pytest.approx(500)
    # gpus= with hours= is still work on one card, and the summary says so
    shared = client.get("/breakeven?detail=full&gpu=a100-80gb&gpus=8&hours=500").get_json()
    busy = 500 / (8 * eta)
    assert shared["buy"]["hours"] == pytest.approx(busy)
    assert (
        f"500 card-hours of transformer work: {busy:.1f} h on 8 x a100-80gb" in (shared["summary"])
    )


def test_a_hundred_thousand_hours_on_a_3090_buys_replacements_within_their_life(  # type: ignore[no-untyped-def]
    client, app
) -> None:
    """1e5 h of 3090 work at utilization 0.5: one card would run 22.8 years (5.7 lives), past
    the 15 years a question spans, so two are bought (the fewest that finish within it);
    they take 1e5 / (2 eta(2)) busy hours, 11.8 years of calendar: a 4-year life ends twice,
    so three sets of two cards, each sold at its life's end, the last when the work is done.
    The money is worked here from the answer's own parameters, not read back."""
    hardware = app.extensions["breakeven"].hardware
    body = client.get("/breakeven?detail=full&gpu=rtx3090&hours=1e5").get_json()
    buy, model, a = body["buy"], body["buy"]["model"], body["assumptions"]
    eta = hardware.efficiency("rtx3090", Workload.TRANSFORMER, 2)
    assert buy["gpus"] == 2
    assert "the fewest that finish within 15 years" in body["work"]["cards_bought"]
    calendar = 1e5 / (2 * eta) / a["utilization"]
    assert buy["wall_clock_hours"] == pytest.approx(calendar)
    assert 11 * HOURS_PER_YEAR < calendar < 12 * HOURS_PER_YEAR
    assert buy["replacements"] == 2  # bought at 4 and 8 years
    life = a["lifetime_years"] * HOURS_PER_YEAR / model["calendar_per_hour"]  # work per set
    assert model["life_hours"] == pytest.approx(life)
    cards = 2 * a["price"]
    assert buy["replacement_usd"] == pytest.approx(2 * cards)
    sold = [
        model["resale_start_usd"] * math.exp(-model["resale_decay_per_hour"] * hours)
        for hours in (life, life, 1e5 - 2 * life)
    ]
    assert buy["resale_usd"] == pytest.approx(sum(sold))
    cash = (
        model["capex_usd"]
        + 2 * cards
        + (model["energy_usd_per_hour"] + model["site_usd_per_hour"]) * 1e5
        - sum(sold)
    )
    assert buy["total_usd"] == pytest.approx(cash)
    # the rentals finish within the same 11.8 years, and the sentence follows the verdict
    assert body["deadline"]["hours"] == pytest.approx(calendar)
    side = "Buy:" if body["verdict"] == "buy" else "Rent:"
    assert body["summary"].startswith(side)
    assert body["payoff"] == f"outlasts-{body['verdict']}"
    assert "the work outlasts the cards' 4-year life: 3 sets of cards" in body["summary"]
    # the same work on one card, as asked, is refused naming gpus: 22.8 years is too long
    one = client.get("/breakeven?detail=full&gpu=rtx3090&hours=1e5&gpus=1")
    assert one.status_code == 422
    assert one.get_json()["errors"][0]["parameter"] == "gpus"
    assert "22.8 years" in one.get_json()["detail"]


@pytest.mark.parametrize("gpu", CARDS)
def test_the_verdict_and_its_sentence_never_disagree(client, gpu: str) -> None:  # type: ignore[no-untyped-def]
    """From minutes of work to fifteen years of it: the summary's side is the verdict, the
    pay-off clause never says buying does not pay where buying wins (or pays off before the
    work ends where renting wins), and no set of cards runs past its life."""
    for hours in (1, 30, 500, 3_000, 20_000, 60_000, 1e5, 3e5):
        body = client.get(f"/breakeven?detail=full&gpu={gpu}&hours={hours:g}").get_json()
        if "verdict" not in body:
            continue  # a refusal, as test_rank_names_the_rental_breakeven_names holds
        verdict, case, summary = body["verdict"], body["payoff"], body["summary"]
        assert summary.startswith("Buy:" if verdict == "buy" else "Rent:"), summary
        if verdict == "buy":
            assert case in ("after", "outlasts-buy", "committed", "this-work"), summary
            assert "never pays off" not in summary and "does not pay off" not in summary
        else:
            assert case in ("after", "not-within-life", "never", "outlasts-rent"), summary
        if case == "after":  # a crossing before the work ends is a buy, after it a rent
            assert (body["breakeven"]["hours"] <= hours) == (verdict == "buy"), summary
        sets = body["buy"]["replacements"] + 1
        life = body["assumptions"]["lifetime_years"] * HOURS_PER_YEAR
        assert body["buy"]["wall_clock_hours"] <= sets * life * (1 + 1e-9)
        assert body["buy"]["wall_clock_hours"] > (sets - 1) * life
        assert body["deadline"]["hours"] <= 15 * HOURS_PER_YEAR * (1 + DEADLINE_TOLERANCE)


def test_the_3090_owner_can_keep_his_card(client) -> None:  # type: ignore[no-untyped-def]
    """hours= states no memory: the owned 24 GB card can do it (keep is a path), and a 5090
    goes into the 3090's desktop (no host bought); a memory= the 3090 lacks closes the path."""
    body = client.get("/breakeven?detail=full&gpu=rtx5090&own=rtx3090&hours=2000").get_json()
    keep = {p["name"]: p for p in body["own"]["paths"]}["keep"]
    assert keep["present_usd"] is not None
    assert body["buy"]["host_usd"] == 0
    stated = client.get(
        "/breakeven?detail=full&gpu=rtx5090&own=rtx3090&hours=2000&memory=32"
    ).get_json()
    assert {p["name"]: p for p in stated["own"]["paths"]}["keep"]["present_usd"] is None
    # an H100 server is not a desktop card: its system is bought whole, host and all
    server = client.get("/breakeven?detail=full&gpu=h100-sxm&own=rtx3090&hours=2000").get_json()
    plain = client.get("/breakeven?detail=full&gpu=h100-sxm&hours=2000").get_json()
    assert server["buy"]["present_usd"] == pytest.approx(plain["buy"]["present_usd"])


def test_the_owners_summary_names_each_of_his_paths(client) -> None:  # type: ignore[no-untyped-def]
    """An owner asks whether to upgrade: the headline weighs buying the new card against
    renting, so the sentence also says what keeping, upgrading and renting each cost him,
    over how long, and which is cheapest, as `own` computes them (with a memory the old card
    lacks, keeping is no path, and the sentence says why)."""
    from service.documents.summary import figure

    body = client.get("/breakeven?gpu=rtx5090&own=rtx3090&hours=2000").get_json()
    paths = {p["name"]: p for p in body["own"]["paths"]}
    best = min(paths.values(), key=lambda p: p["present_usd"])
    assert body["own"]["best"] == best["name"]
    said = body["summary"]
    for name, words in (("keep", "keeping your rtx3090 costs"), ("upgrade", "to upgrade")):
        path = paths[name]
        assert f"{words} {path['present_usd']:,.2f} USD over" in said
        assert f"{figure(path['wall_clock_hours'])} h" in said
    assert f"to rent {paths['rent']['present_usd']:,.2f} USD" in said
    assert f"the cheapest path is to {best['name']}." in said
    stated = client.get("/breakeven?gpu=rtx5090&own=rtx3090&hours=2000&memory=32").get_json()
    assert "keeping your rtx3090 is no path: " in stated["summary"]


def test_owning_the_card_asked_about_is_keep_or_rent(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/breakeven?detail=full&gpu=rtx3090&own=rtx3090&hours=2000").get_json()
    paths = {p["name"]: p for p in body["own"]["paths"]}
    assert set(paths) == {"keep", "rent"}
    best = min(paths.values(), key=lambda p: p["present_usd"])
    assert body["own"]["best"] == best["name"]
    assert body["verdict"] == ("buy" if best["name"] == "keep" else "rent")
    opening = "Keep your rtx3090" if best["name"] == "keep" else "Rent:"
    assert body["summary"].startswith(opening)
    assert "sell the rtx3090 now and buy" not in str(body["own"])


def test_rent_gpu_keeps_every_tier_to_the_cards_named(client) -> None:  # type: ignore[no-untyped-def]
    """Three-year reserved H100s against bought H100s: every rent line and every tier's
    best is an H100 (any alias names it)."""
    body = client.get(
        "/breakeven?detail=full&gpu=h100-sxm&gpus=8&months=36&rent_gpu=h100&pricing=reserved_3y"
    ).get_json()
    lines = [*body["rent"], *(t["best"] for t in body["tiers"] if t["best"] is not None)]
    assert lines
    assert {line["accelerator"] for line in lines} == {"h100-sxm"}
    assert body["rent"][0]["pricing"] == "reserved_3y"
    # without it, H200s win the spot tiers of the same question
    everything = client.get(
        "/breakeven?detail=full&gpu=h100-sxm&gpus=8&months=36&pricing=reserved_3y"
    )
    bests = [t["best"] for t in everything.get_json()["tiers"] if t["best"] is not None]
    assert {line["accelerator"] for line in bests} != {"h100-sxm"}


@pytest.mark.parametrize(
    ("query", "parameter", "status"),
    [
        ("gpu=h100-sxm&gpus=8&hours=100&rent_gpu=nosuch", "rent_gpu", 404),
        ("gpu=h100-sxm&gpus=8&hours=100&rent_gpu=", "rent_gpu", 400),
        ("gpu=h100-sxm&gpus=8&hours=100&rent_gpu=,,", "rent_gpu", 400),
        ("gpu=rtx3090&for_hours=0", "for_hours", 400),
        ("gpu=rtx3090&for_hours=abc", "for_hours", 400),
        ("gpu=rtx3090&for_hours=1e9", "for_hours", 400),
        ("gpu=rtx3090&for_hours=10&hours=5", "hours", 400),
        ("gpu=rtx3090&for_hours=10&deadline_days=5", "deadline_days", 400),
        ("gpu=rtx3090&gpus=2&hours_per_month=2000&months=3", "hours_per_month", 400),
        # 200 card-hours a month on 4,000 cards: busy 7e-05 of the time, under the least
        # utilization the engine takes (a 500 before: the fuzzer's gpus=8760 found it)
        ("gpu=rtx3090&gpus=4000&hours_per_month=200&months=12", "hours_per_month", 400),
        ("gpu=rtx3090&gpus=2&hours_per_month=100&months=3&utilization=0.5", "utilization", 400),
        ("gpu=rtx3090&gpus=2&months=3&deadline_days=10", "deadline_days", 400),
        ("gpu=rtx3090&for_hours=0.001&utilization=0.001", "for_hours", 400),
        ("gpu=rtx3090&for_hours=10&model=llama-3-8b&tokens=1e9", "model", 400),
        ("gpu=rtx3090&gpus=2&months=3&ref_gpu=v100-16gb", "ref_gpu", 400),
    ],
)
@pytest.mark.parametrize("endpoint", ["breakeven", "rank"])
def test_bad_values_of_the_new_parameters_name_them(  # type: ignore[no-untyped-def]
    client, endpoint: str, query: str, parameter: str, status: int
) -> None:
    response = client.get(f"/{endpoint}?{query}")
    assert response.status_code == status, response.get_json()
    assert response.get_json()["errors"][0]["parameter"] == parameter


def test_rentals_are_named_as_their_providers_sell_them(client, app) -> None:  # type: ignore[no-untyped-def]
    """Every rent line, tier and /rank rental reads "count x card on provider, where" (a
    marketplace's host and its market said), the provider's own id kept in `product`; the
    summary names the headline rental so."""
    from pricing.offer import PROVIDER_NAMES

    registry = app.extensions["breakeven"].hardware.registry
    body = client.get("/breakeven?detail=full&gpu=rtx3090&hours=500").get_json()
    lines = [*body["rent"], *(t["best"] for t in body["tiers"] if t["best"])]
    for line in lines:
        card = registry[line["accelerator"]].name
        provider = PROVIDER_NAMES[line["provider"]]
        assert line["name"].startswith(f"{line['count']} x {card} on ") or line["name"].startswith(
            f"{line['instances']} instances of {line['count']} x {card} on "
        )
        assert provider in line["name"] and line["product"] not in line["name"]
        if line["market"] != "cloud":
            assert f"on a {provider} {line['market']} host" in line["name"]
    assert f"{body['rent'][0]['name']} ({body['rent'][0]['pricing']})" in body["summary"]
    ranked = client.get("/rank?gpu=rtx3090&hours=500").get_json()
    assert ranked["rent"][0]["name"] == body["rent"][0]["name"]
    assert ranked["rent"][0]["name"] in ranked["summary"]
    team = client.get("/breakeven?detail=full&gpu=h100-sxm&gpus=64&months=36&site=colo").get_json()
    head = team["rent"][0]
    if head["instances"] > 1:
        assert head["name"].startswith(f"{head['instances']} instances of {head['count']} x ")


def test_offer_names_read_where_and_whose_host() -> None:
    from hardware import load_hardware
    from service.documents.offers import offer_name

    registry = load_hardware().registry
    line = {"accelerator": "rtx5090", "count": 2, "provider": "vast", "region": "cn"}
    name = offer_name({**line, "market": "verified"}, registry)
    assert name == f"2 x {registry['rtx5090'].name} on a Vast.ai verified host in CN"
    aws = {**line, "provider": "aws", "region": "us-east-1", "market": "cloud", "instances": 3}
    assert offer_name(aws, registry).endswith("on AWS in us-east-1")
    assert offer_name(aws, registry).startswith("3 instances of 2 x ")
    pod = {**line, "provider": "runpod", "region": "global", "market": "community"}
    assert offer_name(pod, registry).endswith("on a RunPod community host")


def test_ranks_summary_says_how_many_cards_and_what_was_asked(client) -> None:  # type: ignore[no-untyped-def]
    """A team reading /rank's first line for 64 H100s steady for three years: the first card
    as the many the work buys of it, and the question restated as /breakeven restates it."""
    ranked = client.get("/rank?gpu=h100-sxm&gpus=64&months=36&site=colo").get_json()
    first = ranked["cards"][0]
    assert first["cards"] > 1
    assert ranked["summary"].startswith(f"{first['cards']} x {first['id']} ")
    assert ranked["summary"].endswith(f" The work: {ranked['work']['reading']}.")
    asked = client.get("/breakeven?detail=full&gpu=h100-sxm&gpus=64&months=36&site=colo").get_json()
    assert asked["work"]["reading"] == ranked["work"]["reading"]
