"""The dashboard in a real browser: system Chromium driven by Playwright against a real
`breakeven serve`. Screenshots of every view at desktop and phone width are written to
artifacts/screenshots/ (see the README)."""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from pricing.tiers import TERM_NAMES

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

SCREENSHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
VIEWS = ("prices", "freshness", "history", "calculator", "rank")
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


# Waits use locator assertions (expect), never wait_for_function: the page's CSP forbids the
# eval that a string predicate needs, which is the point of the CSP.
@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors  # type: ignore[attr-defined]
    yield page
    context.close()
    assert errors == [], f"errors in the page: {errors}"


def _open_view(page: Page, base_url: str, view: str, lang: str = "en") -> None:
    """A view as a reader finds it, its answer drawn: the ranking asked for (its form)."""
    page.goto(f"{base_url}/?view={view}&lang={lang}")
    page.wait_for_load_state("networkidle")
    if view == "rank":
        page.click("#rank-form button[type=submit]")
        page.wait_for_load_state("networkidle")


def _table_rows(page: Page) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#prices-table tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )


def _dollars(cell: str) -> float:
    return float(cell.lstrip("$").replace(",", ""))


def test_every_view_loads_with_no_request_leaving_loopback(page: Page, base_url: str) -> None:
    hosts: set[str] = set()
    page.on("request", lambda r: hosts.add(urlparse(r.url).netloc or urlparse(r.url).scheme))
    for view in VIEWS:
        page.goto(f"{base_url}/?view={view}")
        page.wait_for_load_state("networkidle")
    assert hosts <= {urlparse(base_url).netloc, "data", "blob"}, hosts
    assert page.locator("#prices-table").count() == 1


def test_table_filters_sorts_and_pages_on_the_server(page: Page, base_url: str) -> None:
    """The view asks for one page of 100 at a time, filtered and ordered by the server over
    every matching offer: the first row ascending is the cheapest of them all, and the
    next page goes on from the last."""
    downloads: list[int] = []
    page.on("response", lambda r: downloads.append(len(r.body())) if "/offers?" in r.url else None)
    page.goto(f"{base_url}/?view=prices")
    page.wait_for_selector("#prices-table tbody tr")
    every = requests.get(f"{base_url}/offers?provider=aws&limit=10000", timeout=10).json()
    with page.expect_response(lambda r: "/offers?" in r.url and "provider=aws" in r.url):
        page.select_option("#prices-form select[name=provider]", "aws")
    expect(page.locator("#prices-status")).to_contain_text(f"of {every['total']:,}")
    expect(page.locator("#prices-table tbody tr")).to_have_count(min(every["total"], 100))
    assert {row[0] for row in _table_rows(page)} == {"aws"}
    assert "provider=aws" in page.url
    expect(page.locator("#prices-status")).to_contain_text(f"of {every['total']:,}")

    by_price = page.locator("#prices-table th:has(button[data-sort=usd_per_hour])")
    with page.expect_response(lambda r: "sort=usd_per_hour" in r.url):
        page.click("#prices-table th button[data-sort=usd_per_hour]")
    expect(by_price).to_have_attribute("aria-sort", "ascending")
    ascending = [_dollars(row[7]) for row in _table_rows(page)]
    cheapest = min(o["usd_per_hour"] for o in every["offers"])
    assert ascending == sorted(ascending) and ascending[0] == pytest.approx(cheapest, abs=5e-5)
    page.click("#prices-next")
    expect(page.locator("#prices-status")).to_contain_text("offers 101\N{EN DASH}")
    later = [_dollars(row[7]) for row in _table_rows(page)]
    assert later[0] >= ascending[-1] and "page=1" in page.url
    with page.expect_response(lambda r: "sort=-usd_per_hour" in r.url):
        page.click("#prices-table th button[data-sort=usd_per_hour]")
    expect(by_price).to_have_attribute("aria-sort", "descending")
    descending = [_dollars(row[7]) for row in _table_rows(page)]
    assert descending[0] == pytest.approx(max(o["usd_per_hour"] for o in every["offers"]), abs=5e-5)
    assert max(downloads) < 400_000  # a page, never the whole catalog


def test_calculator_marks_the_breakeven_that_the_api_reports(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/?view=calculator")
    page.fill("#calc-form input[name=gpu]", "rtx4090")
    page.fill("#calc-form input[name=hours]", "2000")
    page.select_option("#calc-form select[name=workload]", "cnn")
    page.press("#calc-form input[name=hours]", "Enter")  # the keyboard submits the form
    expect(page.locator("#verdict")).to_contain_text("rtx4090")
    api = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx4090&hours=2000&workload=cnn", timeout=10
    ).json()
    datasets = "window.breakevenCharts.calc.data.datasets"
    marker = page.evaluate(f"{datasets}.find(d => d.label === 'Break-even').data[0]")
    # the chart runs over calendar days: the break-even at the bought cards' pace
    assert marker["x"] == pytest.approx(api["breakeven"]["days"], rel=1e-9)
    # the lines are the answer's curves, and the marker is a point of both buying's and the
    # cheapest rental's: the chart computes no cost of its own
    buy = page.evaluate(f"{datasets}[0].data")
    rent = page.evaluate(f"{datasets}[1].data")
    curves = api["curves"]
    assert [p["y"] for p in buy] == pytest.approx(curves["buy_usd"], rel=1e-12)
    assert [p["y"] for p in rent] == pytest.approx(curves["rent"][0]["curve_usd"], rel=1e-12)
    assert {"x": marker["x"], "y": marker["y"]} in buy
    crossing = next(p for p in rent if p["x"] == marker["x"])
    assert crossing["y"] == pytest.approx(marker["y"], rel=1e-9)
    deadline_x = page.evaluate(
        f"{datasets}.find(d => d.label.startsWith('Deadline')).data.map(p => p.x)"
    )
    assert deadline_x == pytest.approx([api["deadline"]["days"]] * 2, rel=1e-9)
    assert float(page.get_attribute("#breakeven-marker", "data-hours")) == pytest.approx(
        api["breakeven"]["hours"]
    )
    # the form state is in the URL: opening it again gives the same answer
    shared = page.url
    assert "gpu=rtx4090" in shared and "hours=2000" in shared and "workload=cnn" in shared
    page.goto(shared)
    expect(page.locator("#verdict")).to_contain_text("rtx4090")
    assert page.input_value("#calc-form input[name=hours]") == "2000"


def test_calculator_shows_the_left_out_offer_and_takes_platforms_life_and_memory(
    page: Page, base_url: str
) -> None:
    page.goto(f"{base_url}/?view=calculator")
    page.fill("#calc-form input[name=gpu]", "rtx3090")
    page.fill("#calc-form input[name=hours]", "500")
    page.press("#calc-form input[name=hours]", "Enter")
    api = requests.get(f"{base_url}/breakeven?detail=full&gpu=rtx3090&hours=500", timeout=10).json()
    best = api["left_out"]["best"]
    left_out = page.locator("#left-out")
    platforms = ", ".join(api["left_out"]["platforms"])
    expect(left_out).to_contain_text(f"{api['left_out']['offers']} offers on {platforms}")
    expect(left_out).to_contain_text(f"{best['provider']} {best['product']}")
    expect(page.locator("#gates")).to_contain_text(
        f"removed {api['memory_gate']['removed']} offers"
    )
    # all platforms, a 2-year life and a sharded 40 GB job over 2 cards, through the form
    page.select_option("#calc-form select[name=platforms]", "all")
    page.fill("#calc-form input[name=gpus]", "2")
    page.fill("#calc-form input[name=lifetime_years]", "2")
    page.fill("#calc-form input[name=total_memory]", "40")
    page.press("#calc-form input[name=hours]", "Enter")
    expect(page.locator("#gates")).to_contain_text("40 GB in all")
    asked = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx3090&hours=500&gpus=2&platforms=all"
        "&lifetime_years=2&total_memory=40",
        timeout=10,
    ).json()
    expect(left_out).to_be_hidden()
    expect(page.locator("#verdict")).to_contain_text(asked["rent"][0]["name"])
    expect(page.locator("#verdict")).to_contain_text("2-year life")
    assert "platforms=all" in page.url and "lifetime_years=2" in page.url
    assert "total_memory=40" in page.url


def test_calculator_takes_the_job_described_and_shows_its_work(page: Page, base_url: str) -> None:
    """LoRA on Llama 3 8B over 1e9 tokens, through the "describe the job" form: the answer
    is the API's, its work line says how the hours came about, and the link reopens it."""
    page.goto(f"{base_url}/?view=calculator")
    page.fill("#calc-form input[name=gpu]", "rtx4090")
    page.select_option("#calc-way", "transformer")
    expect(page.locator("#calc-form input[name=hours]")).to_be_hidden()
    expect(page.locator("#calc-workload")).to_be_disabled()
    page.select_option("#calc-form fieldset[data-way=transformer] select[name=model]", "llama-3-8b")
    page.fill("#calc-form input[name=tokens]", "1e9")
    page.select_option("#calc-form select[name=method]", "lora")
    page.click("#calc-form button[type=submit]")
    api = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx4090&model=llama-3-8b&tokens=1e9&method=lora",
        timeout=10,
    ).json()
    work = page.locator("#work")
    expect(work).to_contain_text("lora training of llama-3-8b on 1e+09 tokens")
    expect(work).to_contain_text(f"= {api['work']['gpu_hours']:.1f} h on one rtx4090")
    expect(work).to_contain_text(f"needs {api['work']['memory_gb']:.1f} GB")
    expect(page.locator("#verdict")).to_contain_text(api["rent"][0]["name"])
    shared = page.url
    assert "model=llama-3-8b" in shared and "method=lora" in shared
    assert "hours=" not in shared and "workload=" not in shared  # one way, the model's workload
    page.goto(shared)
    expect(work).to_contain_text("lora training of llama-3-8b")
    assert page.input_value("#calc-way") == "transformer"
    # a vision job, then back to hours: the job's parameters leave the link
    page.select_option("#calc-way", "vision")
    page.click("#calc-form button[type=submit]")
    expect(work).to_contain_text("full training of resnet50 on 1,281,167 images for 90 epochs")
    expect(page.locator("#verdict")).to_contain_text("of cnn training")
    page.select_option("#calc-way", "hours")
    page.click("#calc-form button[type=submit]")
    expect(work).to_be_hidden()
    assert "images=" not in page.url and "hours=500" in page.url


def test_the_calculator_takes_steady_work_and_a_deadline(page: Page, base_url: str) -> None:
    """200 h a month for 24 months, then 5,000 h in 30 days: each answer is the API's, and
    the chart's deadline line stands where the answer says every rental finished."""
    page.goto(f"{base_url}/?view=calculator")
    page.select_option("#calc-way", "steady")
    page.fill("#calc-form input[name=hours_per_month]", "200")
    page.fill("#calc-form input[name=months]", "24")
    page.click("#calc-form button[type=submit]")
    api = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx3090&hours_per_month=200&months=24", timeout=10
    ).json()
    expect(page.locator("#verdict")).to_contain_text(api["rent"][0]["name"])
    assert "hours_per_month=200" in page.url and "months=24" in page.url
    assert "hours=" not in page.url  # one way to state the work
    datasets = "window.breakevenCharts.calc.data.datasets"
    line = f"{datasets}.find(d => d.label.startsWith('Deadline')).data[0].x"
    assert page.evaluate(line) == pytest.approx(api["deadline"]["days"]) == pytest.approx(730)
    page.select_option("#calc-way", "hours")
    page.fill("#calc-form input[name=hours]", "5000")
    page.fill("#calc-form input[name=deadline_days]", "30")
    page.click("#calc-form button[type=submit]")
    api = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx3090&hours=5000&deadline_days=30", timeout=10
    ).json()
    expect(page.locator("#verdict")).to_contain_text(api["rent"][0]["name"])
    assert page.evaluate(line) == pytest.approx(30)
    assert "deadline_days=30" in page.url


def test_the_market_filter_and_the_same_card_rental_in_every_view(
    page: Page, base_url: str
) -> None:
    """The calculator names the rented RTX 3090 the API names; "clouds only" removes it;
    the prices table and the ranking take the same filter."""
    page.goto(f"{base_url}/?view=calculator")
    page.fill("#calc-form input[name=gpu]", "rtx3090")
    page.click("#calc-form button[type=submit]")
    same = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx3090&hours=500", timeout=10
    ).json()
    cheapest = same["same_card"]["cheapest"]
    times = "\N{MULTIPLICATION SIGN}"
    expect(page.locator("#gates")).to_contain_text(
        f"The same card for rent: {cheapest['count']} {times} rtx3090 on {cheapest['provider']}"
    )
    page.select_option("#calc-form select[name=market]", "cloud")
    page.click("#calc-form button[type=submit]")
    expect(page.locator("#gates")).not_to_contain_text("The same card for rent")
    assert "market=cloud" in page.url

    page.goto(f"{base_url}/?view=prices&market=secure%2Ccommunity%2Cverified%2Cunverified")
    page.wait_for_selector("#prices-table tbody tr")
    total = requests.get(
        f"{base_url}/offers?market=secure,community,verified,unverified", timeout=10
    ).json()["total"]
    expect(page.locator("#prices-table tbody tr")).to_have_count(min(total, 100))
    assert {row[0] for row in _table_rows(page)} <= {"runpod", "vast"}

    page.goto(f"{base_url}/?view=rank")
    page.select_option("#rank-form select[name=r_market]", "verified")
    page.fill("#rank-form input[name=r_hours]", "500")
    page.click("#rank-form button[type=submit]")
    expect(page.locator("#rank-rent")).to_contain_text("vast")
    expect(page.locator("#rank-rent")).not_to_contain_text("azure")


def test_the_calculator_says_what_would_have_to_be_true(page: Page, base_url: str) -> None:
    """The sentences and the tornado the API gives for the question, drawn as it gives them:
    one bar per input from what buying saves one step down to one step up."""
    page.goto(f"{base_url}/?view=calculator")
    page.fill("#calc-form input[name=gpu]", "rtx4090")
    page.fill("#calc-form input[name=hours]", "8000")
    page.select_option("#calc-form select[name=workload]", "cnn")
    page.click("#calc-form button[type=submit]")
    api = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx4090&hours=8000&workload=cnn&sensitivity=all",
        timeout=10,
    ).json()
    expect(page.locator("#what-if")).to_be_visible()
    sentences = page.locator("#sentences li")
    expect(sentences).to_have_count(len(api["sensitivity"]["sentences"]))
    expect(sentences.first).to_have_text(api["sensitivity"]["sentences"][0])
    bars = page.evaluate("window.breakevenCharts.tornado.data.datasets[0].data")

    def signed(swing: dict) -> float:  # type: ignore[type-arg]
        return swing["savings_usd"] if swing["verdict"] == "buy" else -swing["savings_usd"]

    expected = [[signed(p["low"]), signed(p["high"])] for p in api["sensitivity"]["parameters"]]
    assert bars == [pytest.approx(pair) for pair in expected]
    expect(page.locator("#ranges")).to_contain_text(api["ranges"]["note"])
    assert "sensitivity" not in page.url  # the link keeps the question, not the view's extras


def test_freshness_view_calls_old_prices_stale_and_shows_their_dates(
    page: Page, base_url: str
) -> None:
    """The bundled catalog was loaded seconds ago; its prices are years old or of unknown
    age: the view says Stale and gives the dates, as /providers does."""
    (bundled,) = requests.get(f"{base_url}/providers", timeout=10).json()["providers"]
    page.goto(f"{base_url}/?view=freshness")
    item = page.locator("#freshness-list li").first
    expect(item).to_contain_text("bundled: Stale")
    prices = bundled["prices"]
    expect(item).to_contain_text(f"priced {prices['oldest_as_of']} to {prices['newest_as_of']}")
    expect(item).to_contain_text(f"{prices['unknown_age']:,} of unknown age")
    assert "stale" in (item.get_attribute("class") or "")
    # no `breakeven scheduler` runs beside this server: the view says refreshes wait for a
    # person, as /providers does, before any source's line
    line = page.locator("#freshness-scheduler")
    expect(line).to_have_text(
        "No scheduler is running: prices refresh only when someone asks for it."
    )
    assert "stale" in (line.get_attribute("class") or "")


def test_csv_download_matches_the_visible_rows(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/?view=prices&provider=gcp&pricing=spot")
    page.wait_for_selector("#prices-table tbody tr")
    visible = _table_rows(page)
    with page.expect_download() as info:
        page.click("#download-csv")
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text())))
    assert len(rows) == len(visible) > 0
    assert [r["product"] for r in rows] == [v[1] for v in visible]
    assert all(r["provider"] == "gcp" and r["pricing"] == "spot" for r in rows)


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("width", WIDTHS)
def test_screenshots_of_every_view(browser: Browser, base_url: str, width: str, lang: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h})
    page = context.new_page()
    suffix = "" if lang == "en" else f"-{lang}"
    for view in VIEWS:
        page.goto(f"{base_url}/?view={view}&lang={lang}")
        page.wait_for_load_state("networkidle")
        target = SCREENSHOTS / f"{view}-{width}{suffix}.png"
        page.screenshot(path=str(target), full_page=True)
        assert target.stat().st_size > 10_000
        # nothing wider than the screen but the scrollable table
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{view} at {width} is {overflow}px too wide"
    context.close()


# What a value under each English heading looks like, written here apart from the script
# so a row shifted by one cell shows: a tier under "per hour", a price under a date. A heading
# not listed fails the test, so a new column states its values.
_SIGN = "[-\N{MINUS SIGN}+]?"
_MONEY = _SIGN + r"\$[\d,]+(\.\d+)?"
_NUMBER = r"[\d,]+(\.\d+)?"
_DAY = r"(before )?\d{4}(-\d{2}(-\d{2})?)?"
_NAME = r"[a-z][a-z0-9_.-]*"
_TIER = r"on_demand|spot|interruptible|reserved_1y|reserved_3y|compute_units|committed"
_VALUES = {
    "Provider": _NAME,
    "Product": r"\S.*",
    "Region": r"\S*",
    "Accelerator": _NAME,
    "Card": _NAME,
    "n": r"\d+",
    "Pricing": _TIER,
    "Tier": _TIER,
    "per hour": _MONEY,
    "per accelerator-hour": _MONEY,
    "per unit of work": _MONEY,
    "Price as of": _DAY,
    "Day": _DAY,
    "From": _DAY,
    "To": _DAY,
    "Lowest": _MONEY,
    "Last": _MONEY,
    "Before (USD/h)": _MONEY,
    "After (USD/h)": _MONEY,
    "Change": _SIGN + r"\d+(\.\d+)?%",
    "Best offer": _NAME + r" \S+( .*)?",
    "Total": _MONEY,
    "Wall-clock h": _NUMBER,
    "Against buying": r"(renting|buying) is cheaper.*",
    "Line": r"\S.*",
    "Input": _NAME,
    "Step": r"\S.*",
    "Buying saves, one step down": _MONEY,
    "Buying saves, one step up": _MONEY,
    "Platform": _NAME,
    "GB": _NUMBER,
    "Price": _MONEY,
    "Note": r".*",
}
_HEADED = (  # headings that carry a figure of their own: the value's shape by the heading's
    (re.compile(r"At [\d,.]+ h of work"), _MONEY),
    (re.compile(r"USD per \S+ hour"), _MONEY),
    (re.compile(r"(throughput|hours of work) per [\d,]* ?USD"), _NUMBER),
)
_TABLES = """() => [...document.querySelectorAll("section:not([hidden]) table")].map((table) => {
  const shown = (cell) => getComputedStyle(cell).display !== "none";
  const cells = (row) => [...row.cells].filter(shown).map((c) => c.textContent.trim());
  const head = table.tHead && table.tHead.rows.length ? table.tHead.rows[0] : table.rows[0];
  const inHead = (row) => row === head || (table.tHead !== null && table.tHead.contains(row));
  const body = [...table.rows].filter((row) => !inHead(row));
  const headed = head && [...head.cells].every((c) => c.tagName === "TH");
  const first = body.length ? cells(body[0]) : null;
  return { id: table.id, head: headed ? cells(head) : null, first };
})"""


def _value_shape(heading: str) -> str:
    if heading in _VALUES:
        return _VALUES[heading]
    for pattern, shape in _HEADED:
        if pattern.fullmatch(heading):
            return shape
    raise AssertionError(f"no value shape for the heading {heading!r}: add it to _VALUES")


@pytest.mark.parametrize("width", [390, 1400])
def test_every_table_puts_each_value_under_its_heading(
    browser: Browser, base_url: str, width: int
) -> None:
    """Every view's tables, read as a person sees them at a phone's and a desktop's width:
    as many cells shown in the first row as headings shown, and each value the kind its
    heading names. The prices table's first row is also the API's first offer, field by
    field under the heading of that field (the issue-57 review: one cell too many put every
    price under the next column's heading, and on a phone hid the prices)."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    checked: dict[str, list[str]] = {}
    offer: dict = {}  # type: ignore[type-arg]
    for view in VIEWS:
        if view == "prices":  # the offers the table was drawn from
            with page.expect_response(lambda r: "/offers?" in r.url) as response:
                page.goto(f"{base_url}/?view={view}")
            offer = response.value.json()["offers"][0]
        else:
            page.goto(f"{base_url}/?view={view}")
        page.wait_for_load_state("networkidle")
        if view == "rank":
            page.click("#rank-form button[type=submit]")
            expect(page.locator("#rank-rent tbody tr, #rank-rent tr").first).to_be_visible()
        for table in page.evaluate(_TABLES):
            if not table["first"] or table["head"] is None:
                continue
            head, first = table["head"], table["first"]
            assert len(first) == len(head), (view, table["id"], head, first)
            for heading, value in zip(head, first, strict=True):
                shape = _value_shape(heading)
                assert re.fullmatch(shape, value), (view, table["id"], heading, value)
            checked[table["id"]] = head
        if view == "prices":
            head = checked["prices-table"]
            row = dict(zip(head, page.evaluate(_TABLES)[0]["first"], strict=True))
            assert row["Provider"] == offer["provider"]
            assert row["Accelerator"] == offer["accelerator"]
            assert _dollars(row["per accelerator-hour"]) == pytest.approx(
                offer["usd_per_accelerator_hour"], abs=5e-5
            )
            if width > 600:  # every column on a desktop
                assert row["Product"] == offer["product"] and row["Tier"] == offer["tier"]
                assert _dollars(row["per hour"]) == pytest.approx(offer["usd_per_hour"], abs=5e-5)
                assert row["Price as of"] == offer["price_as_of"]
                assert int(row["n"]) == offer["count"]
            else:  # a phone keeps whose and which card, its price per accelerator-hour and date
                assert head == ["Provider", "Accelerator", "per accelerator-hour", "Price as of"]
    context.close()
    # the views' tables with a heading row, all read
    assert {"prices-table", "history-changes", "tiers", "rank-rent", "rank-cards"} <= set(checked)


def test_never_pays_off_gives_the_answers_reason(page: Page, base_url: str) -> None:
    """Eight A100s for 500 card-hours: the page says why as the answer does (the rental
    is dearer than owning's running costs, by too little to repay the cards today), not
    that the rental costs less than the electricity (the issue-57 review)."""
    question = "gpu=a100-80gb&gpus=8&hours=500"
    page.goto(f"{base_url}/?view=calculator&{question}")
    why = requests.get(f"{base_url}/breakeven?detail=full&{question}", timeout=10).json()[
        "never_because"
    ]
    verdict = page.locator("#verdict")
    expect(verdict).to_contain_text(f"costs ${why['rent_usd_per_hour']:,.2f} per hour of work")
    expect(verdict).to_contain_text(f"only ${why['margin_usd_per_hour']:,.2f} more")
    expect(verdict).not_to_contain_text("electricity")


def test_which_card_charts_every_card_of_the_ranking(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/?view=rank&r_workload=cnn&r_memory=16&r_budget=2000")
    expect(page.locator("#rank-status")).to_contain_text("per 1,000 USD")
    api = requests.get(f"{base_url}/rank?workload=cnn&memory=16&budget=2000", timeout=10).json()
    labels = page.evaluate("window.breakevenCharts.rank.data.labels")
    assert labels == [f"{c['id']} · {c['platform']}" for c in [*api["cards"], *api["too_small"]]]
    expect(page.locator("#rank-rent tr")).to_have_count(len(api["rent"]) + 1)


def test_content_security_policy_allows_only_this_origin(base_url: str) -> None:
    policy = requests.get(f"{base_url}/", timeout=10).headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "http" not in policy  # no third-party origin anywhere


def test_the_calculator_sets_every_tier_beside_the_headline(page: Page, base_url: str) -> None:
    """Each pricing tier's best offer, its total and its verdict, as the API gives them; the
    headline's tier is marked; a tier chosen in the form reaches the API and the link."""
    page.goto(f"{base_url}/?view=calculator")
    page.fill("#calc-form input[name=gpu]", "rtx3090")
    page.fill("#calc-form input[name=hours]", "500")
    page.press("#calc-form input[name=hours]", "Enter")
    api = requests.get(f"{base_url}/breakeven?detail=full&gpu=rtx3090&hours=500", timeout=10).json()
    # a committed term no offer of does the work is left out of the table
    shown = [t for t in api["tiers"] if t["best"] is not None or t["tier"] not in TERM_NAMES]
    rows = page.locator("#tiers tr")
    expect(rows).to_have_count(1 + len(shown))
    cells = page.eval_on_selector_all(
        "#tiers tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )
    for row, tier in zip(cells[1:], shown, strict=True):
        assert row[0] == tier["tier"]
        if tier["best"] is not None:
            assert tier["best"]["product"] in row[1]
            assert row[2] == f"${tier['total_usd']:,.2f}"  # grouped, as people write it
    year = next(row for row in cells[1:] if row[0] == "reserved_1y")
    assert "term paid" in year[4]
    headline = page.locator("#tiers tr.headline td").first
    expect(headline).to_have_text(api["compared_with"]["tier"])

    assumptions = page.locator("#calc-form details", has=page.locator("select[name=pricing]"))
    assumptions.locator("summary").click()
    # spot only: the headline moves to the spot tier (with pricing=any the on-demand Vast.ai
    # host stays the cheapest since the Azure A100 is priced at its PCIe card's speed)
    page.select_option("#calc-form select[name=pricing]", "spot")
    page.press("#calc-form input[name=hours]", "Enter")
    expect(page.locator("#tiers tr.headline td").first).to_have_text("spot")
    assert "pricing=spot" in page.url


def test_the_calculator_asks_the_upgrade_question_at_a_site(page: Page, base_url: str) -> None:
    """own= and site= from the form reach the API; the breakdown itemizes the site's costs,
    the present value and each path for the owned card, as the API gives them."""
    page.goto(f"{base_url}/?view=calculator")
    page.fill("#calc-form input[name=gpu]", "rtx4090")
    page.fill("#calc-form input[name=hours]", "2000")
    assumptions = page.locator("#calc-form details", has=page.locator("select[name=site]"))
    assumptions.locator("summary").click()
    page.fill("#calc-form input[name=own]", "rtx3090")
    page.select_option("#calc-form select[name=site]", "colo")
    page.press("#calc-form input[name=hours]", "Enter")
    expect(page.locator("#breakdown")).to_contain_text("You own a rtx3090: keep")
    assert "own=rtx3090" in page.url and "site=colo" in page.url
    api = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx4090&hours=2000&own=rtx3090&site=colo", timeout=10
    ).json()
    text = page.locator("#breakdown").inner_text()
    assert "Buy: site (colocation): colo, support, staff" in text
    assert (
        f"${api['buy']['present_usd']:,.2f}" in text or f"${api['buy']['present_usd']:.2f}" in text
    )


def test_the_history_view_draws_a_line_per_provider_and_tier_and_lists_the_changes(
    page: Page, base_url: str
) -> None:
    """Offline: the recorded prices (2023 on) and the store's own day, one line per
    provider and tier, as /offers/series gives them; AWS's 2025-06 P5 cut among the changes."""
    api = requests.get(f"{base_url}/offers/series?accelerator=h100-sxm", timeout=10).json()
    lines = sorted(f"{x['provider']} {x['pricing']}" for x in api["lines"])
    page.goto(f"{base_url}/?view=history&h_accelerator=h100-sxm")
    first = min(x["days"][0] for x in api["lines"])
    expect(page.locator("#history-status")).to_contain_text(f"{len(lines)} lines")
    expect(page.locator("#history-status")).to_contain_text(f"from {first}")
    labels = page.evaluate("window.breakevenCharts.history.data.datasets.map(d => d.label)")
    assert sorted(labels) == lines and len(lines) >= 6
    rows = page.locator("#history-changes tbody tr")
    expect(rows).to_have_count(len(api["changes"]))
    cut = rows.filter(has_text="2025-06-23")
    expect(cut).to_contain_text("aws")
    expect(cut).to_contain_text("-44.0%")
    page.fill("#history-form input[name=since]", "2026-01-01")
    page.dispatch_event("#history-form input[name=since]", "change")
    expect(page.locator("#history-status")).to_contain_text("from 2026-")


# -- the reader's language and currency (issue 35) -----------------------------------------


def _yuan(cell: str) -> float:
    return float(cell.replace("¥", "").replace("CN", "").replace(",", "").strip())


def test_every_view_in_chinese(page: Page, base_url: str) -> None:
    """Each view with ?lang=zh-CN: its headings, controls and the text the script writes
    are Chinese, amounts are in yuan at the answer's rate, dates as Chinese write them."""
    page.goto(f"{base_url}/?view=prices&lang=zh-CN")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.locator("header nav")).to_contain_text("价格")
    expect(page.locator("header nav")).to_contain_text("租还是买？")
    expect(page.locator("#view-prices h2")).to_have_text("当前报价")
    expect(page.locator("#prices-status")).to_contain_text("条报价")
    api = requests.get(f"{base_url}/offers?limit=1&currency=CNY", timeout=10).json()
    first = api["offers"][0]
    page.select_option("#prices-form select[name=provider]", first["provider"])
    page.wait_for_selector("#prices-table tbody tr")
    rows = _table_rows(page)
    assert all(row[7].startswith("¥") for row in rows)  # the yuan sign, not dollars
    for row in rows:  # a whole day in Chinese; a month alone as it came, never a made-up day
        assert re.fullmatch(r"\d{4}年\d{1,2}月\d{1,2}日(之前)?|\d{4}-\d{2}", row[10]), row[10]
        assert not re.search(r"\d{4}-\d{2}-\d{2}", row[10]), row[10]

    page.goto(f"{base_url}/?view=freshness&lang=zh-CN")
    expect(page.locator("#view-freshness h2")).to_have_text("价格来源")
    expect(page.locator("#freshness-list li").first).to_contain_text("已过期")
    expect(page.locator("#freshness-list li").first).to_contain_text("价格日期")
    expect(page.locator("#freshness-scheduler")).to_contain_text("没有运行中的调度器")

    page.goto(f"{base_url}/?view=history&lang=zh-CN")
    expect(page.locator("#view-history h2")).to_have_text("价格历史")
    expect(page.locator("#history-status")).to_contain_text("条曲线")
    expect(page.locator("#history-changes thead")).to_contain_text("变动前")

    page.goto(f"{base_url}/?view=calculator&lang=zh-CN&gpu=rtx4090&hours=500&country=CN")
    answer = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx4090&hours=500&country=CN&currency=CNY&sensitivity=all",
        timeout=10,
    ).json()
    verdict = page.locator("#verdict")
    expect(verdict).to_contain_text("更便宜")
    expect(verdict).to_contain_text(f"{answer['fx']['per_usd']:.4f} CNY")
    saved = f"¥{answer['savings_cny']:,.2f}"
    expect(verdict).to_contain_text(saved)
    expect(page.locator("#breakdown")).to_contain_text(f"¥{answer['buy']['total_cny']:,.2f}")
    expect(page.locator("#breakdown")).to_contain_text("购买：合计")
    expect(page.locator("#tiers")).to_contain_text("最优报价")
    expect(page.locator("#gates")).to_contain_text("显存门槛")
    expect(page.locator("#gates")).to_contain_text("电价：")
    expect(page.locator("#sentences li").first).to_contain_text("当前")
    expect(page.locator("[data-currency]").first).to_have_text("CNY")
    # the chart is drawn in yuan: the buy line ends where the answer's model says
    datasets = "window.breakevenCharts.calc.data.datasets"
    times = "\N{MULTIPLICATION SIGN}"
    label = page.evaluate(f"{datasets}[0].label")
    assert label == f"购买 {answer['buy']['gpus']} {times} rtx4090"
    model = answer["buy"]["model"]
    assert page.evaluate(f"{datasets}[0].data[0].y") == pytest.approx(
        model["capex_cny"] - model["resale_start_cny"], rel=1e-9
    )

    page.goto(f"{base_url}/?view=rank&lang=zh-CN")
    expect(page.locator("#view-rank h2")).to_have_text("哪张卡每花一元钱训练得最多？")
    page.click("#rank-form button[type=submit]")
    expect(page.locator("#rank-status")).to_contain_text("灰色：显存不足")
    expect(page.locator("#rank-rent")).to_contain_text("每 rtx3090 小时的 CNY")


# Words a Chinese page may show in Latin letters: names of products, platforms and units that
# are written so in Chinese too, and the commands and settings a reader types.
LATIN_NAMES = frozenset(
    {
        *("spot", "transformer", "cnn", "rnn", "token", "gpu", "tpu", "cuda", "rocm", "xla"),
        *("nvidia", "geforce", "rtx", "tesla", "amd", "instinct", "runpod", "vast", "secure"),
        *("cny", "usd", "eur", "pue", "tflops", "gb", "kwh", "breakeven", "refresh"),
        *("scheduler", "post", "breakeven_refresh_cron", "ai", "csv"),
    }
)


def _latin_words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_]+", text)}


def test_the_chinese_page_has_no_english_words_outside_names(page: Page, base_url: str) -> None:
    """Every view in zh-CN, as shown: any word in Latin letters is a name (a provider, a
    product, a region, a card, a platform, a model) or one of LATIN_NAMES; no English word
    from the page, the script or an answer's own English text (the issue-57 review: "host:
    desktop; resale: bought used: worth what was paid", "verified", "on_demand")."""
    names: set[str] = set(LATIN_NAMES)
    offers = requests.get(f"{base_url}/offers?limit=10000", timeout=30).json()["offers"]
    for offer in offers:
        for key in ("provider", "product", "region", "zone", "accelerator"):
            names |= _latin_words(str(offer[key] or ""))
    for card in requests.get(f"{base_url}/gpus", timeout=10).json()["gpus"]:
        names |= _latin_words(f"{card['id']} {card['name']} {card.get('platform') or ''}")
    for source in requests.get(f"{base_url}/providers", timeout=10).json()["providers"]:
        names |= _latin_words(source["name"])
    for model in requests.get(f"{base_url}/models", timeout=10).json()["models"]:
        names |= _latin_words(model["id"])
    found: dict[str, set[str]] = {}
    for view in VIEWS:
        _open_view(page, base_url, view, "zh-CN")
        shown = page.evaluate("document.querySelector('main').innerText")
        english = _latin_words(shown) - names
        if english:
            found[view] = english
    assert found == {}, found


def test_the_currency_chosen_carries_to_every_answer(page: Page, base_url: str) -> None:
    """In English with euros chosen: the amounts are the answer's EUR siblings, the link
    keeps the currency, and the assumptions' money fields say it."""
    page.goto(f"{base_url}/?view=calculator&gpu=rtx3090&hours=500")
    expect(page.locator("#verdict")).to_contain_text("$")
    page.select_option("#currency", "EUR")
    answer = requests.get(
        f"{base_url}/breakeven?detail=full&gpu=rtx3090&hours=500&currency=EUR", timeout=10
    ).json()
    expect(page.locator("#verdict")).to_contain_text(f"€{answer['savings_eur']:,.2f}")
    expect(page.locator("#verdict")).to_contain_text("1 USD = ")
    assert "currency=EUR" in page.url
    expect(page.locator("[data-currency]").first).to_have_text("EUR")
    page.goto(page.url.replace("view=calculator", "view=prices"))
    page.wait_for_selector("#prices-table tbody tr")
    assert all(row[7].startswith("€") for row in _table_rows(page)[:20])


def test_the_language_links_keep_the_question(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/?view=calculator&gpu=rtx4090&hours=700")
    expect(page.locator("#verdict")).to_contain_text("rtx4090")
    page.click("a[data-lang='zh-CN']")
    expect(page.locator("#verdict")).to_contain_text("rtx4090")
    expect(page.locator("#verdict")).to_contain_text("700 小时")
    assert page.input_value("#calc-form input[name=hours]") == "700"
    expect(page.locator("a[data-lang='zh-CN']")).to_have_attribute("aria-current", "true")


# -- every view at a phone's and a desktop's width, with an accessibility check ------------

AXE = Path(
    os.environ.get("BREAKEVEN_AXE", Path(__file__).parent / ".axe/node_modules/axe-core/axe.min.js")
)
A11Y_WIDTHS = {"phone": (390, 844), "desktop": (1400, 900)}


def _violations(page: Page) -> list[dict]:  # type: ignore[type-arg]
    """axe-core's violations on the page as it stands (WCAG 2.x A and AA rules)."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async () => (await axe.run(document, {
            runOnly: {type: "tag",
                      values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
            resultTypes: ["violations"],
        })).violations.map(v => ({id: v.id, impact: v.impact,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(" "))}))"""
    )


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("width", A11Y_WIDTHS)
def test_every_view_passes_an_accessibility_check(
    browser: Browser, base_url: str, width: str, lang: str
) -> None:
    """axe-core on every view, open at the width of a phone and of a desktop: no violation
    of WCAG 2.2 A/AA rules (contrast, names, labels, landmarks ...), no page wider than the
    screen, and on a phone the calculator's verdict above its form."""
    assert AXE.exists(), f"{AXE} is missing: `make test` installs axe-core"
    w, h = A11Y_WIDTHS[width]
    # axe runs as a script the page's CSP would refuse: the check alone gets past it
    context = browser.new_context(viewport={"width": w, "height": h}, bypass_csp=True)
    page = context.new_page()
    found = {}
    for view in VIEWS:
        _open_view(page, base_url, view, lang)
        found[view] = _violations(page)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{view} at {w}px is {overflow}px too wide"
        if view == "calculator":
            verdict = page.locator("#verdict").bounding_box()
            form = page.locator("#calc-form").bounding_box()
            assert verdict and form
            if width == "phone":
                assert verdict["y"] < form["y"], "the verdict should lead on a phone"
                assert verdict["y"] < h, "the verdict should be on the first screen"
    context.close()
    assert {view: v for view, v in found.items() if v} == {}
