"""How each bundled price was come by (pricing/derivation.py), checked against the row's own
arithmetic: a method the data README counts is a step the price really took."""

from __future__ import annotations

import csv
import io
import re

import pytest

from pricing.adapters.bundled import snapshot_text
from pricing.derivation import AS_LISTED, METHODS, how_priced

CENT = 0.005  # half a cent an hour: the arithmetic of a row, to the cent


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(snapshot_text())))


def _by(rows: list[dict[str, str]], method: str) -> list[dict[str, str]]:
    return [row for row in rows if how_priced(row) == method]


def test_every_method_prices_some_bundled_rows(rows: list[dict[str, str]]) -> None:
    used = {how_priced(row) for row in rows}
    assert used == {AS_LISTED, *(method for method, _, _ in METHODS)}


def test_converted_rows_are_those_in_another_currency_at_their_rate(
    rows: list[dict[str, str]],
) -> None:
    """A row priced in yuan is "converted" (before "per accelerator": the step a reader most
    needs), and its dollars are its own price over its own rate."""
    foreign = [row for row in rows if row["currency"] not in ("", "USD")]
    assert foreign and _by(rows, "converted") == foreign
    for row in foreign:
        dollars = float(row["price_per_hour"]) / float(row["fx_per_usd"])
        if row["usd_per_hour"]:  # else converted as the snapshot loads (test_price_currency)
            assert float(row["usd_per_hour"]) == pytest.approx(dollars, abs=CENT), row["product"]


def test_per_accelerator_rows_are_the_rate_times_the_accelerators(
    rows: list[dict[str, str]],
) -> None:
    per_gpu = re.compile(r"(?:^|: )([\d.]+) USD per GPU-hour x (\d+)")
    per_chip = re.compile(r"(\d+) chips, ([\d.]+) per chip-hour")
    checked = _by(rows, "per accelerator")
    assert len(checked) > 50
    # a per-GPU figure on one GPU is the figure itself: as listed, not a step from it
    single = [row for row in rows if re.search(r"USD per GPU-hour x 1\b", row["notes"])]
    assert single and {how_priced(row) for row in single} <= {AS_LISTED, "converted"}
    for row in checked:
        notes, price = row["notes"], float(row["usd_per_hour"])
        if found := per_gpu.search(notes):
            rate, count = float(found[1]), int(found[2])
        else:
            found = per_chip.search(notes)
            assert found, notes
            count, rate = int(found[1]), float(found[2])
        assert count == int(row["count"]), row["product"]
        assert price == pytest.approx(rate * count, abs=CENT), row["product"]


def test_summed_rows_are_their_parts_added_up(rows: list[dict[str, str]]) -> None:
    """A machine priced as a VM plus its accelerators (or a GPU plus its host) is their
    sum, to the cent; where the notes compare a catalog's sum with a list price, the row
    is the list's (as listed), not the sum."""
    vm = re.compile(r"\bVM ([\d.]+) \+ \d+x .*? ([\d.]+)(?: \(|;|$)")
    host = re.compile(r"GPU ([\d.]+)/h for \d+ \+ \S+ host ([\d.]+)/h")
    checked = 0
    for row in _by(rows, "summed"):
        notes = row["notes"]
        found = vm.search(notes) or host.search(notes)
        assert found, notes
        parts = float(found[1]) + float(found[2])
        assert float(row["usd_per_hour"]) == pytest.approx(parts, abs=CENT), notes
        checked += 1
    assert checked > 10
    listed = [row for row in rows if "catalog's sum is" in row["notes"]]
    assert listed and {how_priced(row) for row in listed} == {AS_LISTED}
