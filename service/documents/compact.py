"""The compact answer (`detail=compact`, the default): each source text once.

Ten rentals and six tiers of an answer name the same few sources (a catalog, a price page,
the speed table's row for the card) over and over: half of a /breakeven answer was those
texts repeated. In the compact answer every offer's `source` (its price's, and its speed's
under `throughput`) becomes `source_ref`, the index of the text in the answer's `sources`;
`detail=full` gives every offer its own texts, as before.
"""

from __future__ import annotations

from typing import Any

# The parts of the answers that list offers and the cards compared.
OFFER_PARTS = ("rent", "tiers", "same_card", "cheapest_measured", "left_out", "cards", "too_small")
CONTAINERS = (dict, list)  # JSON's containers as the documents build them: plain, not subclassed


def compact(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with its offers' source texts given once, in ``sources``."""
    sources: list[str] = []
    seen: dict[str, int] = {}

    def ref(text: str) -> int:
        if text not in seen:
            seen[text] = len(sources)
            sources.append(text)
        return seen[text]

    def strip(value: Any) -> Any:
        # the answer's leaves are most of its values: test their type once, call nothing
        if type(value) is list:
            return [strip(item) if type(item) in CONTAINERS else item for item in value]
        out = {}
        for key, item in value.items():
            kind = type(item)
            if kind is str and key == "source":
                out["source_ref"] = ref(item)
            else:
                out[key] = strip(item) if kind in CONTAINERS else item
        return out

    out = {
        key: strip(value) if key in OFFER_PARTS and type(value) in CONTAINERS else value
        for key, value in document.items()
    }
    out["sources"] = sources
    return out
