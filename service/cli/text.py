"""Answers as text a person reads at a terminal; `--json` prints the documents instead.

Offer text (provider, product, region, notes) comes from imports and live sources, so each
value put in a line or a table cell is escaped (pricing/controls.py): a terminal must show an
escape sequence, never act on it, and a line break in a cell must not break the table.
"""

from __future__ import annotations

from typing import Any

from pricing.controls import escape_controls


def _own_lines(own: dict[str, Any] | None) -> list[str]:
    """own=: keep the owned card, upgrade or rent, each path's cost."""
    if own is None:
        return []
    lines = [
        f"OWN {own['gpu']}: sells now for {own['sale_usd']:,.2f} USD after fees; "
        f"best: {own['best']}"
    ]
    for path in own["paths"]:
        cost = "cannot" if path["present_usd"] is None else f"{path['present_usd']:,.2f} USD"
        lines.append(f"  {path['name']:<8} {cost:>14}  {path['note']}")
    return lines


def _currency_lines(d: dict[str, Any]) -> list[str]:
    """--currency, --country: the headline amounts in the currency asked, at its rate."""
    fx = d.get("fx")
    if not fx or fx["currency"] == "USD":
        return []
    code = fx["currency"].lower()
    buy, cheapest = d["buy"], d["rent"][0]
    stale = f", {fx['age_days']} days old (STALE)" if fx["stale"] else ""
    lines = [
        f"IN {fx['currency']}: buy {buy[f'total_{code}']:,.2f}, the cheapest rental "
        f"{cheapest[f'total_{code}']:,.2f} ({_text(cheapest['provider'])}); 1 USD = "
        f"{fx['per_usd']:.4f} {fx['currency']} (ECB, {fx['as_of']}{stale})"
    ]
    if d.get("tariff"):
        lines.append(f"ELECTRICITY: {_text(d['tariff']['note'])}")
    return lines


def describe_quote(d: dict[str, Any]) -> str:
    """The /breakeven answer: buy, the cheapest rentals, the verdict, the assumptions."""
    buy, a = d["buy"], d["assumptions"]
    lines = [f"{d['hours']:g} h of {d['workload']} training on {buy['gpus']} x {d['gpu']}"]
    lines += _work_line(d.get("work"))
    lines += [
        "",
        f"BUY   {buy['total_usd']:>12,.2f} USD  = cards {buy['purchase_usd']:,.2f}"
        f" + host {buy['host_usd']:,.2f} + network {buy['network_usd']:,.2f}"
        f" + energy {buy['energy_usd']:,.2f} + site {buy['site_usd']:,.2f}"
        f" - resale {buy['resale_usd']:,.2f}  ({buy['hours']:,.1f} busy h,"
        f" {buy['wall_clock_hours']:,.0f} h of calendar time, {buy['site']})",
        f"      {buy['present_usd']:>12,.2f} USD  in today's money at discount_rate "
        f"{a['discount_rate']:g} (site: colo {buy['colo_usd']:,.2f}, support "
        f"{buy['support_usd']:,.2f}, staff {buy['staff_usd']:,.2f})",
    ]
    deadline = d["deadline"]
    if deadline["hours"] is not None:
        lines.append(
            f"DEADLINE {deadline['days']:,.1f} days ({deadline['hours']:,.0f} h): "
            f"{deadline['basis']}"
        )
    header = [
        *("provider", "product", "region", "pricing", "USD/h", "x", "wall h", "total USD"),
        *("b/e h", "speed"),
    ]
    rows = [
        [
            r["provider"],
            r["product"],
            r["region"],
            r["pricing"],
            f"{r['usd_per_hour']:.4f}",
            str(r["instances"]),
            f"{r['wall_clock_hours']:,.1f}",
            f"{r['total_usd']:,.2f}",
            "never" if r["breakeven_hours"] is None else f"{r['breakeven_hours']:,.0f}",
            r["throughput"]["method"],
        ]
        for r in d["rent"]
    ]
    compared = d["compared_with"]
    lines += [
        "",
        f"RENT (cheapest first; pricing={compared['pricing']}: {', '.join(compared['admits'])})",
        table(header, rows),
        "",
    ]
    verdict = d["verdict"].upper()
    lines.append(
        f"VERDICT: {verdict}, saving {d['savings_usd']:,.2f} USD in today's money "
        f"(against the cheapest {compared['tier']} rental)"
    )
    lines += _own_lines(d.get("own"))
    lines += _currency_lines(d)
    be = d["breakeven"]
    if be and be["within_life"]:
        lines.append(
            f"Buying pays off after {be['hours']:,.0f} h of work"
            f" (~{be['days']:,.0f} days at {a['utilization']:.0%} utilization),"
            f" within the cards' {be['life_years']:g}-year life."
        )
    elif be:
        lines.append(
            f"Buying does not pay off within the cards' {be['life_years']:g}-year life"
            f" ({be['life_hours']:,.0f} h of work at {a['utilization']:.0%} utilization);"
            f" the costs would cross only after {be['crossing_hours']:,.0f} h."
        )
    else:
        lines.append("Buying never pays off: the cheapest rental costs less than the power.")
    if d.get("left_out"):
        left, best = d["left_out"], d["left_out"]["best"]
        lines.append(
            f"Left out ({', '.join(left['platforms'])}: {left['offers']} offers; your code "
            f"would need porting): best {_text(best['provider'])} {_text(best['product'])} "
            f"{best['total_usd']:,.2f} USD. Ask with --platforms all."
        )
    if d["rent"][0].get("sessions"):
        cheapest = d["rent"][0]
        lines.append(f"{_text(cheapest['provider'])}: {_text(cheapest['sessions']['note'])}.")
    if d.get("cheapest_measured"):
        m = d["cheapest_measured"]
        lines.append(
            f"The cheapest rental's speed is an estimate; the cheapest with a measured speed: "
            f"{_text(m['provider'])} {_text(m['product'])} {m['total_usd']:,.2f} USD."
        )
    lines += ["", "TIERS (the best of each way of renting, same work and deadline)"]
    lines.append(
        table(["tier", "provider", "product", "total USD", "wall h", "verdict"], _tiers(d))
    )
    gate = d["memory_gate"]
    need = " and ".join(
        text
        for text in (
            gate["per_accelerator_gb"] and f"{gate['per_accelerator_gb']:g} GB per accelerator",
            gate["total_gb"] and f"{gate['total_gb']:g} GB in all",
        )
        if text
    )
    lines.append(f"Memory gate ({need}) removed {gate['removed']} offers.")
    stale = " (STALE)" if d["prices"]["stale"] else ""
    lines.append(f"Cheapest rental priced as of {d['prices']['as_of']}{stale}.")
    lines.append("Assumptions: " + ", ".join(f"{k}={v}" for k, v in a.items()))
    return "\n".join(lines + _what_would_have_to_be_true(d))


def _tiers(d: dict[str, Any]) -> list[list[str]]:
    """A row per pricing tier: its best offer and its verdict against buying; a committed
    one says the terms it pays for, an interruptible one that it may be taken back."""
    rows = []
    for tier in d["tiers"]:
        best = tier["best"]
        if best is None:
            rows.append([tier["tier"], "-", "none does the work", "-", "-", "-"])
            continue
        verdict = tier["verdict"]
        if best["commitment"]:
            c = best["commitment"]
            verdict += f" ({c['terms']} x {c['term_hours']:,.0f} h term paid, "
            verdict += f"{c['used_instance_hours']:,.0f} of {c['paid_instance_hours']:,.0f} used)"
        elif tier["interruptible"]:
            verdict += " (may be taken back mid-run)"
        rows.append(
            [
                tier["tier"],
                best["provider"],
                best["product"],
                f"{tier['total_usd']:,.2f}",
                f"{tier['wall_clock_hours']:,.1f}",
                verdict,
            ]
        )
    return rows


def _what_would_have_to_be_true(d: dict[str, Any]) -> list[str]:
    """The sensitivity's sentences and the ranges' verdict (`--explain`), when asked."""
    if not d.get("sensitivity"):
        return []
    lines = ["", "WHAT WOULD HAVE TO BE TRUE"]
    lines += [f"- {text}" for text in d["sensitivity"]["sentences"]]
    r = d["ranges"]
    offers = r["offers"]
    lines.append(
        f"Rent side: {offers['offers']} offers of {offers['accelerator']} cost "
        f"{offers['p10_usd']:,.0f} / {offers['p50_usd']:,.0f} / {offers['p90_usd']:,.0f} USD "
        f"(P10/P50/P90); speeds +-{r['speed']['spread']:.0%} put the cheapest at "
        f"{r['speed']['low_usd']:,.0f}-{r['speed']['high_usd']:,.0f} USD; {r['note']}."
    )
    return lines


def table(header: list[str], rows: list[list[str]]) -> str:
    rows = [[_text(cell) for cell in row] for row in rows]
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=False)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(fmt.format(*row) for row in [header, *rows])


def _text(value: object) -> str:
    return escape_controls(str(value))


def _work_line(work: dict[str, Any] | None) -> list[str]:
    """How a described job became hours on the card, in one line; none for plain hours."""
    if not work or work["stated"] == "hours":
        return []
    line = f"Work: {work['description']} = {work['gpu_hours']:,.1f} h on one {work['gpu']}"
    if work["flops"]:
        line += f" ({work['flops']:.3g} FLOPs at {work['utilization']:.2f} of peak)"
    if work["memory_gb"]:
        line += f"; needs {work['memory_gb']:,.1f} GB"
    if "cards_bought" in work:
        line += f"; cards: {work['cards_bought']}"
    return [line + "."]


def describe_ranking(d: dict[str, Any]) -> str:
    by_hours = d["ranked_by"] == "reference_hours_per_usd"
    metric = f"{d['gpu']} h per USD" if by_hours else "per $1,000"
    rows = [
        [
            c["id"],
            f"{c['memory_gb']:g}",
            f"{c['purchase_usd']:,.0f}",
            f"{c['throughput']['relative']:.2f}",
            f"{(c['reference_hours_per_usd'] if by_hours else c['throughput_per_1000_usd']):.3f}",
            ("" if c["within_budget"] else "over budget") + ("" if c["fits"] else "too small"),
        ]
        for c in [*d["cards"], *d["too_small"]]
    ]
    rent = [
        [
            r["provider"],
            r["product"],
            r["tier"] or r["pricing"],
            f"{r['usd_per_reference_hour']:.4f}",
        ]
        for r in d["rent"]
    ]
    return "\n".join(
        [
            *_work_line(d.get("work")),
            table(["card", "GB", "USD", d["workload"], metric, "note"], rows),
            "",
            table(["provider", "product", "tier", f"USD per {d['gpu']} h"], rent),
        ]
    )


def describe_gpus(docs: list[dict[str, Any]]) -> str:
    rows = [
        [
            d["id"],
            f"{d['memory_gb']:g}",
            f"{d['buy']['purchase_usd']:,.0f}" if d["buy"] else "-",
            *(f"{d['throughput'][k]['relative']:.2f}" for k in ("cnn", "transformer", "rnn")),
            "estimated" if d["throughput"]["transformer"]["method"] == "estimated" else "measured",
        ]
        for d in docs
    ]
    header = ["gpu", "GB", "buy USD", "cnn", "transformer", "rnn", "throughput"]
    return table(header, rows)


def describe_offers(docs: list[dict[str, Any]]) -> str:
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
            d["price_as_of"],
        ]
        for d in docs
    ]
    header = ["provider", "product", "region", "gpu", "n", "pricing", "tier", "USD/h", "as of"]
    return table(header, rows)
