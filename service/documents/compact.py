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
        if isinstance(value, dict):
            return {
                ("source_ref" if _named(key, item) else key): (
                    ref(item) if _named(key, item) else strip(item)
                )
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    out = {key: strip(value) if key in OFFER_PARTS else value for key, value in document.items()}
    out["sources"] = sources
    return out


def _named(key: str, value: Any) -> bool:
    return key == "source" and isinstance(value, str)
