"""What electricity costs where the cards run: a country's tariffs, by sector, in its own
currency (hardware/data/tariffs.csv, each row dated and sourced).

A bought card runs at home, in an office or in a colocation site (hardware/ownership.py),
which pay the residential, commercial and industrial tariffs. A country without a sourced
figure for a sector falls back to the nearest sector it has (industrial to commercial to
residential), and the answer says so. The United States' tariffs are the sites' own
defaults in ownership.csv (EIA), so `country=US` changes nothing.
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


class Tariffs:
    def __init__(self, tariffs: Iterable[Tariff]) -> None:
        self._by_country: dict[str, dict[str, Tariff]] = {}
        for tariff in tariffs:
            sectors = self._by_country.setdefault(tariff.country, {})
            if tariff.sector in sectors:
                raise ValueError(f"tariffs.csv: two {tariff.sector} rows for {tariff.country}")
            sectors[tariff.sector] = tariff
        currencies = {c: {t.currency for t in s.values()} for c, s in self._by_country.items()}
        mixed = {c: sorted(found) for c, found in currencies.items() if len(found) > 1}
        if mixed:
            raise ValueError(f"tariffs.csv: a country's tariffs in two currencies: {mixed}")

    @property
    def countries(self) -> tuple[str, ...]:
        return tuple(sorted({*self._by_country, DEFAULT_COUNTRY}))

    def currency(self, country: str) -> str:
        """The currency a country's answers default to: its tariffs'."""
        sectors = self._by_country.get(country)
        return next(iter(sectors.values())).currency if sectors else "USD"

    def for_site(self, country: str, site: str) -> tuple[Tariff, bool] | None:
        """The tariff a card at ``site`` pays in ``country``, and whether it is another
        sector's standing in; None: the site's own default applies (the United States)."""
        sectors = self._by_country.get(country)
        if not sectors:
            return None
        wanted = SECTOR_OF_SITE[site]
        for sector in FALLBACK[wanted]:
            if sector in sectors:
                return sectors[sector], sector != wanted
        return None
