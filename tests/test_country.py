"""Where the asker is (`country=`): the tariff bought cards pay, the currency answers
default to, and China's clouds (service/documents/place.py, hardware/tariffs.py)."""

from __future__ import annotations

import pytest

from hardware.tariffs import COUNTRIES, Tariff, Tariffs

STUDENT = "/breakeven?detail=full&gpu=rtx4090&model=llama-3-8b&tokens=2e9&method=lora&seq_len=2048"


def test_a_sector_without_a_figure_falls_back_and_says_so() -> None:
    home = Tariff("XX", "x", "residential", 0.5, "EUR", "2025", "tariff", "toy")
    office = Tariff("XX", "x", "commercial", 0.3, "EUR", "2025", "tariff", "toy")
    tariffs = Tariffs([home, office])
    assert tariffs.for_site("XX", "home") == (home, False)
    assert tariffs.for_site("XX", "colo") == (office, True)  # no industrial: commercial
    assert tariffs.for_site("US", "home") is None  # the sites' own defaults
    assert tariffs.currency("XX") == "EUR" and tariffs.currency("US") == "USD"
    with pytest.raises(ValueError, match="two residential"):
        Tariffs([home, home])
    with pytest.raises(ValueError, match="two currencies"):
        Tariffs([home, Tariff("XX", "y", "industrial", 30, "JPY", "2025", "tariff", "toy")])


def test_the_tariffs_file_covers_the_countries_a_question_may_name(hardware) -> None:  # type: ignore[no-untyped-def]
    assert set(hardware.tariffs.countries) == set(COUNTRIES)


def test_the_students_question_in_yuan_with_beijings_tariff(client, app) -> None:  # type: ignore[no-untyped-def]
    """country=CN: the answer is in yuan at the ECB's rate, the cards pay Beijing's household
    tariff (0.4883 CNY/kWh) turned into dollars at it, and AutoDL competes."""
    rates = app.extensions["breakeven"].fx
    per_usd = rates.rate("CNY").per_usd
    body = client.get(STUDENT + "&country=CN").get_json()
    assert body["fx"]["currency"] == "CNY" and body["fx"]["per_usd"] == per_usd
    power = body["tariff"]
    assert (power["region"], power["sector"], power["per_kwh"]) == (
        "Beijing",
        "residential",
        0.4883,
    )
    assert power["usd_per_kwh"] == pytest.approx(0.4883 / per_usd)
    assert body["assumptions"]["electricity"] == pytest.approx(0.4883 / per_usd)
    assert body["rent"][0]["provider"] == "autodl"
    assert body["buy"]["total_cny"] == pytest.approx(body["buy"]["total_usd"] * per_usd)


def test_chinas_clouds_are_left_out_unless_asked_from_china_or_named(client) -> None:  # type: ignore[no-untyped-def]
    url = "/breakeven?detail=full&gpu=rtx4090&hours=500&pricing=any&top=100"
    assert "autodl" not in {line["provider"] for line in client.get(url).get_json()["rent"]}
    named = client.get(url + "&providers=autodl").get_json()["rent"]
    assert named and {line["provider"] for line in named} == {"autodl"}
    assert "autodl" in {
        line["provider"] for line in client.get(url + "&country=CN").get_json()["rent"]
    }
    ranked = client.get("/rank?hours=100&top=100").get_json()["rent"]
    assert "autodl" not in {line["provider"] for line in ranked}


def test_an_office_in_germany_pays_germanys_non_household_tariff(client, app) -> None:  # type: ignore[no-untyped-def]
    """Eurostat's band IC, excluding VAT: Germany 2024-S2, EUR 0.2359 per kWh (no 2025
    German figure was found; the EU27 average stood in before)."""
    per_usd = app.extensions["breakeven"].fx.rate("EUR").per_usd
    body = client.get(
        "/breakeven?detail=full&gpu=rtx4090&hours=500&country=DE&site=office"
    ).get_json()
    assert body["fx"]["currency"] == "EUR"
    assert (body["tariff"]["sector"], body["tariff"]["region"]) == ("commercial", "national")
    assert body["tariff"]["usd_per_kwh"] == pytest.approx(0.2359 / per_usd)
    colo = client.get(
        "/breakeven?detail=full&gpu=rtx4090&hours=500&country=DE&site=colo"
    ).get_json()
    assert "no industrial figure was found" in colo["tariff"]["note"]


def test_a_stated_tariff_wins_and_is_in_the_countrys_currency(client, app) -> None:  # type: ignore[no-untyped-def]
    per_usd = app.extensions["breakeven"].fx.rate("CNY").per_usd
    body = client.get(STUDENT + "&country=CN&electricity=0.6").get_json()
    assert body["tariff"] is None
    assert body["assumptions"]["electricity"] == pytest.approx(0.6 / per_usd)
    dollars = client.get(STUDENT + "&country=CN&electricity=0.08&currency=USD").get_json()
    assert dollars["assumptions"]["electricity"] == pytest.approx(0.08)
    assert dollars["fx"]["currency"] == "USD"


def test_the_united_states_changes_nothing(client) -> None:  # type: ignore[no-untyped-def]
    plain = client.get("/breakeven?detail=full&gpu=rtx4090&hours=500").get_json()
    us = client.get("/breakeven?detail=full&gpu=rtx4090&hours=500&country=US").get_json()
    assert us["tariff"] is None and us["fx"]["currency"] == "USD"
    assert us["buy"] == plain["buy"] and us["rent"] == plain["rent"]


@pytest.mark.parametrize("value", ["cn", "FR", "CHN", "1"])
def test_a_bad_country_is_a_400_naming_it(client, value: str) -> None:  # type: ignore[no-untyped-def]
    for path in ("/breakeven?detail=full&gpu=rtx4090&hours=500", "/rank?hours=100"):
        response = client.get(f"{path}&country={value}")
        assert response.status_code == 400, response.get_json()
        assert response.get_json()["errors"][0]["parameter"] == "country"


def test_the_readmes_example_in_both_languages_is_what_the_service_answers(client) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme[readme.index("## In your currency and country") :]
    text = " ".join(section[: section.index("\n## ", 10)].split())
    body = client.get(STUDENT + "&country=CN").get_json()
    rent, buy, fx = body["rent"][0], body["buy"], body["fx"]
    english = [
        f"rate of {fx['as_of']} (1 USD = {fx['per_usd']:.4f} CNY)",
        f"the job is {body['work']['gpu_hours']:.1f} h on one RTX 4090",
        f"needs {body['work']['memory_gb']:.1f} GB",
        f"household tariff, {body['tariff']['per_kwh']:g} CNY/kWh",
        f"a new RTX 4090 ({buy['purchase_cny']:,.0f} CNY)",
        f"costs {buy['total_cny']:,.0f} CNY for the job",
        f"does it in {rent['wall_clock_hours']:.1f} h for {rent['total_cny']:,.0f} CNY",
        f"only after {body['breakeven']['hours']:,.0f} h of such work",
    ]
    chinese = [
        f"1 美元 = {fx['per_usd']:.4f} 元",
        f"要 {body['work']['gpu_hours']:.1f} 小时",
        f"第一档 {body['tariff']['per_kwh']:g} 元/千瓦时",
        f"RTX 4090\uff08{buy['purchase_cny']:,.0f} 元\uff09",  # full-width brackets
        f"这项工作花 {buy['total_cny']:,.0f} 元",
        f"共 {rent['total_cny']:,.0f} 元",
        f"要做满 {body['breakeven']['hours']:,.0f} 小时",
    ]
    assert [q for q in english + chinese if q not in text] == []
    assert rent["provider"] == "autodl" and body["verdict"] == "rent"


# -- a US state (EIA's averages by state and sector) ---------------------------------------


def test_a_state_sets_its_own_tariff_for_the_sites_sector(client) -> None:  # type: ignore[no-untyped-def]
    """California at home pays EIA's 2023 residential average, 29.51 cents; in colocation
    the industrial one, 18.64; the national default (no state) is the site's own."""
    url = "/breakeven?detail=full&gpu=rtx4090&hours=3000"
    home = client.get(url + "&state=CA").get_json()
    assert (home["tariff"]["state"], home["tariff"]["sector"]) == ("CA", "residential")
    assert home["assumptions"]["electricity"] == pytest.approx(0.2951)
    assert "EIA" in home["tariff"]["source"] and home["tariff"]["period"].startswith("2023")
    assert "ECB" not in home["tariff"]["note"]  # a tariff in dollars needs no rate
    colo = client.get(url + "&state=CA&site=colo").get_json()
    assert colo["tariff"]["sector"] == "industrial"
    assert colo["assumptions"]["electricity"] == pytest.approx(0.1864)
    plain = client.get(url).get_json()
    assert plain["tariff"] is None and plain["assumptions"]["electricity"] != 0.2951
    # dearer power, dearer buying: the same question costs more to buy in California
    texas = client.get(url + "&state=TX").get_json()
    assert home["buy"]["energy_usd"] > texas["buy"]["energy_usd"] > 0
    assert home["buy"]["energy_usd"] / texas["buy"]["energy_usd"] == pytest.approx(
        0.2951 / 0.1446, rel=1e-9
    )
    ranked = client.get("/rank?state=NY&hours=500").get_json()
    assert ranked["tariff"]["state"] == "NY" and ranked["tariff"]["period"] == "2025-04"


def test_a_state_outside_the_united_states_is_a_400_naming_it(client) -> None:  # type: ignore[no-untyped-def]
    for query, parameter in (("state=CA&country=CN", "state"), ("state=ZZ", "state")):
        response = client.get(f"/breakeven?detail=full&gpu=rtx4090&hours=10&{query}")
        assert response.status_code == 400
        assert response.get_json()["errors"][0]["parameter"] == parameter
    assert (
        client.get("/breakeven?detail=full&gpu=rtx4090&hours=10&state=WA&country=US").status_code
        == 200
    )


def test_the_tariffs_file_has_the_states_a_question_may_name(hardware) -> None:  # type: ignore[no-untyped-def]
    from hardware.tariffs import US_STATES

    assert set(hardware.tariffs.states) == set(US_STATES)
    for state in US_STATES:
        for site in ("home", "office", "colo"):
            found, stands_in = hardware.tariffs.for_site("US", site, state)
            assert found.state == state and not stands_in
