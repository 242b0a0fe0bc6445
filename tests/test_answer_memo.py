"""A question asked again on the same catalog is answered from memory, never a stale one."""

from __future__ import annotations

from pricing.offer import PricingModel
from pricing.store import utcnow
from tests.helpers import offer

QUESTION = "/breakeven?detail=full&gpu=rtx3090&hours=500&providers=custom,aws"


def test_a_repeated_question_is_remembered_and_answered_the_same(app, client) -> None:  # type: ignore[no-untyped-def]
    runtime = app.extensions["breakeven"]
    first = client.get(QUESTION).get_json()
    assert len(runtime.answers) == 1
    again = client.get(QUESTION).get_json()
    assert len(runtime.answers) == 1  # no second entry: the same question
    for answer in (first, again):
        answer["prices"].pop("age_seconds")
        for entry in answer["prices"]["providers"].values():
            entry.pop("age_seconds")
    assert again == first


def test_a_new_catalog_is_never_answered_from_memory(app, client) -> None:  # type: ignore[no-untyped-def]
    runtime = app.extensions["breakeven"]
    before = client.get(QUESTION).get_json()
    cheap = offer(
        provider="custom",
        product="negotiated 3090",
        accelerator="rtx3090",
        usd_per_hour=0.01,
        pricing=PricingModel.ON_DEMAND,
    )
    runtime.store.record_run("custom", [cheap], utcnow(), "test")
    after = client.get(QUESTION).get_json()
    assert before["rent"][0]["product"] != "negotiated 3090"
    assert after["rent"][0]["product"] == "negotiated 3090"
    assert after["rent"][0]["usd_per_hour"] == 0.01


def test_changing_an_answer_does_not_change_the_remembered_one(app) -> None:  # type: ignore[no-untyped-def]
    from service.documents.breakeven import breakeven_document
    from service.documents.queries import BreakevenQuery

    runtime = app.extensions["breakeven"]
    query = BreakevenQuery(gpu="rtx3090", hours=500)
    answer = breakeven_document(query, runtime)
    answer["verdict"] = "changed"
    answer["prices"]["stale"] = "changed"
    again = breakeven_document(query, runtime)
    assert again["verdict"] in ("buy", "rent")
    assert again["prices"]["stale"] in (True, False)


def test_a_remembered_answer_is_not_given_at_another_rate(app, client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The finished answer is remembered converted: a new day's rate is a new answer, its
    amounts at that rate, and the rate block says which day."""
    from dataclasses import replace

    runtime = app.extensions["breakeven"]
    asked = f"{QUESTION}&currency=EUR"
    before = client.get(asked).get_json()
    rate = runtime.fx.rate("EUR")
    newer = replace(rate, per_usd=rate.per_usd * 2, day=rate.day.replace(year=rate.day.year + 1))
    monkeypatch.setattr(type(runtime.fx), "rate", lambda self, currency, on=None: newer)
    after = client.get(asked).get_json()
    assert len(runtime.answers) == 2  # a second entry: the same question at another rate
    assert after["fx"]["as_of"] == newer.day.isoformat() != before["fx"]["as_of"]
    assert after["buy"]["total_usd"] == before["buy"]["total_usd"]
    assert after["buy"]["total_eur"] == 2 * before["buy"]["total_eur"]
    assert after["summary"] != before["summary"]  # its amounts are in euros
