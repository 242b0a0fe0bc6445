"""The reference tables, written from the code: ``python -m service.docs``.

Each table sits between two marker comments in docs/reference.md (the README links to it)::

    <!-- generated: breakeven-parameters -->
    ...
    <!-- end generated -->

``python -m service.docs`` rewrites every such block from the definitions it documents;
``python -m service.docs --check`` writes nothing and exits 1 with the diff when a page
differs (tests/test_docs.py does the same). The blocks:

- ``breakeven-parameters``, ``rank-parameters``: the query models of
  :mod:`service.documents.queries` (name, default, meaning, allowed values and bounds; the
  cost parameters' rows are :func:`service.engine.assumptions.table_rows`);
- ``breakeven-answer``, ``rank-answer``: the answer models of :mod:`service.http.schemas`;
- ``settings``: the :class:`service.settings.Settings` fields (``breakeven settings`` prints
  the same rows).

A default is written as a user writes it: a value (``transformer``, ``10``), ``required``, or,
for a field whose default is computed (``None`` in the model), the text its description gives
as ``(default: ...)``, else ``unset``.
"""

from __future__ import annotations

import csv
import difflib
import io
import re
import sys
import types
import typing
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from hardware import PLATFORMS
from pricing.offer import MARKETS
from service.documents.queries import (
    MARKET_LIST,
    PLATFORM_LIST,
    SENSITIVITY_LIST,
    BreakevenQuery,
    RankQuery,
)
from service.engine.assumptions import NAMES, table_rows
from service.engine.sensitivity import PARAMETERS
from service.http.schemas import BreakevenAnswer, RankAnswer
from service.settings import Settings

README = Path(__file__).resolve().parents[1] / "README.md"
COMMAND = "python -m service.docs"
BLOCK = re.compile(
    r"(?P<start><!-- generated: (?P<name>[a-z-]+) -->\n)(?P<body>.*?)"
    r"(?P<end><!-- end generated -->)",
    re.DOTALL,
)
# "(default: the card's own)" in a description: the default of a field the model leaves None.
DEFAULT_PHRASE = re.compile(r"\s*\(default: (?P<text>[^()]*(?:\([^()]*\)[^()]*)*)\)")
# The comma-list parameters checked by a pattern, and the values each pattern admits.
LISTED = {
    PLATFORM_LIST: (*PLATFORMS, "all"),
    MARKET_LIST: MARKETS,
    SENSITIVITY_LIST: (*PARAMETERS, "all"),
}
_BOUNDS = (
    (annotated_types.Ge, "ge", ">="),
    (annotated_types.Gt, "gt", ">"),
    (annotated_types.Le, "le", "<="),
    (annotated_types.Lt, "lt", "<"),
)


@dataclass(frozen=True)
class Row:
    """One documented name: its default as a user writes it, and what it means."""

    name: str
    default: str
    meaning: str
    value: bool = False  # the default is a value to write as code (`transformer`)


# -- fields ---------------------------------------------------------------------------------


def number(value: float) -> str:
    """A bound or default as a reader writes it: 10,000,000; 0.001; 1e13; 3.084e9."""
    if float(value).is_integer() and abs(value) < 1e9:
        return f"{int(value):,}"
    if float(value).is_integer():
        mantissa, exponent = f"{value:.12e}".split("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    return f"{value:g}"


def _constraints(field: FieldInfo) -> list[Any]:
    """The field's metadata and that of the Annotated types in its annotation."""
    found = list(field.metadata)
    stack = [field.annotation]
    while stack:
        annotation = stack.pop()
        if get_origin(annotation) is Annotated:
            found.extend(get_args(annotation)[1:])
            stack.append(get_args(annotation)[0])
        elif get_origin(annotation) in (Union, types.UnionType):
            stack.extend(get_args(annotation))
    return found


def bounds(field: FieldInfo) -> str:
    """ ">= 0.001, <= 10,000,000": the numeric bounds, lower first."""
    parts = []
    for kind, attribute, sign in _BOUNDS:
        for constraint in _constraints(field):
            if isinstance(constraint, kind):
                parts.append(f"{sign} {number(getattr(constraint, attribute))}")
    return ", ".join(parts)


def allowed_values(field: FieldInfo) -> tuple[str, ...]:
    """The values a field admits when they are few: a Literal, an Enum, a known comma list."""
    for constraint in _constraints(field):
        pattern = getattr(constraint, "pattern", None)
        if pattern in LISTED:
            return tuple(LISTED[pattern])
    stack, found = [field.annotation], []
    while stack:
        annotation = stack.pop(0)
        origin = get_origin(annotation)
        if origin is Literal:
            found.extend(str(v) for v in get_args(annotation))
        elif origin in (Union, types.UnionType, Annotated):
            stack.extend(get_args(annotation))
        elif isinstance(annotation, type) and issubclass(annotation, Enum):
            found.extend(str(member.value) for member in annotation)
    return tuple(found)


def written(value: object) -> tuple[str, bool]:
    """A default as a user writes it, and whether it is a literal value (code) or a number."""
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return ("true" if value else "false"), True
    if isinstance(value, int | float):
        return (str(value) if isinstance(value, int) else f"{value:g}"), False
    if isinstance(value, tuple | list):
        return ",".join(str(v) for v in value), True
    return str(value), True


def field_row(name: str, field: FieldInfo) -> Row:
    """The row of one field: default, description, allowed values and bounds."""
    description = field.description or ""
    computed = field.default is None or field.default_factory is not None
    phrase = DEFAULT_PHRASE.search(description) if computed else None
    if phrase:
        default, value = phrase["text"], False
        description = (description[: phrase.start()] + description[phrase.end() :]).strip()
    elif field.is_required():
        default, value = "required", False
    elif field.default_factory is not None:
        raise ValueError(f"{name}: a computed default needs '(default: ...)' in its description")
    elif field.default is None:
        default, value = "unset", False
    else:
        default, value = written(field.default)
    notes = []
    values = allowed_values(field)
    if values and not all(re.search(rf"\b{re.escape(v)}\b", description) for v in values):
        notes.append("values: " + ", ".join(f"`{v}`" for v in values))
    if bounds(field):
        notes.append(bounds(field))
    meaning = description + (f" ({'; '.join(notes)})" if notes else "")
    return Row(name, default, meaning, value)


# -- the blocks -----------------------------------------------------------------------------


def query_rows(model: type[BaseModel]) -> list[Row]:
    """A query's parameters: required ones first, then in the model's order; the cost
    parameters as their one definition's table gives them."""
    costs = {name: Row(name, default, text) for name, default, text in table_rows()}
    rows = [
        costs[name] if name in NAMES else field_row(name, field)
        for name, field in model.model_fields.items()
    ]
    required = {name for name, field in model.model_fields.items() if field.is_required()}
    return sorted(rows, key=lambda row: row.name not in required)


def settings_rows() -> list[Row]:
    """Every BREAKEVEN_* variable: the service's own first, then the cost parameters'
    defaults (written as the parameter table writes them: a number, or "from data")."""
    costs = {name: default for name, default, _ in table_rows()}
    rows = []
    for name, field in Settings.model_fields.items():
        row = field_row(f"BREAKEVEN_{name.upper()}", field)
        if name in costs:
            row = Row(row.name, costs[name], f"{field.description} ({bounds(field)})")
        rows.append(row)
    return sorted(rows, key=lambda row: row.name.removeprefix("BREAKEVEN_").lower() in costs)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(header: tuple[str, str, str], rows: Iterable[Row]) -> str:
    lines = [f"| {' | '.join(header)} |", "|---|---|---|"]
    for row in rows:
        default = f"`{row.default}`" if row.value else row.default
        lines.append(f"| `{row.name}` | {_cell(default)} | {_cell(row.meaning)} |")
    return "\n".join(lines) + "\n"


def breakeven_parameters() -> str:
    return table(("parameter", "default", "meaning"), query_rows(BreakevenQuery))


def rank_parameters() -> str:
    """/rank's parameters that differ from /breakeven's, then the names they share."""
    shared = {row.name: row for row in query_rows(BreakevenQuery)}
    own = [row for row in query_rows(RankQuery) if shared.get(row.name) != row]
    same = [row.name for row in query_rows(RankQuery) if shared.get(row.name) == row]
    text = table(("parameter", "default", "meaning"), own)
    return text + "\nAs for `/breakeven`: " + ", ".join(f"`{name}`" for name in same) + ".\n"


def _kind(annotation: Any) -> str:
    """What a member holds, as the JSON reads: a number, `buy` or `rent`, {members}."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _kind(args[0])
    if origin in (Union, types.UnionType):
        kinds = [_kind(a) for a in args if a is not type(None)]
        return " or ".join(kinds) + (" or null" if type(None) in args else "")
    if origin is Literal:
        return " or ".join(f"`{v}`" for v in args)
    if origin is list:
        return "list of " + _kind(args[0])
    if origin is dict:
        return "object"
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return " or ".join(f"`{m.value}`" for m in annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "{" + ", ".join(f"`{name}`" for name in annotation.model_fields) + "}"
    return {str: "string", int: "integer", float: "number", bool: "boolean"}.get(
        annotation, "number" if annotation == int | float else str(annotation)
    )


def _doc_of(annotation: Any) -> str:
    """The docstring of the model a member holds (through lists and nulls), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        own = [c.__doc__ for c in annotation.__mro__ if c.__module__ == annotation.__module__]
        doc = next(filter(None, own), "")  # a subclass without one: its base's
        return " ".join(doc.split("\n\n")[0].split())
    return next(filter(None, (_doc_of(part) for part in get_args(annotation))), "")


def answer(model: type[BaseModel]) -> str:
    lines = ["| member | holds | meaning |", "|---|---|---|"]
    for name, field in model.model_fields.items():
        hint = typing.get_type_hints(model)[name]
        meaning = field.description or _doc_of(hint)
        lines.append(f"| `{name}` | {_cell(_kind(hint))} | {_cell(meaning)} |")
    return "\n".join(lines) + "\n"


def settings_table() -> str:
    return table(("variable", "default", "meaning"), settings_rows())


def ownership_table() -> str:
    """Every default of owning (hardware/data/ownership.csv, systems.csv) with its date,
    kind and source: what an answer's `buy.sources` cites."""
    from hardware import load_hardware

    own = load_hardware().ownership
    lines = ["| item | value | range | as of | kind | source |", "|---|---|---|---|---|---|"]
    for item in own.items.values():
        spread = "" if item.low is None and item.high is None else f"{item.low:g}-{item.high:g}"
        lines.append(
            f"| `{item.item}` | {item.value:g} {_cell(item.unit)} | {spread} | {item.as_of} "
            f"| {item.kind} | {_cell(item.source)} |"
        )
    for system in own.systems.values():
        spread = ""
        if system.usd_low is not None and system.usd_high is not None:
            spread = f"{system.usd_low:,.0f}-{system.usd_high:,.0f}"
        lines.append(
            f"| `system.{system.accelerator}` | {system.usd:,.0f} USD per {system.cards}-card "
            f"node | {spread} | {system.as_of} | {system.kind} | {_cell(system.source)} |"
        )
    return "\n".join(lines) + "\n"


def published_runs_table() -> str:
    """The language-model runs the utilization is fitted on, each against the fit: the error
    table of hardware/data/README.md."""
    from hardware import load_hardware
    from hardware.utilization import HOURS_FROM, SPREAD_NAME, WITHIN

    fitted = load_hardware().utilization
    lines = [
        "| run | card | active params | tokens | seq | precision | era | reported h "
        "| hours from | predicted h | ratio | held out |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in fitted.predictions:
        run = p.run
        flag = "" if abs(p.ratio - 1) <= WITHIN else " (out)"
        lines.append(
            f"| `{run.id}` | {run.accelerator} | {run.active_params:.3g} | {run.tokens:.3g} "
            f"| {run.seq_len:,} | {run.precision} | {run.era} | {run.hours:,.4g} "
            f"| {_words(run.hours_from)} | {p.predicted_hours:,.4g} | {p.ratio:.2f}{flag} "
            f"| {p.held_out_ratio:.2f} |"
        )
    hits, runs = fitted.within
    held, _ = fitted.held_out_within
    eras = ", ".join(f"{name} x {factor:.2f}" for name, factor in fitted.era_factors.items())
    spreads = "; ".join(
        f"{kind} {low:.2f}-{high:.2f}" for kind, (low, high) in fitted.spreads.items()
    )
    lines += [
        "",
        f"Fit: {fitted.at_reference:.3f} of peak on the A100 80GB at 7e9 active parameters "
        f"with today's software, x (active / 7e9) ^ {fitted.size_slope:.3f}; a mixture of "
        f"experts x {fitted.mixture_factor:.3f} (routing and all-to-all, on its active "
        f"parameters); older software: {eras}. Within {WITHIN:.0%} of the reported hours: "
        f"{hits} of {runs} runs ({hits / runs:.0%}); each predicted by the fit made without "
        f"it: {held} of {runs} ({held / runs:.0%}). The spread the answers state "
        f"(`work.hours_spread`), {SPREAD_NAME} of the ratios of each kind's runs held out "
        f"with their team, each end read outward to the nearest run: {spreads}.",
        "",
        "By where the hours come from (scatter: the standard deviation of log predicted / "
        "reported):",
        "",
        "| hours from | runs | within | held out | scatter |",
        "|---|---|---|---|---|",
    ]
    for tally in fitted.by_hours_from():
        of = tally.runs
        lines.append(
            f"| {_words(tally.hours_from)}: {_cell(HOURS_FROM[tally.hours_from])} | {of} "
            f"| {_of(tally.within, of)} | {_of(tally.held_out_within, of)} "
            f"| {tally.scatter:.2f} |"
        )
    lines += [
        "",
        "By kind: the median held-out ratio (predicted / reported hours) and how many runs "
        "fall inside the spread stated for their structure, each run held out alone and "
        "held out with every run of its team (`team`), the way a new team's run meets the fit:",
        "",
        "| kind | runs | median, alone | inside, alone | median, team out | inside, team out |",
        "|---|---|---|---|---|---|",
    ]
    for kind in fitted.by_kind():
        of = kind.runs
        alone = f"{kind.median_held_out:.2f} | {_of(kind.covered_held_out, of)}"
        team = f"{kind.median_team_out:.2f} | {_of(kind.covered_team_out, of)}"
        lines.append(f"| {kind.axis}: {_words(kind.kind)} | {of} | {alone} | {team} |")
    return "\n".join(lines) + "\n"


def _of(count: int, runs: int) -> str:
    """A count of runs with its share: 44 (79%)."""
    return f"{count} ({count / runs:.0%})"


def bundled_figures_table() -> str:
    """The bundled snapshot by provider and terms: how many rows, how many dated by a source
    that says when the price held, their dates, how each price was come by, and where the
    rows come from (the origin of each source: a repository, a page, a file), generated so
    it cannot drift from the data."""
    from pricing.adapters.bundled import snapshot_text
    from pricing.dated import is_dated
    from pricing.derivation import AS_LISTED, METHODS, how_priced
    from pricing.offer import price_date

    rows = list(csv.DictReader(io.StringIO(snapshot_text())))
    groups: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in rows:
        groups.setdefault((row["provider"], row["pricing"]), []).append(row)
    lines = [
        "| provider | terms | rows | dated | dates | confidence | how priced (rows) "
        "| sources (rows) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (provider, pricing), group in sorted(groups.items()):
        days = sorted(d for d in (price_date(r["price_as_of"]) for r in group) if d is not None)
        dated = len(days)
        span = "-" if not days else f"{days[0]:%Y-%m-%d} to {days[-1]:%Y-%m-%d}"
        kinds = Counter(row["confidence"] or "-" for row in group)
        origins = Counter(_origin(row["source"]) for row in group)
        named = "; ".join(f"{o} ({n})" for o, n in sorted(origins.items(), key=lambda x: -x[1]))
        confidence = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        methods = _counted(how_priced(row) for row in group)
        lines.append(
            f"| {provider} | {pricing} | {len(group):,} | {dated:,} ({dated / len(group):.0%}) "
            f"| {span} | {confidence} | {methods} | {_cell(named)} |"
        )
    total = sum(1 for row in rows if is_dated(row["price_as_of"]))
    lines += [
        "",
        f"All: {len(rows):,} rows, {total:,} dated ({total / len(rows):.0%}); an undated row "
        'says so in its `price_as_of` ("before <the day its catalog was read>"). How priced: '
        f"{AS_LISTED}, the figure on the price page, list or API; "
        + "; ".join(f"{method}, {meaning}" for method, meaning, _ in METHODS)
        + " (pricing/derivation.py reads each row's notes).",
    ]
    return "\n".join(lines) + "\n"


def _counted(names: Iterable[str]) -> str:
    """Each name with how many times it comes, most first: as listed 489, cheapest zone 50."""
    counts = Counter(names)
    return ", ".join(f"{n} {c}" for n, c in sorted(counts.items(), key=lambda x: (-x[1], x[0])))


def _origin(source: str) -> str:
    """Where a source text comes from, as a table cell names it: a repository (owner/name),
    a web host, or the text's first words."""
    repository = re.match(r"([\w.-]+/[\w.-]+)(?=[@ :])", source) or re.search(
        r"([\w.-]+/[\w.-]+)@[0-9a-f]{7}", source
    )
    if repository:
        return repository[1]
    host = re.search(r"https?://([^/\s,]+)", source)
    if host:
        return host[1].removeprefix("www.")
    return " ".join(source.split()[:3])


def _words(name: str) -> str:
    return name.replace("_x_", " x ").replace("_", " ")


BLOCKS: dict[str, Callable[[], str]] = {
    "breakeven-parameters": breakeven_parameters,
    "breakeven-answer": lambda: answer(BreakevenAnswer),
    "rank-parameters": rank_parameters,
    "rank-answer": lambda: answer(RankAnswer),
    "settings": settings_table,
    "ownership-defaults": ownership_table,
}
# The files with generated blocks: the reference (docs/reference.md), which the README links
# to, and the hardware data's README.
REFERENCE = README.parent / "docs" / "reference.md"
HARDWARE_README = README.parent / "hardware" / "data" / "README.md"
PRICING_README = README.parent / "pricing" / "data" / "README.md"
FILES: dict[Path, dict[str, Callable[[], str]]] = {
    REFERENCE: BLOCKS,
    HARDWARE_README: {"published-runs": published_runs_table},
    PRICING_README: {"bundled-figures": bundled_figures_table},
}


# -- the README -----------------------------------------------------------------------------


def render(text: str, blocks: dict[str, Callable[[], str]] | None = None) -> str:
    """``text`` with every generated block rewritten; each block in ``blocks`` (the README's
    by default) exactly once."""
    blocks = BLOCKS if blocks is None else blocks
    found = [match["name"] for match in BLOCK.finditer(text)]
    unknown = sorted(set(found) - set(blocks))
    missing = sorted(set(blocks) - set(found))
    repeated = sorted({name for name in found if found.count(name) > 1})
    if unknown or missing or repeated:
        raise ValueError(
            f"README blocks: unknown {unknown}, missing {missing}, repeated {repeated}; "
            f"known: {sorted(blocks)}"
        )
    return BLOCK.sub(lambda m: m["start"] + blocks[m["name"]]() + m["end"], text)


def diff(path: Path = REFERENCE) -> str:
    """What ``python -m service.docs`` would change in ``path``: a unified diff, or ''."""
    text = path.read_text()
    return "".join(
        difflib.unified_diff(
            text.splitlines(keepends=True),
            render(text, FILES[path]).splitlines(keepends=True),
            f"{path.name} (as it is)",
            f"{path.name} ({COMMAND})",
        )
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["--check"]):
        print(f"usage: {COMMAND} [--check]", file=sys.stderr)
        return 2
    stale = 0
    for path, blocks in FILES.items():
        name = path.relative_to(README.parent)
        changes = diff(path)
        if args == ["--check"]:
            if changes:
                print(changes + f"\n{name} is stale: run {COMMAND}", file=sys.stderr)
                stale = 1
        elif changes:
            path.write_text(render(path.read_text(), blocks))
            print(f"{name}: generated blocks rewritten ({', '.join(blocks)})")
        else:
            print(f"{name}: generated blocks already current")
    return stale


if __name__ == "__main__":
    sys.exit(main())
