"""/breakeven's compact answer (service/documents/brief.py): what a person reads at a
terminal, under 4 KB, each figure the full answer's to the cent (the issue-57 review: the
default answer was 32 KB, floats to 16 digits)."""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

import pytest

from pricing.tiers import TERM_NAMES, TIER_NAMES

CARD = "/breakeven?gpu=rtx3090&hours=500"
MONEY = re.compile(r"(^|_)(usd|eur)(_|$)")


def _floats(value: Any, key: str = "") -> list[tuple[str, float]]:
    """Every float of an answer with the key it sits under."""
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _floats(v, k)]
    if isinstance(value, list):
        return [pair for item in value for pair in _floats(item, key)]
    return [(key, value)] if isinstance(value, float) else []


def test_the_card_example_is_under_4_kb_and_holds_what_a_person_reads(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get(CARD)
    assert response.status_code == 200
    assert len(response.data) <= 4096, len(response.data)  # the README's "under 4 KB"
    answer = response.get_json()
    assert list(answer)[:2] == ["summary", "verdict"]
    assert answer["question"]["reading"] == "500 h of transformer work on 1 x rtx3090"
    assert len(answer["rent"]) == 3 and answer["listed"] == 10
    for line in answer["rent"]:
        assert {"name", "usd_per_hour", "price_as_of", "confidence", "wall_clock_hours"} <= set(
            line
        )
        assert answer["sources"][line["source_ref"]]
    shown = [tier["tier"] for tier in answer["tiers"]]
    # the hourly tiers, and the cheapest of the terms from a month to five years; the rest
    # named, for detail=full
    assert {"on_demand", "spot", "interruptible", "compute_units"} <= set(shown)
    assert len([name for name in shown if name in TERM_NAMES]) == 1
    assert sorted([*shown, *answer["other_terms"]]) == sorted(TIER_NAMES)
    assert set(answer["buy"]["parts"]) == {
        *("purchase_usd", "replacement_usd", "host_usd", "network_usd", "energy_usd"),
        *("site_usd", "resale_usd"),
    }
    assert set(answer["prices"]) == {"as_of", "age_seconds", "stale"}
    assert answer["fx"]["currency"] == "USD" and "detail=full" in answer["detail"]


@pytest.mark.parametrize(
    "question",
    [
        CARD,
        "/breakeven?gpu=a100-80gb&gpus=8&hours=500&currency=EUR",
        "/breakeven?gpu=h100-sxm&gpus=64&hours_per_month=46720&months=36&site=colo",
        "/breakeven?gpu=rtx5090&own=rtx3090&hours=2000",
    ],
)
def test_each_figure_is_the_full_answers_rounded(client, question: str) -> None:  # type: ignore[no-untyped-def]
    """The same answer, not another: every figure the compact one shows is the full one's,
    money to the cent and hours to a tenth; the rentals' sources resolve to the full texts."""
    compact = client.get(question).get_json()
    full = client.get(question + "&detail=full").get_json()
    assert compact["summary"] == full["summary"] and compact["verdict"] == full["verdict"]
    for line, whole in zip(compact["rent"], full["rent"][:3], strict=True):
        assert line["name"] == whole["name"]
        assert line["total_usd"] == round(whole["total_usd"], 2)
        assert line["present_usd"] == round(whole["present_usd"], 2)
        assert line["wall_clock_hours"] == round(whole["wall_clock_hours"], 1)
        assert compact["sources"][line["source_ref"]] == whole["source"]
    assert compact["buy"]["present_usd"] == round(full["buy"]["present_usd"], 2)
    parts = compact["buy"]["parts"]
    assert parts["energy_usd"] == round(full["buy"]["energy_usd"], 2)
    assert sum(v for k, v in parts.items() if k.endswith("_usd") and k != "resale_usd") - parts[
        "resale_usd"
    ] == pytest.approx(compact["buy"]["total_usd"], abs=0.05)
    wholes = {whole["tier"]: whole for whole in full["tiers"]}
    for tier in compact["tiers"]:
        whole = wholes[tier["tier"]]
        assert tier["verdict"] == whole["verdict"]
        if whole["best"] is not None:
            assert tier["name"] == whole["best"]["name"]
            assert tier["total_usd"] == round(whole["total_usd"], 2)
    # of the committed terms, the cheapest in today's money, and the headline's where that
    # is another; every other term with an offer is named
    terms = [w for w in full["tiers"] if w["tier"] in TERM_NAMES and w["best"] is not None]
    shown = {t["tier"] for t in compact["tiers"]} & TERM_NAMES
    cheapest = {min(terms, key=lambda w: w["present_usd"])["tier"]} if terms else set()
    assert cheapest <= shown <= cheapest | {full["compared_with"]["tier"]}
    assert set(compact["other_terms"]) == {w["tier"] for w in terms} - shown
    assert compact["payoff"] == full["payoff"]
    for key, value in _floats(compact):
        if "per_hour" in key or key == "per_usd":  # a rate, not an amount
            continue
        if MONEY.search(key):
            assert round(value, 2) == value, (key, value)
        elif key.endswith(("hours", "days")):
            assert round(value, 1) == value, (key, value)
    if "currency=EUR" in question:  # amounts in the currency asked too
        assert compact["buy"]["total_eur"] == round(full["buy"]["total_eur"], 2)
        assert compact["rent"][0]["total_eur"] == round(full["rent"][0]["total_eur"], 2)
    if "own=" in question:  # what the question asked by name comes too, to the cent
        paths = zip(compact["own"]["paths"], full["own"]["paths"], strict=True)
        for path, whole in paths:
            assert path["name"] == whole["name"]
            if whole["present_usd"] is not None:
                assert path["present_usd"] == round(whole["present_usd"], 2)
        assert compact["own"]["best"] == full["own"]["best"]


def test_detail_names_its_bad_value_and_full_gives_everything(client) -> None:  # type: ignore[no-untyped-def]
    bad = client.get(CARD + "&detail=everything")
    assert bad.status_code == 400 and bad.get_json()["errors"][0]["parameter"] == "detail"
    full = client.get(CARD + "&detail=full")
    assert {"assumptions", "curves", "work", "throughput"} <= set(full.get_json())
    assert len(full.data) > 8 * len(client.get(CARD).data)


def test_offers_compact_gives_each_source_once(client) -> None:  # type: ignore[no-untyped-def]
    """/offers?detail=compact: each source text once in `sources`, each offer naming its own
    by `source_ref`; the same offers, in fewer bytes. The default stays full."""
    page = "/offers?limit=500&sort=usd_per_accelerator_hour"
    full = client.get(page)
    compact = client.get(page + "&detail=compact")
    whole, brief = full.get_json(), compact.get_json()
    assert "sources" not in whole and all("source" in offer for offer in whole["offers"])
    assert len(brief["sources"]) == len(set(brief["sources"])) < len(brief["offers"])
    for offer, listed in zip(brief["offers"], whole["offers"], strict=True):
        assert "source" not in offer
        assert brief["sources"][offer["source_ref"]] == listed["source"]
        assert {k: v for k, v in offer.items() if k != "source_ref"} == {
            k: v for k, v in listed.items() if k != "source"
        }
    assert len(compact.data) < len(full.data)
    assert len(gzip.compress(compact.data)) < len(gzip.compress(full.data))
    csv = client.get(page + "&detail=compact&format=csv").get_data(as_text=True)
    assert "source" in csv.splitlines()[0]  # a spreadsheet's rows keep their own sources
    json.dumps(brief)


def test_an_offer_is_named_for_the_instances_each_answer_rents(client) -> None:  # type: ignore[no-untyped-def]
    """A rent line's offer part (its fields and name) is remembered per offer and cluster
    size: the same 8 x H100 offer listed alone for one question and as a cluster of them
    by a deadline for the next (five instances of it) is named each time for what that
    answer rents."""
    alone = client.get("/breakeven?gpu=h100-sxm&hours=100&detail=full").get_json()
    rushed = "/breakeven?gpu=h100-sxm&hours=20000&deadline_days=30&detail=full"
    cluster = client.get(rushed).get_json()
    for answer in (alone, cluster):
        for line in answer["rent"]:
            prefix = f"{line['instances']} instances of " if line["instances"] > 1 else ""
            assert line["name"].startswith(prefix + f"{line['count']} x "), line["name"]
    names = {line["product"]: line["name"] for line in alone["rent"]}
    shared = [line for line in cluster["rent"] if line["product"] in names]
    clustered = [line for line in shared if line["instances"] > 1]
    assert clustered  # an offer both answers list, rented alone and as a cluster
    assert all(line["name"] != names[line["product"]] for line in clustered)
