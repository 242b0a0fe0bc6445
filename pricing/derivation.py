"""How a bundled price was come by: read as listed, or worked out from what was listed.

A figure's source and date say where it came from; a reader signing an answer also asks
whether the number is the one on the page or a step away from it (a per-GPU rate times the
GPUs, a yuan price at a dated rate, a VM and its GPUs added up). The build script
(pricing/data/build_snapshot.py) says each step in the row's notes; this reads them back into
a few named methods, so the data README's table can count them per provider and terms.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# (method, what it means, how a row shows it), first match wins: a yuan price per GPU is
# "converted" before it is "per accelerator", the step a reader most needs to know.
METHODS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "converted",
        "a price in another currency, converted at the dated rate its notes name",
        re.compile(r" per USD \("),
    ),
    (
        "term spread",
        "a commitment's price for the term, spread over its hours as the provider states it",
        re.compile(r"USD for the term|effective hourly rate|an hourly commitment for the term"),
    ),
    (
        "summed",
        "a VM (or host) and its accelerators, priced apart and added up",
        # where the notes compare a catalog's sum with the price, the price is a list's
        re.compile(r"^(?!.*catalog's sum is).*(\bVM [\d.]+ \+|\+ \S+ host [\d.]+/h)"),
    ),
    (
        "per accelerator",
        "a per-GPU (or per-chip) price times the accelerators of the instance",
        # a rate "x 1" is the figure as listed, not a step from it
        re.compile(r"(^|: )[\d.]+ USD per GPU-hour x (?!1\b)\d+|\d chips, [\d.]+ per chip-hour"),
    ),
    (
        "median",
        "the median ask of a marketplace's hosts, as a public catalog's fetcher took it",
        re.compile(r"median ask"),
    ),
    (
        "cheapest zone",
        "the cheapest of the region's zones, each as listed",
        re.compile(r"cheapest of \d+ zones"),
    ),
)
AS_LISTED = "as listed"  # the figure on the price page, list or API, per instance-hour


def how_priced(row: Mapping[str, str]) -> str:
    """The method a snapshot row's price was worked out by (METHODS), else AS_LISTED."""
    notes = row.get("notes") or ""
    for method, _, shown in METHODS:
        if shown.search(notes):
            return method
    return AS_LISTED
