"""Answers as text a person reads at a terminal, in the reader's language (service/i18n);
`--json` prints the documents instead.

Offer text (provider, product, region, notes) comes from imports and live sources, so each
value put in a line or a table cell is escaped (pricing/controls.py): a terminal must show an
escape sequence, never act on it, and a line break in a cell must not break the table. The
documents' own sentences (sources, notes, the sensitivity's) are the API's and stay in English.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from pricing.controls import escape_controls
from service.documents.money import sibling
from service.i18n import Translator, translator


class _Money:
    """The answer's amounts in the currency it was asked in (``currency=``, ``country=``):
    each dollar amount's sibling (total_usd -> total_cny), dollars where none was asked."""

    def __init__(self, d: dict[str, Any]) -> None:
        fx = d.get("fx") or {}
        self.code: str = fx.get("currency") or "USD"

    def __call__(self, holder: dict[str, Any], key: str) -> Any:
        return holder[key] if self.code == "USD" else holder[sibling(key, self.code)]


def _own_lines(own: dict[str, Any] | None, m: _Money, t: Translator) -> list[str]:
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
    code = fx["currency"].lower()
    buy, cheapest = d["buy"], d["rent"][0]
    stale = t(", {days} days old (STALE)", days=fx["age_days"]) if fx["stale"] else ""
    lines = [
        t(
            "IN {currency}: buy {buy:,.2f}, the cheapest rental {rent:,.2f} ({provider}); "
            "1 USD = {rate:.4f} {currency} (ECB, {day}{stale})",
            currency=fx["currency"],
            buy=buy[f"total_{code}"],
            rent=cheapest[f"total_{code}"],
            provider=_text(cheapest["provider"]),
            rate=fx["per_usd"],
            day=t.day(fx["as_of"]),
            stale=stale,
        )
    ]
    if d.get("tariff"):
        lines.append(t("ELECTRICITY: {note}", note=_text(d["tariff"]["note"])))
    return lines


def describe_quote(d: dict[str, Any], t: Translator | None = None) -> str:
    """The /breakeven answer: buy, the cheapest rentals, the verdict, the assumptions."""
    t = t or translator(None)
    m = _Money(d)
    buy, a = d["buy"], d["assumptions"]
    lines = [
        t(
            "{hours:g} h of {workload} training on {gpus} x {gpu}",
            hours=d["hours"],
            workload=_word(d["workload"], t),
            gpus=buy["gpus"],
            gpu=d["gpu"],
        )
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
            cards=m(buy, "purchase_usd"),
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
    compared = d["compared_with"]
    lines += [
        "",
        t(
            "RENT (cheapest first; pricing={pricing}: {admits})",
            pricing=compared["pricing"],
            admits=", ".join(compared["admits"]),
        ),
        table(header, rows),
        "",
        t(
            "VERDICT: {verdict}, saving {savings:,.2f} {currency} in today's money (against "
            "the cheapest {tier} rental)",
            verdict=t("BUY") if d["verdict"] == "buy" else t("RENT"),
            savings=m(d, "savings_usd"),
            currency=m.code,
            tier=compared["tier"],
        ),
    ]
    lines += _own_lines(d.get("own"), m, t)
    lines += _currency_lines(d, t)
    lines.append(_breakeven_line(d["breakeven"], a["utilization"], t))
    lines += _notes(d, m, t)
    lines += ["", t("TIERS (the best of each way of renting, same work and deadline)")]
    tier_header = [t("tier"), t("provider"), t("product"), t("total {currency}", currency=m.code)]
    lines.append(table([*tier_header, t("wall h"), t("verdict")], _tiers(d, m, t)))
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
    lines.append(t("Assumptions: ") + ", ".join(f"{k}={v}" for k, v in a.items()))
    return "\n".join(lines + _what_would_have_to_be_true(d, m, t))


def _breakeven_line(be: dict[str, Any] | None, utilization: float, t: Translator) -> str:
    if be and be["within_life"]:
        return t(
            "Buying pays off after {hours:,.0f} h of work (~{days:,.0f} days at {share:.0%} "
            "utilization), within the cards' {years:g}-year life.",
            hours=be["hours"],
            days=be["days"],
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
    return t("Buying never pays off: the cheapest rental costs less than the power.")


def _notes(d: dict[str, Any], m: _Money, t: Translator) -> list[str]:
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


def _tiers(d: dict[str, Any], m: _Money, t: Translator) -> list[list[str]]:
    """A row per pricing tier: its best offer and its verdict against buying; a committed
    one says the terms it pays for, an interruptible one that it may be taken back."""
    rows = []
    for tier in d["tiers"]:
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


def _what_would_have_to_be_true(d: dict[str, Any], m: _Money, t: Translator) -> list[str]:
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


def table(header: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, counted in terminal columns: a Chinese
    character takes two."""
    rows = [[_text(cell) for cell in row] for row in rows]
    widths = [max(_width(str(c)) for c in col) for col in zip(header, *rows, strict=False)]
    return "\n".join(
        "  ".join(
            cell + " " * (width - _width(cell)) for cell, width in zip(row, widths, strict=False)
        )
        for row in [header, *rows]
    )


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


def describe_ranking(d: dict[str, Any], t: Translator | None = None) -> str:
    t = t or translator(None)
    m = _Money(d)
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
    return "\n".join(
        [
            *_work_line(d.get("work"), t),
            table([t("card"), "GB", m.code, _word(d["workload"], t), metric, t("note")], rows),
            "",
            table(
                [
                    *(t("provider"), t("product"), t("tier")),
                    t("{currency} per {gpu} h", currency=m.code, gpu=d["gpu"]),
                ],
                rent,
            ),
        ]
    )


def describe_gpus(docs: list[dict[str, Any]], t: Translator | None = None) -> str:
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
    return table(header, rows)


def describe_offers(docs: list[dict[str, Any]], t: Translator | None = None) -> str:
    t = t or translator(None)
    rows = [
        [
            d["provider"],
            d["product"],
            d["region"],
            d["accelerator"],
            str(d["count"]),
            d["pricing"],
            d["tier"] or "-",
            f"{d['usd_per_hour']:.4f}",
            t.day(d["price_as_of"]) if d["price_as_of"] else "-",
        ]
        for d in docs
    ]
    header = [
        *(t("provider"), t("product"), t("region"), t("gpu"), "n", t("pricing"), t("tier")),
        *(t("USD/h"), t("as of")),
    ]
    return table(header, rows)
