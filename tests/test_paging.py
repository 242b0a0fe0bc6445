"""List endpoints answer a page at a time, with a link to the next page (hostile run: one
/offers answer was 44 MB for a 100,000-offer catalog, and four clients looping on it starved
/health)."""

from __future__ import annotations

import gzip
import json
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from pricing.offer import PricingModel
from pricing.store import utcnow
from service.documents.queries import PAGE_DEFAULT, PAGE_MAX
from tests.helpers import offer

EXTRA = 2_500  # custom offers on top of the bundled snapshot: three default pages


def _many(app) -> int:  # type: ignore[no-untyped-def]
    store = app.extensions["breakeven"].store
    rows = [
        offer(
            product=f"box-{i}",
            accelerator="rtx3090",
            usd_per_hour=1 + i / 1000,
            pricing=PricingModel.ON_DEMAND,
        )
        for i in range(EXTRA)
    ]
    store.record_run("custom", rows, utcnow(), "test")
    return len(store.current_offers())


def test_offers_come_in_pages_that_walk_the_catalog_once(app, client) -> None:  # type: ignore[no-untyped-def]
    total = _many(app)
    response = client.get("/offers")
    first = response.get_json()
    assert first["count"] == PAGE_DEFAULT and first["total"] == total
    seen, page, pages = [], first, 0
    while True:
        pages += 1
        seen += [
            (o["provider"], o["product"], o["region"], o["pricing"], o["purchase_option"])
            for o in page["offers"]
        ]
        if page["next"] is None:
            assert "Link" not in response.headers
            break
        assert response.headers["Link"] == f'<{page["next"]}>; rel="next"'
        response = client.get(page["next"])
        page = response.get_json()
    assert pages == -(-total // PAGE_DEFAULT)
    assert len(seen) == total == len(set(seen))


def test_the_next_link_keeps_the_filters_and_the_link_header_says_it(app, client) -> None:  # type: ignore[no-untyped-def]
    _many(app)
    response = client.get("/offers?provider=custom&limit=1000&format=csv")
    link = response.headers["Link"]
    assert link.startswith("</offers?") and link.endswith('>; rel="next"')
    asked = parse_qs(urlsplit(link[1 : -len('>; rel="next"')]).query)
    assert asked.pop("at")  # the catalog this page read (below)
    assert asked == {"provider": ["custom"], "format": ["csv"], "offset": ["1000"]}
    assert len(response.get_data(as_text=True).splitlines()) == 1 + 1000
    last = client.get("/offers?provider=custom&offset=2000").get_json()
    assert last["count"] == EXTRA - 2000 and last["next"] is None
    assert "Link" not in client.get("/offers?provider=custom&offset=2000").headers


def test_a_page_larger_than_the_maximum_is_refused(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/offers?limit={PAGE_MAX + 1}")
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["parameter"] == "limit"
    assert client.get(f"/offers/history?limit={PAGE_MAX + 1}").status_code == 400


def test_history_pages_keep_their_window(app, client) -> None:  # type: ignore[no-untyped-def]
    _many(app)
    since = (utcnow() - timedelta(days=1)).isoformat()
    first = client.get("/offers/history", query_string={"provider": "custom", "limit": 1000})
    body = first.get_json()
    assert body["count"] == 1000 and body["next"] is not None
    assert "since=" in body["next"]  # the window resolved on the first page, not "30 days ago"
    points = body["points"]
    while body["next"]:
        body = client.get(body["next"]).get_json()
        points += body["points"]
    assert len(points) == EXTRA
    assert len({p["product"] for p in points}) == EXTRA
    assert client.get("/offers/history", query_string={"since": since}).status_code == 200


def test_a_walk_stays_on_the_catalog_it_started_on_while_a_run_lands(app, client) -> None:  # type: ignore[no-untyped-def]
    """Hostile run 3, #12: `next` kept the filters but not the run, so a walk during imports
    drew pages from two catalogs (half of one file, half of another)."""
    store = app.extensions["breakeven"].store

    def catalog(name: str, size: int) -> list:  # type: ignore[type-arg]
        return [
            offer(product=f"{name}-{i}", accelerator="rtx3090", usd_per_hour=1 + i / 1000)
            for i in range(size)
        ]

    store.record_run("custom", catalog("cA", 1_000), utcnow(), "cA")
    page = client.get("/offers?provider=custom&limit=400").get_json()
    products = [o["product"] for o in page["offers"]]
    store.record_run("custom", catalog("cB", 1_500), utcnow(), "cB")  # lands mid-walk
    while page["next"]:
        page = client.get(page["next"]).get_json()
        products += [o["product"] for o in page["offers"]]
    assert len(products) == 1_000 == len(set(products))
    assert {p.split("-")[0] for p in products} == {"cA"}
    fresh = client.get("/offers?provider=custom&limit=400").get_json()
    assert fresh["total"] == 1_500 and fresh["offers"][0]["product"].startswith("cB")


def test_offers_sort_before_paging_and_pages_keep_the_order(client) -> None:  # type: ignore[no-untyped-def]
    """`sort` orders every matching row before the page is cut: page two starts where page
    one ended, and `next` keeps the order."""
    first = client.get("/offers?sort=-usd_per_hour&limit=50").get_json()
    second = client.get(first["next"]).get_json()
    prices = [o["usd_per_hour"] for o in first["offers"] + second["offers"]]
    assert prices == sorted(prices, reverse=True)
    every = client.get("/offers?limit=10000").get_json()["offers"]
    assert prices[0] == max(o["usd_per_hour"] for o in every)
    work = "/offers?workload=transformer&gpu=rtx3090&sort=usd_per_reference_hour&limit=20"
    cheapest = [o["usd_per_reference_hour"] for o in client.get(work).get_json()["offers"]]
    assert cheapest == sorted(cheapest)
    for query, reason in (
        ("sort=colour", "not a field of the rows"),
        ("sort=usd_per_reference_hour", "needs `workload` and `gpu`"),
        ("sort=--x", "pattern"),
    ):
        response = client.get(f"/offers?{query}")
        assert response.status_code == 400, query
        (error,) = response.get_json()["errors"]
        assert error["parameter"] == "sort" and reason in error["reason"], error


@pytest.mark.parametrize("detail", ["full", "compact"])
def test_a_large_page_is_validated_in_chunks_to_the_same_answer(app, detail: str) -> None:  # type: ignore[no-untyped-def]
    """A page of thousands of offers is validated 250 at a time (each call into pydantic
    holds the GIL, and a heavy read's thread shares it with /health's loop): the answer is
    the one a single validation gives, member for member and in order."""
    from service.documents.offers import offers_document
    from service.documents.queries import OffersQuery
    from service.http.routes import offers as route
    from service.http.schemas import OfferList

    _many(app)
    query = OffersQuery.model_validate({"limit": PAGE_MAX, "detail": detail})
    with app.test_request_context():
        document = offers_document(query, app.extensions["breakeven"])
    assert len(document["offers"]) > 4 * route.VALIDATED_CHUNK
    whole = route._validated(OfferList, document, only_given=True)
    chunked = route._validated_page(document, only_given=True)
    assert json.dumps(chunked) == json.dumps(whole)


def test_a_large_page_is_gzipped_in_its_heavy_read(app, client) -> None:  # type: ignore[no-untyped-def]
    """Compressed where it is read, off the event loop, not in the after-request hook on
    it (a 10,000-offer page is about 15 ms of gzip on the bundled catalog's 3,786 offers)."""
    from service.http import compression

    _many(app)
    plain = client.get(f"/offers?limit={PAGE_MAX}", headers={"Accept-Encoding": "identity"})
    hooked: list[bool] = []
    original = compression.compress

    def watched(response, accepted):  # type: ignore[no-untyped-def]
        hooked.append("Content-Encoding" in response.headers)
        return original(response, accepted)

    compression.compress = watched
    try:
        zipped = client.get(f"/offers?limit={PAGE_MAX}", headers={"Accept-Encoding": "gzip"})
    finally:
        compression.compress = original
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.data) == plain.data
    assert hooked == [True]  # the hook found it compressed already: gzipped once, in the read
