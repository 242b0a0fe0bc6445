"""Prices in their own currency (issue 35): an import or a bundled table states yuan, the
offer keeps the yuan and the ECB rate that made dollars of them, and a price in another
currency is never used unconverted.

The rate of a price's day is the ECB's reference rate of that day, or the newest published
before it (pricing/fx.py): 1 USD = 6.8322 CNY on 2026-04-13, the newest bundled day.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from pricing.adapters.custom import CUSTOM
from pricing.adapters.tabular import parse_offers_csv
from pricing.errors import ImportRejected
from pricing.fx import bundled_rates
from pricing.offer import Offer, PricingModel
from service.cli import cli
from service.http.app import create_app
from service.runtime import open_runtime
from service.settings import Settings

RATES = bundled_rates()
CNY = RATES.rate("CNY", None)  # 2026-04-13
HEADER = "product,region,accelerator,count,pricing,price_per_hour,currency,price_as_of\n"
DEFAULTS = {"provider": "custom", "source": "a test"}


def _parse(body: str, header: str = HEADER, rates=RATES.rate):  # type: ignore[no-untyped-def]
    return parse_offers_csv(header + body, _resolve, DEFAULTS, rates=rates)


def _resolve(name: str) -> str | None:
    return {"rtx4090": "rtx4090", "a800": "a800-80gb"}.get(name.lower())


def test_a_yuan_price_is_converted_at_the_rate_of_its_day_and_kept() -> None:
    (offer,) = _parse("box,cn,rtx4090,1,on_demand,1.88,CNY,2026-08-01\n")
    assert offer.usd_per_hour == pytest.approx(1.88 / CNY.per_usd, rel=1e-12)
    assert (offer.currency, offer.price_per_hour) == ("CNY", 1.88)
    assert offer.fx_per_usd == CNY.per_usd and offer.fx_day == "2026-04-13"
    # a day inside the bundled year takes that day's rate, not the newest
    (older,) = _parse("box,cn,rtx4090,1,on_demand,1.88,cny,2025-06-02\n")
    june = RATES.rate("CNY", date(2025, 6, 2))
    assert older.fx_day == june.day.isoformat() and june.day <= date(2025, 6, 2)
    assert older.usd_per_hour == pytest.approx(1.88 / june.per_usd, rel=1e-12)
    assert older.fx_per_usd != offer.fx_per_usd


def test_a_stated_rate_is_taken_as_stated_and_checked_against_the_dollars() -> None:
    header = HEADER.replace("\n", ",fx_per_usd,fx_day,usd_per_hour\n")
    (offer,) = _parse("box,cn,rtx4090,2,on_demand,3.76,CNY,2026-08,7.5,2026-08-03,\n", header)
    assert offer.usd_per_hour == pytest.approx(3.76 / 7.5) and offer.fx_day == "2026-08-03"
    with pytest.raises(ImportRejected) as caught:
        _parse("box,cn,rtx4090,2,on_demand,3.76,CNY,2026-08,7.5,2026-08-03,0.9\n", header)
    assert caught.value.errors[0].column == "usd_per_hour"


@pytest.mark.parametrize(
    ("row", "column", "words"),
    [
        ("box,cn,rtx4090,1,on_demand,1.88,XYZ,2026-08\n", "currency", "must be one of"),
        ("box,cn,rtx4090,1,on_demand,-1,CNY,2026-08\n", "price_per_hour", "above 0"),
        ("box,cn,rtx4090,1,on_demand,1e9,CNY,2026-08\n", "price_per_hour", "USD at"),
        ("box,cn,rtx4090,1,on_demand,1.88,USD,2026-08\n", "price_per_hour", "another currency"),
        ("box,cn,rtx4090,1,on_demand,1.88,CNY,2019-01-01\n", "currency", "no CNY rate"),
    ],
)
def test_a_price_that_cannot_be_converted_is_refused_naming_the_column(
    row: str, column: str, words: str
) -> None:
    with pytest.raises(ImportRejected) as caught:
        _parse(row)
    first = caught.value.errors[0]
    assert (first.line, first.column) == (2, column)
    assert words in caught.value.errors[0].message


def test_without_rates_a_foreign_price_must_state_its_rate() -> None:
    with pytest.raises(ImportRejected) as caught:
        _parse("box,cn,rtx4090,1,on_demand,1.88,CNY,2026-08\n", rates=None)
    assert caught.value.errors[0].column == "currency"
    assert "give usd_per_hour" in caught.value.errors[0].message


def test_an_unconverted_price_cannot_even_be_made() -> None:
    with pytest.raises(ValueError, match="without the rate"):
        Offer("autodl", "x", "cn", "rtx4090", 1, PricingModel.ON_DEMAND, 0.3, "2026-08", "s",
              currency="CNY")  # fmt: skip


def test_an_import_in_yuan_is_stored_with_its_yuan_and_served_with_them(
    tmp_path: Path, settings: Settings, client
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "quotes.csv"
    path.write_text(HEADER + "colo-4090,cn-east,RTX 4090,1,on_demand,2.10,CNY,2026-09-01\n")
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(cli, ["offers", "import", str(path)], env=env)
    assert result.exit_code == 0, result.output
    (stored,) = open_runtime(settings).store.current_offers(CUSTOM)
    offer = stored.offer
    assert (offer.currency, offer.price_per_hour, offer.fx_day) == ("CNY", 2.10, "2026-04-13")
    assert offer.usd_per_hour == pytest.approx(2.10 / CNY.per_usd, rel=1e-12)
    (row,) = client.get("/offers?provider=custom").get_json()["offers"]
    assert (row["currency"], row["price_per_hour"], row["fx_day"]) == ("CNY", 2.1, "2026-04-13")
    assert row["usd_per_hour"] == pytest.approx(2.10 / row["fx_per_usd"], rel=1e-12)


def test_bundled_chinese_prices_keep_their_yuan(client) -> None:  # type: ignore[no-untyped-def]
    """AutoDL, Alibaba Cloud and Tencent Cloud Studio rows on /offers: yuan as given, the
    dollars are the yuan over the rate; Alibaba's 2024 prices are older than the bundled
    rates and took the oldest."""
    for provider in ("autodl", "alibaba", "tencent"):
        rows = client.get(f"/offers?provider={provider}&limit=1000").get_json()["offers"]
        assert rows, provider
        for row in rows:
            assert row["currency"] == "CNY" and row["fx_per_usd"] > 6
            assert row["usd_per_hour"] == pytest.approx(
                row["price_per_hour"] / row["fx_per_usd"], rel=1e-9
            )
    alibaba = client.get("/offers?provider=alibaba&limit=1000").get_json()["offers"]
    assert {row["region"][:3] for row in alibaba} == {"cn-"}
    assert {row["fx_day"] for row in alibaba} == {RATES.earliest_day.isoformat()}
    assert all("days after the price's" in row["notes"] for row in alibaba)
    a100 = next(r for r in alibaba if r["product"] == "ecs.gn7e-c16g1.4xlarge")
    assert a100["price_per_hour"] == 34.742 and a100["accelerator"] == "a100-80gb"
    assert a100["confidence"] == "low"
    # dollar offers say so, and carry no conversion
    aws = client.get("/offers?provider=aws&limit=1").get_json()["offers"][0]
    assert (aws["currency"], aws["price_per_hour"], aws["fx_per_usd"]) == ("USD", None, None)


def test_alibaba_competes_only_from_china(client) -> None:  # type: ignore[no-untyped-def]
    url = "/breakeven?detail=full&gpu=a100-80gb&hours=100&pricing=on_demand"
    outside = client.get(url).get_json()
    assert "alibaba" not in {line["provider"] for line in outside["rent"]}
    named = client.get(url + "&providers=alibaba").get_json()
    assert {line["provider"] for line in named["rent"]} == {"alibaba"}
    # asked from China, its mainland regions (cn-...) compete unnamed; from elsewhere, not
    from_china = client.get(url + "&country=CN&region=cn-").get_json()
    assert {line["provider"] for line in from_china["rent"]} == {"alibaba"}
    assert client.get(url + "&region=cn-").status_code >= 400


def test_an_import_says_the_rate_it_converted_at_and_warns_when_it_is_old(
    tmp_path: Path, settings: Settings
) -> None:  # type: ignore[no-untyped-def]
    """Issue 58, N5: a price dated today converted at the bundled April rate, and the import
    said only "imported 1 offers". It says the rate's day and age, and warns past
    BREAKEVEN_FX_STALE_AFTER_DAYS."""
    from datetime import date

    path = tmp_path / "quotes.csv"
    today = date.today().isoformat()
    path.write_text(HEADER + f"c1,us-east-1,rtx3090,1,on_demand,2,EUR,{today}\n")
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(cli, ["offers", "import", str(path)], env=env)
    assert result.exit_code == 0, result.output
    (stored,) = open_runtime(settings).store.current_offers(CUSTOM)
    age = (date.today() - date.fromisoformat(stored.offer.fx_day)).days
    said = f"1 EUR price(s) converted at the rate of {stored.offer.fx_day} ({age} days old)"
    assert said in result.stderr
    stale = age > settings.fx_stale_after_days
    assert ("WARNING" in result.stderr) == stale and stale  # the bundled rate is months old
    # and every answer showing the offer says so: low confidence, and why, in its notes
    assert stored.offer.confidence == "low"
    assert f"converted from EUR at the rate of {stored.offer.fx_day}, {age} days before" in (
        stored.offer.notes
    )
    client = create_app(settings).test_client()
    (row,) = client.get("/offers?provider=custom").get_json()["offers"]
    assert row["confidence"] == "low" and "days before the price's day" in row["notes"]


def test_a_price_converted_at_its_own_days_rate_keeps_its_confidence(
    tmp_path: Path, settings: Settings
) -> None:  # type: ignore[no-untyped-def]
    """A dated price from the rate's own day (the bundled rates' newest) is not doubted."""
    runtime = open_runtime(settings)
    day = runtime.fx.current().latest_day
    path = tmp_path / "quotes.csv"
    path.write_text(HEADER + f"c1,us-east-1,rtx3090,1,on_demand,2,EUR,{day}\n")
    env = {"BREAKEVEN_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(cli, ["offers", "import", str(path)], env=env)
    assert result.exit_code == 0, result.output
    (stored,) = runtime.store.current_offers(CUSTOM)
    assert stored.offer.fx_day == str(day) and stored.offer.confidence == "user"
