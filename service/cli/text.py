"""Answers as text a person reads at a terminal, in the reader's language (service/i18n);
`--json` prints the documents instead.

Offer text (provider, product, region, notes) comes from imports and live sources, so each
value put in a line or a table cell is escaped (pricing/controls.py): a terminal must show an
escape sequence, never act on it, and a line break in a cell must not break the table. The
documents' own sentences (sources, notes, the sensitivity's) are the API's and stay in English.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pricing.controls import escape_controls
from pricing.tiers import TERM_NAMES
from service.documents.money import Asked
from service.documents.summary import figure
from service.i18n import Translator, translator


def _own_lines(own: dict[str, Any] | None, m: Asked, t: Translator) -> list[str]:
    """own=: keep the owned card, upgrade or rent, each path's cost."""
    if own is None:
        return []
    lines = [
        t(
            "OWN {gpu}: sells now for {sale:,.2f} {currency} after fees; best: {best}",
            gpu=own["gpu"],
            sale=m(own, "sale_usd"),
            currency=m.code,
            best=own["best"],
        )
    ]
    for path in own["paths"]:
        present = m(path, "present_usd")
        cost = t("cannot") if present is None else f"{present:,.2f} {m.code}"
        lines.append(f"  {path['name']:<8} {cost:>14}  {path['note']}")
    return lines


def _currency_lines(d: dict[str, Any], t: Translator) -> list[str]:
    """--currency, --country: the headline amounts in the currency asked, at its rate."""
    fx = d.get("fx")
    if not fx or fx["currency"] == "USD":
        return []
    m = Asked(d)
    buy, cheapest = d["buy"], d["rent"][0]
    stale = t(", {days} days old (STALE)", days=fx["age_days"]) if fx["stale"] else ""
    lines = [
        t(
            "IN {currency}: buy {buy:,.2f}, the cheapest rental {rent:,.2f} ({provider}); "
            "1 USD = {rate:.4f} {currency} (ECB, {day}{stale})",
            currency=fx["currency"],
            buy=m(buy, "total_usd"),
            rent=m(cheapest, "total_usd"),
            provider=_text(cheapest["provider"]),
            rate=fx["per_usd"],
            day=t.day(fx["as_of"]),
            stale=stale,
        )
    ]
    if d.get("tariff"):
        lines.append(t("ELECTRICITY: {note}", note=_text(d["tariff"]["note"])))
    return lines


def describe_quote(d: dict[str, Any], t: Translator | None = None, width: int | None = None) -> str:
    """The /breakeven answer: buy, the cheapest rentals, the verdict, the assumptions."""
    t = t or translator(None)
    m = Asked(d)
    buy, a = d["buy"], d["assumptions"]
    compared = d["compared_with"]
    lines = [  # the answer first: the verdict and where buying pays off, then the question
        t(
            "VERDICT: {verdict}, saving {savings:,.2f} {currency} in today's money (against "
            "the cheapest {tier} rental)",
            verdict=t("BUY") if d["verdict"] == "buy" else t("RENT"),
            savings=m(d, "savings_usd"),
            currency=m.code,
            tier=compared["tier"],
        ),
        _breakeven_line(d, a["utilization"], m, t),
        t(
            "{hours:,.10g} h of {workload} training on {gpus} x {gpu}",
            hours=round(d["hours"], 1),  # 500; 1,351,035.9 (not :g's 1.35104e+06)
            workload=_word(d["workload"], t),
            gpus=buy["gpus"],
            gpu=d["gpu"],
        ),
    ]
    lines += _work_line(d.get("work"), t)
    lines += [
        "",
        t(
            "BUY   {total:>12,.2f} {currency}  = cards {cards:,.2f} + host {host:,.2f} + network "
            "{network:,.2f} + energy {energy:,.2f} + site {site:,.2f} - resale {resale:,.2f}  "
            "({busy:,.1f} busy h, {calendar:,.0f} h of calendar time, {where})",
            total=m(buy, "total_usd"),
            currency=m.code,
            cards=m(buy, "purchase_usd") + m(buy, "replacement_usd"),  # every set bought
            host=m(buy, "host_usd"),
            network=m(buy, "network_usd"),
            energy=m(buy, "energy_usd"),
            site=m(buy, "site_usd"),
            resale=m(buy, "resale_usd"),
            busy=buy["hours"],
            calendar=buy["wall_clock_hours"],
            where=_word(buy["site"], t),
        ),
        t(
            "      {present:>12,.2f} {currency}  in today's money at discount_rate {rate:g} "
            "(site: colo {colo:,.2f}, support {support:,.2f}, staff {staff:,.2f})",
            present=m(buy, "present_usd"),
            currency=m.code,
            rate=a["discount_rate"],
            colo=m(buy, "colo_usd"),
            support=m(buy, "support_usd"),
            staff=m(buy, "staff_usd"),
        ),
    ]
    deadline = d["deadline"]
    if deadline["hours"] is not None:
        lines.append(
            t(
                "DEADLINE {days:,.1f} days ({hours:,.0f} h): {basis}",
                days=deadline["days"],
                hours=deadline["hours"],
                basis=deadline["basis"],
            )
        )
    header = [
        *(t("provider"), t("product"), t("region"), t("pricing")),
        *(t("{currency}/h", currency=m.code), "x", t("wall h")),
        *(t("total {currency}", currency=m.code), t("b/e h"), t("speed")),
    ]
    rows = [
        [
            r["provider"],
            r["product"],
            r["region"],
            r["pricing"],
            f"{m(r, 'usd_per_hour'):.4f}",
            str(r["instances"]),
            f"{r['wall_clock_hours']:,.1f}",
            f"{m(r, 'total_usd'):,.2f}",
            t("never") if r["breakeven_hours"] is None else f"{r['breakeven_hours']:,.0f}",
            _word(r["throughput"]["method"], t),
        ]
        for r in d["rent"]
    ]
    lines += [
        "",
        t(
            "RENT (cheapest first; pricing={pricing}: {admits})",
            pricing=compared["pricing"],
            admits=", ".join(compared["admits"]),
        ),
        table(header, rows, width, (t("speed"), t("b/e h"), t("region")), t),
        "",
    ]
    lines += _same_card(d, m, t)
    lines += _own_lines(d.get("own"), m, t)
    lines += _currency_lines(d, t)
    lines += _notes(d, m, t)
    lines += ["", t("TIERS (the best of each way of renting, same work and deadline)")]
    tier_header = [t("tier"), t("provider"), t("product"), t("total {currency}", currency=m.code)]
    tiers = _tiers(d, m, t)
    lines.append(table([*tier_header, t("wall h"), t("verdict")], tiers, width, (t("wall h"),), t))
    if unsold := [tier["tier"] for tier in d["tiers"] if _unsold_term(tier)]:
        lines.append(t("No offer of these terms does the work: {terms}", terms=", ".join(unsold)))
    gate = d["memory_gate"]
    need = t(" and ").join(
        text
        for text in (
            gate["per_accelerator_gb"]
            and t("{gb:g} GB per accelerator", gb=gate["per_accelerator_gb"]),
            gate["total_gb"] and t("{gb:g} GB in all", gb=gate["total_gb"]),
        )
        if text
    )
    lines.append(
        t("Memory gate ({need}) removed {removed} offers.", need=need, removed=gate["removed"])
    )
    stale = t(" (STALE)") if d["prices"]["stale"] else ""
    lines.append(
        t(
            "Cheapest rental priced as of {day}{stale}.",
            day=t.day(d["prices"]["as_of"]),
            stale=stale,
        )
    )
    lines.append(t("Assumptions: ") + ", ".join(f"{k}={_setting(v)}" for k, v in a.items()))
    return fit([*lines, *_what_would_have_to_be_true(d, m, t)], width)


def _setting(value: Any) -> str:
    """An assumption as a person reads it: a float to four significant digits (a selling
    fee of 0.1366, not 0.13661538461538464), the rest as given."""
    if not isinstance(value, float):
        return str(value)
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def _same_card(d: dict[str, Any], m: Asked, t: Translator) -> list[str]:
    """The card the question would buy, rented: the cheapest offer of it that does the work."""
    same = d.get("same_card")
    if not same:
        return []
    c = same["cheapest"]
    return [
        t(
            "SAME CARD: {count} x {gpu} on {provider} ({market}, {region}) at {rate:,.4f} "
            "{currency}/h does the work for {total:,.2f} {currency}, the cheapest of {offers} "
            "offers of it",
            count=c["count"],
            gpu=d["gpu"],
            provider=_text(c["provider"]),
            market=c["market"],
            region=_text(c["region"]),
            rate=m(c, "usd_per_hour"),
            currency=m.code,
            total=m(c, "total_usd"),
            offers=same["offers"],
        )
    ]


def _breakeven_line(d: dict[str, Any], utilization: float, m: Asked, t: Translator) -> str:
    """Where buying pays off, by the answer's ``payoff`` case (never against its verdict)."""
    be, case = d["breakeven"], d["payoff"]
    if case.startswith("outlasts-"):
        return t(
            "The work outlasts the cards' {years:g}-year life: {sets} sets of cards, one bought "
            "as each life ends (at today's price), and {side} costs less in all.",
            years=d["assumptions"]["lifetime_years"],
            sets=d["buy"]["replacements"] + 1,
            side=t("buying") if case == "outlasts-buy" else t("renting"),
        )
    if case == "committed":
        return t(
            "Buying costs less for this work: the rental's committed term is paid whole, "
            "used or not."
        )
    if case == "this-work":
        return t("Buying costs less for this much work.")
    if be and be["within_life"]:
        return t(
            "Buying pays off after {hours} h of work (~{days} days at {share:.0%} "
            "utilization), within the cards' {years:g}-year life.",
            hours=figure(be["hours"]),
            days=figure(be["days"]),
            share=utilization,
            years=be["life_years"],
        )
    if be:
        return t(
            "Buying does not pay off within the cards' {years:g}-year life ({life:,.0f} h of "
            "work at {share:.0%} utilization); the costs would cross only after "
            "{crossing:,.0f} h.",
            years=be["life_years"],
            life=be["life_hours"],
            share=utilization,
            crossing=be["crossing_hours"],
        )
    return _never_line(d["never_because"], m, t)


def _never_line(why: dict[str, Any], m: Asked, t: Translator) -> str:
    """Why buying never pays off, as the answer's ``never_because`` gives it."""
    figures = {
        "rent": m(why, "rent_usd_per_hour"),
        "running": m(why, "running_usd_per_hour"),
        "margin": m(why, "margin_usd_per_hour"),
        "currency": m.code,
        "rate": why["discount_rate"],
    }
    if why["reason"] == "running":
        return t(
            "Buying never pays off: the rental costs {rent:,.2f} {currency} per hour of work, "
            "no more than owning's power and site ({running:,.2f} {currency}).",
            **figures,
        )
    if why["reason"] == "discounting":
        return t(
            "Buying never pays off: the rental costs {rent:,.2f} {currency} per hour of work, "
            "only {margin:,.2f} {currency} more than owning's power and site ({running:,.2f} "
            "{currency}); at a discount rate of {rate:.1%} a year, renting for ever is worth "
            "less today than buying.",
            **figures,
        )
    return t("Buying never pays off within the longest work a question spans.")


def _notes(d: dict[str, Any], m: Asked, t: Translator) -> list[str]:
    """What the answer kept out or could not measure, each in a line."""
    lines = []
    if d.get("left_out"):
        left, best = d["left_out"], d["left_out"]["best"]
        lines.append(
            t(
                "Left out ({platforms}: {offers} offers; your code would need porting): best "
                "{provider} {product} {total:,.2f} {currency}. Ask with --platforms all.",
                platforms=", ".join(left["platforms"]),
                offers=left["offers"],
                provider=_text(best["provider"]),
                product=_text(best["product"]),
                total=m(best, "total_usd"),
                currency=m.code,
            )
        )
    cheapest = d["rent"][0]
    if cheapest.get("sessions"):
        lines.append(f"{_text(cheapest['provider'])}: {_text(cheapest['sessions']['note'])}.")
    if d.get("cheapest_measured"):
        measured = d["cheapest_measured"]
        lines.append(
            t(
                "The cheapest rental's speed is an estimate; the cheapest with a measured "
                "speed: {provider} {product} {total:,.2f} {currency}.",
                provider=_text(measured["provider"]),
                product=_text(measured["product"]),
                total=m(measured, "total_usd"),
                currency=m.code,
            )
        )
    return lines


def _tiers(d: dict[str, Any], m: Asked, t: Translator) -> list[list[str]]:
    """A row per pricing tier: its best offer and its verdict against buying; a committed
    one says the terms it pays for, an interruptible one that it may be taken back."""
    rows = []
    for tier in d["tiers"]:
        if _unsold_term(tier):
            continue  # a line under the table names them
        best = tier["best"]
        if best is None:
            rows.append([tier["tier"], "-", t("none does the work"), "-", "-", "-"])
            continue
        verdict = _word(tier["verdict"], t)
        if best["commitment"]:
            c = best["commitment"]
            verdict += t(
                " ({terms} x {term:,.0f} h term paid, {used:,.0f} of {paid:,.0f} used)",
                terms=c["terms"],
                term=c["term_hours"],
                used=c["used_instance_hours"],
                paid=c["paid_instance_hours"],
            )
        elif tier["interruptible"]:
            verdict += t(" (may be taken back mid-run)")
        rows.append(
            [
                tier["tier"],
                best["provider"],
                best["product"],
                f"{m(tier, 'total_usd'):,.2f}",
                f"{tier['wall_clock_hours']:,.1f}",
                verdict,
            ]
        )
    return rows


def _unsold_term(tier: dict[str, Any]) -> bool:
    """A committed term no offer of does the work: seven terms, most of them empty for a
    given card, would fill the table with dashes."""
    return tier["best"] is None and tier["tier"] in TERM_NAMES


def _what_would_have_to_be_true(d: dict[str, Any], m: Asked, t: Translator) -> list[str]:
    """The sensitivity's sentences and the ranges' verdict (`--explain`), when asked."""
    if not d.get("sensitivity"):
        return []
    lines = ["", t("WHAT WOULD HAVE TO BE TRUE")]
    lines += [f"- {text}" for text in d["sensitivity"]["sentences"]]
    r = d["ranges"]
    offers = r["offers"]
    lines.append(
        t(
            "Rent side: {offers} offers of {accelerator} cost {p10:,.0f} / {p50:,.0f} / "
            "{p90:,.0f} {currency} (P10/P50/P90); speeds +-{spread:.0%} put the cheapest at "
            "{low:,.0f}-{high:,.0f} {currency}; {note}.",
            offers=offers["offers"],
            accelerator=offers["accelerator"],
            p10=m(offers, "p10_usd"),
            p50=m(offers, "p50_usd"),
            p90=m(offers, "p90_usd"),
            currency=m.code,
            spread=r["speed"]["spread"],
            low=m(r["speed"], "low_usd"),
            high=m(r["speed"], "high_usd"),
            note=r["note"],
        )
    )
    return lines


# A cell that is a figure (never cut to fit): numbers with separators, a sign, a percent.
_FIGURE = re.compile(r"[-+]?[0-9][0-9,.]*%?|-|")
# The narrowest a text column is cut to, in terminal columns: first to a width that still
# reads (a product's name), then, if the table must, to the narrowest.
_READABLE = 14
_NARROWEST = 6


def table(
    header: list[str],
    rows: list[list[str]],
    width: int | None = None,
    optional: tuple[str, ...] = (),
    t: Translator | None = None,
) -> str:
    """Columns padded to their widest cell, counted in terminal columns (a Chinese character
    takes two). Past ``width``: the ``optional`` columns go first, in their order, and a
    line says which; then the last column, if text, wraps within itself; then the widest
    text columns are cut, ending in "…". Figures are never cut."""
    rows = [[_text(cell) for cell in row] for row in rows]
    dropped: list[str] = []
    if width is not None:
        for name in optional:
            if _table_width(header, rows) <= width or name not in header:
                continue
            keep = [i for i, label in enumerate(header) if label != name]
            header, rows = [header[i] for i in keep], [[row[i] for i in keep] for row in rows]
            dropped.append(name)
    columns = list(zip(header, *rows, strict=False))
    widths = [max(_width(str(c)) for c in col) for col in columns]
    text = [not all(_FIGURE.fullmatch(cell) for cell in col[1:]) for col in columns]
    if width is not None:  # text columns cut to a readable floor, then the last wrapped
        widths = _narrowed(widths, columns, text, width, _READABLE)
        if sum(widths) + 2 * (len(widths) - 1) > width and text[-1]:
            rest = sum(widths[:-1]) + 2 * (len(widths) - 1)
            widths[-1] = max(_NARROWEST, _width(header[-1]), width - rest)
        widths = _narrowed(widths, columns, text, width, _NARROWEST)
    lines = [line for row in [header, *rows] for line in _row_lines(row, widths)]
    if dropped:
        t = t or translator(None)
        lines.append(
            t(
                "(left out at {width} columns: {columns}; --wide shows them)",
                width=width,
                columns=", ".join(dropped),
            )
        )
    return "\n".join(lines)


def _table_width(header: list[str], rows: list[list[str]]) -> int:
    columns = zip(header, *rows, strict=False)
    return sum(max(_width(str(c)) for c in col) for col in columns) + 2 * (len(header) - 1)


def _row_lines(row: list[str], widths: list[int]) -> list[str]:
    """A row as lines: its last cell wrapped within its column, the others cut to theirs."""
    *first, last = row
    head = "  ".join(_padded(cell, size) for cell, size in zip(first, widths, strict=False))
    indent = " " * (_width(head) + 2 if first else 0)
    parts = _wrapped(last, widths[-1], continued="") if _width(last) > widths[-1] else [last]
    lines = [(head + "  " if first else "") + _padded(parts[0], widths[-1])]
    lines += [indent + _padded(part, widths[-1]) for part in parts[1:]]
    return lines


def _narrowed(
    widths: list[int], columns: list[tuple[str, ...]], text: list[bool], width: int, floor: int
) -> list[int]:
    """Widths with the widest text columns but the last cut, one column at a time, to no
    less than ``floor`` (or their header), until the table fits ``width``."""
    floors = [max(floor, _width(col[0])) for col in columns]
    widths = list(widths)
    while sum(widths) + 2 * (len(widths) - 1) > width:
        cuttable = [i for i, size in enumerate(widths[:-1]) if text[i] and size > floors[i]]
        if not cuttable:
            break  # as narrow as it goes
        widest = max(cuttable, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths


def _padded(cell: str, size: int) -> str:
    if _width(cell) > size:
        while _width(cell) > size - 1:
            cell = cell[:-1]
        cell += "…"
    return cell + " " * (size - _width(cell))


def fit(lines: list[str], width: int | None) -> str:
    """The text's lines, each longer than ``width`` wrapped at spaces (a run without one,
    Chinese text say, where it reaches the edge), continued two columns in."""
    text = "\n".join(lines)
    if width is None:
        return text
    return "\n".join(part for line in text.split("\n") for part in _wrapped(line, width))


def _wrapped(line: str, width: int, continued: str = "  ") -> list[str]:
    if _width(line) <= width:
        return [line]
    out: list[str] = []
    current = ""
    for token in re.split(r"(\s+)", line):
        if not token:
            continue
        if _width(current) + _width(token) <= width:
            current += token
            continue
        if current.strip():
            out.append(current.rstrip())
            current = continued
            token = token.lstrip()
        while _width(current) + _width(token) > width:  # no space to break at
            room = width - _width(current)
            cut = 0
            while cut < len(token) and _width(token[: cut + 1]) <= room:
                cut += 1
            out.append(current + token[:cut])
            current, token = continued, token[cut:]
        current += token
    if current.strip():
        out.append(current.rstrip())
    return out


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _word(value: str, t: Translator) -> str:
    """A value the answer gives as a word (a workload class, a site, a verdict, how a speed
    was found), in the reader's language."""
    words = {
        "transformer": t("transformer"),
        "cnn": t("cnn"),
        "rnn": t("rnn"),
        "home": t("home"),
        "office": t("office"),
        "colo": t("colocation"),
        "buy": t("buy"),
        "rent": t("rent"),
        "measured": t("measured"),
        "adjusted": t("adjusted"),
        "estimated": t("estimated"),
        "measured-locally": t("measured here"),
    }
    return words.get(value, value)


def _text(value: object) -> str:
    return escape_controls(str(value))


def _work_line(work: dict[str, Any] | None, t: Translator) -> list[str]:
    """How a described job became hours on the card, in one line; none for plain hours."""
    if not work or work["stated"] == "hours":
        return []
    line = t(
        "Work: {description} = {hours:,.1f} h on one {gpu}",
        description=work["description"],
        hours=work["gpu_hours"],
        gpu=work["gpu"],
    )
    if work["flops"]:
        line += t(
            " ({flops:.3g} FLOPs at {share:.2f} of peak)",
            flops=work["flops"],
            share=work["utilization"],
        )
    if work["memory_gb"]:
        line += t("; needs {gb:,.1f} GB", gb=work["memory_gb"])
    if "cards_bought" in work:
        line += t("; cards: {cards}", cards=work["cards_bought"])
    return [line + t(".")]


def describe_ranking(
    d: dict[str, Any], t: Translator | None = None, width: int | None = None
) -> str:
    t = t or translator(None)
    m = Asked(d)
    by_hours = d["ranked_by"] == "reference_hours_per_usd"
    per = "reference_hours_per_usd" if by_hours else "throughput_per_1000_usd"
    metric = (
        t("{gpu} h per {currency}", gpu=d["gpu"], currency=m.code)
        if by_hours
        else t("per 1,000 {currency}", currency=m.code)
    )
    rows = [
        [
            c["id"],
            c["platform"],
            f"{c['memory_gb']:g}",
            f"{m(c, 'purchase_usd'):,.0f}",
            f"{c['throughput']['relative']:.2f}",
            f"{m(c, per):.3f}",
            (t("over budget") if not c["within_budget"] else "")
            + (t("too small") if not c["fits"] else ""),
        ]
        for c in [*d["cards"], *d["too_small"]]
    ]
    rent = [
        [
            r["provider"],
            r["product"],
            r["tier"] or r["pricing"],
            f"{m(r, 'usd_per_reference_hour'):.4f}",
        ]
        for r in d["rent"]
    ]
    card_header = [t("card"), t("platform"), "GB", m.code, _word(d["workload"], t), metric]
    rent_header = [
        *(t("provider"), t("product"), t("tier")),
        t("{currency} per {gpu} h", currency=m.code, gpu=d["gpu"]),
    ]
    return fit(
        [
            *_work_line(d.get("work"), t),
            table([*card_header, t("note")], rows, width),
            "",
            table(rent_header, rent, width),
        ],
        width,
    )


def describe_gpus(
    docs: list[dict[str, Any]], t: Translator | None = None, width: int | None = None
) -> str:
    t = t or translator(None)
    rows = [
        [
            d["id"],
            f"{d['memory_gb']:g}",
            f"{d['buy']['purchase_usd']:,.0f}" if d["buy"] else "-",
            *(f"{d['throughput'][k]['relative']:.2f}" for k in ("cnn", "transformer", "rnn")),
            t("estimated")
            if d["throughput"]["transformer"]["method"] == "estimated"
            else t("measured"),
        ]
        for d in docs
    ]
    header = [t("gpu"), "GB", t("buy USD"), t("cnn"), t("transformer"), t("rnn"), t("throughput")]
    return table(header, rows, width)


def describe_offers(
    docs: list[dict[str, Any]], t: Translator | None = None, width: int | None = None
) -> str:
    """Offers a row each, the price last (a figure is never cut); in another currency when
    the offers carry its siblings (`--currency`)."""
    t = t or translator(None)
    code = next(
        (k[: -len("_per_hour")] for k in (docs[0] if docs else {}) if _PRICE.match(k)), "usd"
    )
    rows = [
        [
            d["provider"],
            d["product"],
            d["region"],
            d["accelerator"],
            str(d["count"]),
            d["pricing"],
            d["tier"] or "-",
            _as_of(d["price_as_of"], t),
            f"{d[f'{code}_per_hour']:.4f}",
        ]
        for d in docs
    ]
    header = [
        *(t("provider"), t("product"), t("region"), t("gpu"), "n", t("pricing"), t("tier")),
        *(t("as of"), t("{currency}/h", currency=code.upper())),
    ]
    return table(header, rows, width, (t("tier"),), t)


# A sibling price in another currency (cny_per_hour beside usd_per_hour): `--currency`.
_PRICE = re.compile(r"(?!usd_)[a-z]{3}_per_hour$")


def _as_of(as_of: str, t: Translator) -> str:
    """A price's date, short: "<2026-11-30" for one known only to be before a day."""
    if not as_of:
        return "-"
    if as_of.startswith("before "):
        return "<" + t.day(as_of[len("before ") :])
    return t.day(as_of)
