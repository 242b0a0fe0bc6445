"""The six team questions of the data audit (shared/reviews/data-audit-2026-12-06.md, section
3), asked as a team types them: each is answered, and each headline says its price's date and
confidence, naming the cheapest dated rental in the same sentence where it rests on an
undated or low-confidence price (issue 55). Their rows were checked by hand against their
sources: docs/research/team-questions-2026-12-06/README.md."""

from __future__ import annotations

from typing import Any

import pytest

# (the audit's question, as typed now)
QUESTIONS = {
    "Q1 64 H100s for 3 years, steady, in a colo": ("gpu=h100-sxm&gpus=64&months=36&site=colo"),
    "Q1 the same, against a 3-year reservation": (
        "gpu=h100-sxm&gpus=64&months=36&site=colo&pricing=reserved_3y&rent_gpu=h100-sxm"
    ),
    "Q2 LoRA of Llama 3 8B on one RTX 4090 in China": (
        "gpu=rtx4090&model=llama-3-8b&tokens=1e9&method=lora&seq_len=2048&country=CN"
    ),
    "Q3 a 3090 owner asks about a 5090": "gpu=rtx5090&own=rtx3090&hours=2000",
    "Q4 70B full fine-tune in 14 days": (
        "gpu=h100-sxm&model=llama-3-70b&tokens=1e9&method=full&deadline_days=14"
    ),
    "Q5 A100 or TPU for a BERT-large job": (
        "gpu=a100-80gb&model=bert-large&tokens=4.26e10&platforms=all&providers=gcp"
    ),
    "Q6 8 A100s for 500 h, on demand": "gpu=a100-80gb&gpus=8&for_hours=500&market=cloud",
    "Q6 the same on spot": (
        "gpu=a100-80gb&gpus=8&for_hours=500&market=cloud&pricing=interruptible"
    ),
}


def _dated(line: dict[str, Any]) -> bool:
    """A price its source dates (an undated one reads "before <the day it was read>")."""
    return not line["price_as_of"].startswith("before")


def _sound(line: dict[str, Any]) -> bool:
    return _dated(line) and line["confidence"] != "low"


@pytest.mark.parametrize("question", QUESTIONS.values(), ids=QUESTIONS.keys())
def test_the_headline_says_its_price_date_and_confidence(client, question: str) -> None:  # type: ignore[no-untyped-def]
    compact = client.get(f"/breakeven?{question}")
    assert compact.status_code == 200, compact.get_json()
    head = compact.get_json()["rent"][0]
    assert head["price_as_of"] and head["confidence"] in ("high", "medium", "low")

    full = client.get(f"/breakeven?detail=full&{question}").get_json()
    rent, summary = full["rent"], full["summary"]
    first = rent[0]
    assert (first["price_as_of"], first["confidence"]) == (head["price_as_of"], head["confidence"])
    if _sound(first):
        assert f"Its price is of {first['price_as_of']}." in summary
        return
    if not _dated(first):
        assert f"Its price is undated ({first['price_as_of']})" in summary
    if first["confidence"] == "low":
        assert "of low confidence" in summary
    sound = [line for line in rent if _sound(line)]
    if not sound:
        assert f"as are those of the {len(rent)} listed rentals" in summary
        return
    cheapest = sound[0]  # the rent lines come cheapest first
    assert all(line["present_usd"] >= cheapest["present_usd"] for line in sound)
    assert (
        f"the cheapest rental with a dated price is {cheapest['name']} "
        f"({cheapest['pricing']}, {cheapest['price_as_of']})"
    ) in summary


def test_eight_a100s_are_bought_as_a_whole_system_at_a_dated_quote(client) -> None:  # type: ignore[no-untyped-def]
    """Q6's buy side: one 8-card A100 system at its dated listing, not eight cards in the
    CPU-only server host (the audit's item 29)."""
    buy = client.get(f"/breakeven?detail=full&{QUESTIONS['Q6 8 A100s for 500 h, on demand']}")
    buy = buy.get_json()["buy"]
    assert buy["system"] == "1 x 8-card a100-80gb system"
    assert buy["price_basis"] == "system"
    assert "as of 20" in buy["price_source"] and "estimate" not in buy["price_source"]


def test_aws_p5_reservations_are_listed_with_their_source_and_date(client) -> None:  # type: ignore[no-untyped-def]
    """Q1's committed side: AWS's three-year p5 terms, each with its source and the day it
    held (the audit found none; item 15)."""
    listed = client.get("/offers?pricing=reserved_3y&accelerator=h100-sxm&limit=1000")
    p5 = [o for o in listed.get_json()["offers"] if o["product"] == "p5.48xlarge"]
    assert {o["provider"] for o in p5} == {"aws"}
    assert {o["purchase_option"] for o in p5} >= {"no_upfront", "all_upfront"}
    assert len({o["region"] for o in p5}) > 5
    for offer in p5:
        assert offer["source"] and not offer["price_as_of"].startswith("before"), offer
