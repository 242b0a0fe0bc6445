"""Where the asker is (`country=`): the currency answers default to, the electricity tariff
bought cards pay, and which rental providers serve them.

A country's tariffs (hardware/tariffs.py) are in its own currency; they become dollars at
the ECB's rate, like every amount a question states. China's GPU clouds (AutoDL, Alibaba
Cloud's China site, Tencent Cloud Studio) sell to accounts in mainland China, priced in
yuan: they compete for questions from China, or when a question names them (`providers=`),
and are left out elsewhere, so a team in Oregon is not told to rent what it cannot.
"""

from __future__ import annotations

from typing import Any

from hardware import Hardware
from hardware.tariffs import DEFAULT_COUNTRY, SECTOR_OF_SITE
from pricing.fx import BASE, FxError, Rate
from service.documents.errors import InvalidQuestion
from service.runtime import Rates

CHINA_ONLY_PROVIDERS = frozenset({"autodl", "alibaba", "tencent"})


def asked_currency(query: Any, hardware: Hardware) -> str | None:
    """The question's currency: as asked, else its country's, else none (dollars)."""
    if query.currency is not None or query.country is None:
        return query.currency
    return hardware.tariffs.currency(query.country)


def left_out_providers(query: Any, named: frozenset[str] | None) -> frozenset[str]:
    """Providers that do not serve the asker: China's clouds, unless asked from China or
    named."""
    if query.country == "CN":
        return frozenset()
    return CHINA_ONLY_PROVIDERS - (named or frozenset())


def tariff(
    hardware: Hardware, rates: Rates, country: str | None, site: str, state: str | None = None
) -> dict[str, Any] | None:
    """The electricity tariff a card at ``site`` pays in ``country`` (a US ``state``), in
    its currency and in dollars; None where the site's own default applies (no country, or
    the United States without a state)."""
    if state is not None:
        if country not in (None, DEFAULT_COUNTRY):
            raise InvalidQuestion(
                "state", f"a US state goes with country={DEFAULT_COUNTRY} or none, not {country}"
            )
        country = DEFAULT_COUNTRY
    if country is None:
        return None
    found = hardware.tariffs.for_site(country, site, state or "")
    if found is None:
        return None
    chosen, stands_in = found
    try:
        rate = rates.rate(chosen.currency)
    except FxError as exc:  # a country whose currency has no rate: a data error, said so
        raise InvalidQuestion("country", str(exc)) from exc
    wanted = SECTOR_OF_SITE[site]
    instead = (
        f"; no {wanted} figure was found, the {chosen.sector} one stands in" if stands_in else ""
    )
    return {
        "country": country,
        "state": chosen.state or None,
        "region": chosen.region,
        "site": site,
        "sector": chosen.sector,
        "per_kwh": chosen.per_kwh,
        "currency": chosen.currency,
        "usd_per_kwh": chosen.per_kwh / rate.per_usd,
        "period": chosen.period,
        "kind": chosen.kind,
        "source": chosen.source,
        "note": (
            f"{chosen.per_kwh:g} {chosen.currency}/kWh ({chosen.region}, {chosen.sector}, "
            f"{chosen.period}){_in_dollars(chosen.per_kwh, rate)}{instead}; electricity= "
            "overrides it"
        ),
    }


def _in_dollars(per_kwh: float, rate: Rate) -> str:
    """A tariff's dollars and the rate that made them; nothing for a tariff in dollars."""
    if rate.currency == BASE:
        return ""
    return f" = {per_kwh / rate.per_usd:.4f} USD/kWh at the ECB rate of {rate.day}"
