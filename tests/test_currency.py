"""Answers in another currency (`currency=`): the ECB's reference rates (pricing/fx.py) and
the conversion at the edges (service/documents/money.py)."""

from __future__ import annotations

from datetime import date

import pytest

from pricing.fx import (
    CURRENCIES,
    ExchangeRates,
    FxError,
    bundled_rates,
    parse_history_csv,
    parse_xml,
)
from tests.helpers import ecb_feed

# The ECB's history file as it is: newest first, N/A, a trailing comma on every line.
HISTORY = """Date,USD,JPY,CNY,BGN,
2026-04-13,1.1684,186.51,7.9830,N/A,
2026-04-10,1.1700,186.00,7.9900,N/A,
2026-04-09,1.1650,185.10,N/A,N/A,
"""
XML = ecb_feed(
    {
        date(2026, 12, 3): {"USD": "1.0500", "CNY": "7.4550"},
        date(2026, 12, 2): {"USD": "1.0400", "CNY": "7.4880"},
    }
)


def test_a_dollar_in_yuan_is_the_two_euro_rates_divided() -> None:
    """2026-04-13: 1 EUR = 1.1684 USD = 7.9830 CNY, so 1 USD = 7.9830 / 1.1684 = 6.832420."""
    rates = ExchangeRates(parse_history_csv(HISTORY))
    rate = rates.rate("CNY")
    assert rate.day == date(2026, 4, 13)
    assert rate.per_usd == pytest.approx(6.832420, abs=1e-6)
    assert rates.rate("EUR").per_usd == pytest.approx(1 / 1.1684)
    # a weekend asks the Friday's; a day CNY has no rate asks the last day it had one
    assert rates.rate("CNY", date(2026, 4, 12)).day == date(2026, 4, 10)
    assert rates.rate("JPY", date(2026, 4, 9)).day == date(2026, 4, 9)
    with pytest.raises(FxError, match="on or before 2026-04-09"):
        rates.rate("CNY", date(2026, 4, 9))  # N/A that day, and none before
    with pytest.raises(FxError, match="known: CNY, EUR, JPY, USD"):
        rates.rate("BRL")
    assert "BGN" not in rates.currencies  # N/A since the euro: never a zero


def test_the_xml_feed_reads_the_same() -> None:
    rates = ExchangeRates(parse_xml(XML))
    assert rates.rate("CNY").per_usd == pytest.approx(7.4550 / 1.0500)
    assert rates.rate("CNY", date(2026, 12, 2)).per_usd == pytest.approx(7.4880 / 1.0400)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Day,USD\n2026-01-01,1.1\n",
        "Date,USD,\n2026-13-01,1.1,\n",
        "Date,USD,\n2026-01-01,-1,\n",
    ],
)
def test_a_broken_history_file_says_what_is_wrong(text: str) -> None:
    with pytest.raises(FxError):
        parse_history_csv(text)


def test_the_bundled_rates_span_a_year() -> None:
    rates = bundled_rates()
    assert set(rates.currencies) == set(CURRENCIES)  # what a question may ask
    assert {"USD", "CNY", "EUR", "JPY", "GBP", "INR"} <= set(rates.currencies)
    assert rates.latest_day == date(2026, 4, 13)
    assert 6.5 < rates.rate("CNY").per_usd < 7.5


def test_a_cny_answer_is_the_dollar_answer_at_the_rate(client, app) -> None:  # type: ignore[no-untyped-def]
    """Every amount named usd has a cny sibling equal to it times the rate; the fx block
    names the rate, its day and source, and says it is old (the bundled rates end
    2026-04-13, months before any test runs)."""
    per_usd = app.extensions["breakeven"].fx.rate("CNY").per_usd
    dollars = client.get("/breakeven?detail=full&gpu=rtx4090&hours=500").get_json()
    yuan = client.get("/breakeven?detail=full&gpu=rtx4090&hours=500&currency=CNY").get_json()
    fx = yuan["fx"]
    assert (fx["currency"], fx["as_of"], fx["per_usd"]) == ("CNY", "2026-04-13", per_usd)
    assert fx["stale"] is True and fx["age_days"] > 200 and "days old (STALE" in fx["note"]
    assert yuan["buy"]["total_usd"] == dollars["buy"]["total_usd"]  # dollars stay dollars
    assert yuan["buy"]["total_cny"] == pytest.approx(dollars["buy"]["total_usd"] * per_usd)
    cheapest = yuan["rent"][0]
    assert cheapest["total_cny"] == pytest.approx(cheapest["total_usd"] * per_usd)
    assert cheapest["cny_per_hour"] == pytest.approx(cheapest["usd_per_hour"] * per_usd)
    assert dollars["fx"]["currency"] == "USD" and "total_cny" not in dollars["buy"]


def test_amounts_stated_in_yuan_are_turned_into_dollars(client, app) -> None:  # type: ignore[no-untyped-def]
    """A 4090 at 12,999 CNY and power at 0.6 CNY/kWh: the same answer as the dollar
    question at 12,999 / rate and 0.6 / rate."""
    per_usd = app.extensions["breakeven"].fx.rate("CNY").per_usd
    yuan = client.get(
        "/breakeven?detail=full&gpu=rtx4090&hours=2000&price=12999&electricity=0.6&currency=CNY"
    ).get_json()
    dollars = client.get(
        f"/breakeven?detail=full&"
        f"gpu=rtx4090&hours=2000&price={12999 / per_usd!r}&electricity={0.6 / per_usd!r}"
    ).get_json()
    assert yuan["buy"]["total_usd"] == pytest.approx(dollars["buy"]["total_usd"])
    assert yuan["fx"]["inputs"]["price"] == {
        "given": 12999.0,
        "usd": pytest.approx(12999 / per_usd),
    }
    assert yuan["fx"]["inputs"]["electricity"]["usd"] == pytest.approx(0.6 / per_usd)


def test_rank_in_yuan_converts_the_budget_and_the_work_per_yuan(client, app) -> None:  # type: ignore[no-untyped-def]
    per_usd = app.extensions["breakeven"].fx.rate("CNY").per_usd
    body = client.get("/rank?hours=1000&budget=20000&currency=CNY").get_json()
    assert body["fx"]["inputs"]["budget"]["usd"] == pytest.approx(20000 / per_usd)
    card = body["cards"][0]
    assert card["reference_hours_per_cny"] == pytest.approx(
        card["reference_hours_per_usd"] / per_usd
    )
    assert card["purchase_cny"] == pytest.approx(card["purchase_usd"] * per_usd)


@pytest.mark.parametrize("value", ["US", "CNYY", "XYZ", "BRL", "brl"])
def test_a_bad_currency_is_a_400_naming_it(client, value: str) -> None:  # type: ignore[no-untyped-def]
    for path in ("/breakeven?detail=full&gpu=rtx4090&hours=500", "/rank?hours=100"):
        response = client.get(f"{path}&currency={value}")
        body = response.get_json()
        assert response.status_code == 400, body
        assert body["errors"][0]["parameter"] == "currency"


def test_an_amount_past_its_dollar_bound_once_converted_is_a_400(client) -> None:  # type: ignore[no-untyped-def]
    """90 million EUR of host passes the 100-million bound as written and not in dollars
    (the fuzz found it a 500)."""
    response = client.get("/rank?hours=100&host_cost=90000000&currency=EUR")
    body = response.get_json()
    assert response.status_code == 400, body
    assert body["errors"][0]["parameter"] == "host_cost"
    assert "past its bound in dollars (<= 100,000,000)" in body["detail"]


def test_a_server_priced_in_won_passes_and_a_dollar_price_past_the_bound_does_not(client) -> None:  # type: ignore[no-untyped-def]
    """The parser bounds amounts in any currency; the dollar bounds hold once converted:
    an 8-GPU server at 450 million won (about 310,000 USD) is asked, 2e8 USD is not."""
    won = client.get(
        "/breakeven?detail=full&gpu=h100-sxm&hours=20000&price=56250000&gpus=8&currency=KRW"
    ).get_json()
    assert won["fx"]["inputs"]["price"]["given"] == 56250000
    assert won["buy"]["purchase_usd"] == pytest.approx(won["fx"]["inputs"]["price"]["usd"] * 8)
    too_much = client.get("/breakeven?detail=full&gpu=h100-sxm&hours=500&price=2e8")
    assert too_much.status_code == 400
    assert too_much.get_json()["errors"][0]["parameter"] == "price"
    assert "2e+08 USD past its bound in dollars (<= 100,000,000)" in too_much.get_json()["detail"]


def test_a_currency_code_is_read_in_either_case_as_imports_read_it(client) -> None:  # type: ignore[no-untyped-def]
    """Issue 58, N6: an import took `eur`, the API refused it; one rule now, either case."""
    upper = client.get("/breakeven?gpu=rtx3090&hours=500&currency=EUR").get_json()
    lower = client.get("/breakeven?gpu=rtx3090&hours=500&currency=eur").get_json()
    assert lower["fx"]["currency"] == "EUR" and lower["buy"] == upper["buy"]
    assert client.get("/offers?limit=1&currency=jpy").get_json()["fx"]["currency"] == "JPY"
    bad = client.get("/breakeven?gpu=rtx3090&hours=500&currency=xyz")
    assert bad.status_code == 400 and bad.get_json()["errors"][0]["parameter"] == "currency"


def test_each_sentence_speaks_the_currency_it_uses(client) -> None:  # type: ignore[no-untyped-def]
    """Issue 58, N8: /rank's summary said "per USD" and "EUR per hour" in one sentence, and
    the fx note said the sentences stay in dollars beside a summary in euros."""
    ranked = client.get("/rank?hours=500&currency=EUR&top=1").get_json()
    assert "USD" not in ranked["summary"] and "per EUR of owning it" in ranked["summary"]
    per = ranked["cards"][0]["reference_hours_per_eur"]
    assert f"{per:.3g} h of rtx3090 work per EUR" in ranked["summary"]
    answer = client.get("/breakeven?gpu=rtx3090&hours=500&currency=EUR&detail=full").get_json()
    assert "EUR" in answer["summary"] and "USD" not in answer["summary"]
    assert "the summary is in EUR" in answer["fx"]["note"]
    assert "sentences stay in dollars" not in answer["fx"]["note"]
