"""What electricity costs where the cards run: a country's tariffs, by sector, in its own
currency (hardware/data/tariffs.csv, each row dated and sourced).

A bought card runs at home, in an office or in a colocation site (hardware/ownership.py),
which pay the residential, commercial and industrial tariffs. A country without a sourced
figure for a sector falls back to the nearest sector it has (industrial to commercial to
residential), and the answer says so. The United States' national tariffs are the sites'
own defaults in ownership.csv (EIA), so `country=US` alone changes nothing; a state with
figures (`state=`, EIA's by state and sector) sets its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

# The countries a question may name: those tariffs.csv covers, and the United States, whose
# tariffs are the default sites' (tests/test_tariffs.py checks the file against this).
Country = Literal["CN", "DE", "GB", "HK", "IT", "JP", "KR", "SG", "US"]
COUNTRIES: tuple[str, ...] = get_args(Country)
DEFAULT_COUNTRY = "US"
# The US states a question may name: those tariffs.csv has EIA's figures for.
UsState = Literal["CA", "NY", "TX", "WA"]
US_STATES: tuple[str, ...] = get_args(UsState)
SECTOR_OF_SITE = {"home": "residential", "office": "commercial", "colo": "industrial"}
FALLBACK = {
    "industrial": ("industrial", "commercial", "residential"),
    "commercial": ("commercial", "residential"),
    "residential": ("residential",),
}


@dataclass(frozen=True, slots=True)
class Tariff:
    country: str
    region: str
    sector: str  # residential, commercial or industrial
    per_kwh: float  # in ``currency``
    currency: str
    period: str  # when it held
    kind: str  # official statistic, tariff, regulated cap ...
    source: str
    state: str = ""  # a US state's own figure; "" for a country's


class Tariffs:
    def __init__(self, tariffs: Iterable[Tariff]) -> None:
        self._by_place: dict[tuple[str, str], dict[str, Tariff]] = {}
        for tariff in tariffs:
            place = (tariff.country, tariff.state)
            sectors = self._by_place.setdefault(place, {})
            if tariff.sector in sectors:
                raise ValueError(f"tariffs.csv: two {tariff.sector} rows for {place}")
            sectors[tariff.sector] = tariff
        currencies: dict[str, set[str]] = {}
        for (country, _), sectors in self._by_place.items():
            currencies.setdefault(country, set()).update(t.currency for t in sectors.values())
        mixed = {c: sorted(found) for c, found in currencies.items() if len(found) > 1}
        if mixed:
            raise ValueError(f"tariffs.csv: a country's tariffs in two currencies: {mixed}")

    @property
    def countries(self) -> tuple[str, ...]:
        return tuple(sorted({country for country, _ in self._by_place} | {DEFAULT_COUNTRY}))

    @property
    def states(self) -> tuple[str, ...]:
        return tuple(sorted(state for country, state in self._by_place if state))

    def currency(self, country: str) -> str:
        """The currency a country's answers default to: its tariffs'."""
        sectors = self._by_place.get((country, ""))
        return next(iter(sectors.values())).currency if sectors else "USD"

    def for_site(self, country: str, site: str, state: str = "") -> tuple[Tariff, bool] | None:
        """The tariff a card at ``site`` pays in ``country`` (a US ``state``), and whether
        it is another sector's standing in; None: the site's own default applies (the
        United States without a state)."""
        sectors = self._by_place.get((country, state))
        if not sectors:
            return None
        wanted = SECTOR_OF_SITE[site]
        for sector in FALLBACK[wanted]:
            if sector in sectors:
                return sectors[sector], sector != wanted
        return None
