"""Fuzzing the REST API from its own /openapi.json: schemathesis, in process over WSGI.

Every operation the spec lists is fuzzed three ways, each a bounded, derandomized Hypothesis
run (the same cases every time):

- positive: requests the schema accepts. Known accelerator ids and aliases are mixed into
  the parameters that name a card (most cases), or nearly every case would be a 404, and
  half the cases leave out the parameters that, random, leave nothing to answer;
- negative: requests the schema rejects (where it constrains anything), which must be refused;
- undeclared: a positive request plus query parameters the spec does not declare; every
  endpoint refuses them (400 naming each), a query model or not. This is the only variety
  a parameterless endpoint (/gpus, /health ...) has.

Every response must: not be a 5xx; have a documented status, content type, headers and body
(schemathesis' not_a_server_error, status_code_conformance, content_type_conformance,
response_headers_conformance, response_schema_conformance, and negative_data_rejection for
negative cases); and, for a 4xx, be an RFC 9457 application/problem+json ProblemDocument.
POST /refresh is fuzzed without an admin token (every answer 403) and with one that no case
knows (every answer 401 with WWW-Authenticate), so no refresh ever starts.

The cases per operation and mode are printed and written to artifacts/fuzz_counts.json; each
operation must reach MIN_CASES, and the operations that can succeed must have succeeded often
enough that their success bodies were checked against the schema.
"""

from __future__ import annotations

import json
import string
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from flask import Response, request
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from hardware import load_hardware
from service.http.app import create_app
from service.http.problems import PROBLEM_JSON
from service.http.schemas import ProblemDocument
from service.http.security import MAX_QUERY_BYTES

pytestmark = pytest.mark.system  # a system-level test: `make check` leaves it out

ARTIFACT = Path(__file__).resolve().parents[1] / "artifacts" / "fuzz_counts.json"

# Every operation of the spec; test_the_spec_lists_exactly_these_operations keeps it whole.
OPERATIONS = [
    ("GET", "/breakeven"),
    ("GET", "/gpus"),
    ("GET", "/gpus/{gpu_id}"),
    ("GET", "/models"),
    ("GET", "/offers"),
    ("GET", "/offers/history"),
    ("GET", "/offers/series"),
    ("GET", "/providers"),
    ("GET", "/health"),
    ("GET", "/ready"),
    ("GET", "/metrics"),
    ("POST", "/refresh"),
    ("GET", "/rank"),
]
# Routes that serve no API operation: the dashboard, its assets, and the spec itself.
NOT_OPERATIONS = {"/", "/static/<path:filename>", "/openapi.json", "/docs", "/docs/oauth2-redirect"}

MAX_EXAMPLES = {GenerationMode.POSITIVE: 120, GenerationMode.NEGATIVE: 80, "undeclared": 60}
MIN_CASES = 50  # per operation: a run that silently generates nothing fails
# Successful answers each operation must have produced, so its 200 schema was exercised.
# Derandomized is not fixed: Hypothesis also draws constants from the modules a session has
# imported, so the same code generates other cases in a full run than alone (/breakeven:
# 28 of 260 in CI's full run, 31 alone, 39-40 with one line of `run` changed). Each bar sits
# well under what any session has produced.
MIN_OK = {
    "/breakeven": 20,
    "/gpus": 1,
    "/gpus/{gpu_id}": 30,
    "/models": 1,
    "/offers": 20,
    "/offers/history": 30,
    "/offers/series": 30,
    "/providers": 1,
    "/health": 1,
    "/ready": 1,
    "/metrics": 1,
    "/refresh": 0,
    "/rank": 30,
}
# Statuses a schema-valid request may get (besides the 2xx).
POSITIVE_REFUSALS = {
    # 400: the work stated in no way or two (one of hours, a reference run, a job: no
    # schema says "exactly one of"); 404: unknown card; 422: nothing to compare
    "/breakeven": {400, 404, 422},
    "/gpus/{gpu_id}": {404},
    # 400: workload without gpu or gpu without workload, or an `at` in the future;
    # 422: an `at` before the first stored run
    "/offers": {400, 404, 422},
    "/offers/history": {400, 404},  # 400: since matches the pattern but no calendar day
    "/offers/series": {400, 404},  # the same
    # 400: a job sized past MAX_HOURS (tokens=1e15); 404: unknown card; 422: a precision
    # the card does not train in
    "/rank": {400, 404, 422},
}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

_HW = load_hardware()
# Ids and a few aliases of every accelerator, in several spellings.
KNOWN_CARDS = sorted(
    {acc.id for acc in _HW.registry}
    | {alias for acc in _HW.registry for alias in list(acc.aliases)[:2]}
    | {"3090", "RTX 3090", "A100", "nvidia-tesla-t4"}
)
# Parameters naming a card: (container, name) per operation path.
CARD_PARAMETERS = {
    "/breakeven": [("query", "gpu")],
    "/gpus/{gpu_id}": [("path_parameters", "gpu_id")],
    "/offers": [("query", "accelerator"), ("query", "gpu")],
    "/offers/history": [("query", "accelerator")],
    "/offers/series": [("query", "accelerator")],
    "/rank": [("query", "gpu")],
}
# Parameters that, generated at random, leave nothing to answer: filters that match no
# rental (/breakeven: 422) or no row (an empty list), a precision the card named does not
# train in (422), workload and gpu, which go together (one without the other: 400), and a
# US state, which a random country other than the US refuses (400).
# Half the positive cases go without them.
DROPPED_HALF_THE_TIME = {
    "/breakeven": ("providers", "region", "memory", "precision", "state"),
    "/rank": ("precision", "state"),
    "/offers": ("provider", "region", "pricing", "workload", "gpu", "sort"),
    "/offers/history": ("provider", "region", "pricing"),
}
# The ways to state the work on /breakeven and /rank, exactly one per question (/rank: or
# none): a positive case keeps one way's parameters (filling the required ones with a known
# value where generation left them out) and drops the others', or nearly every case would
# be a 400. A named model decides the workload, so a stated one goes with it.
WORK_WAYS: dict[str, dict[str, Any]] = {
    "hours": {"hours": 500},
    "steady": {"hours_per_month": 200, "months": 12},
    "reference_run": {"ref_gpu": "a100-80gb", "ref_count": 8, "ref_hours": 40},
    "transformer": {"model": "llama-3-8b", "tokens": 1e9},
    "vision": {"model": "resnet50", "images": 1_281_167, "epochs": 90},
    "none": {},
}
# A transformer job's parameters besides its model and tokens: kept with that way only.
JOB_DETAILS = {"param_count", "method", "active_param_count", "seq_len", "micro_batch"}
WORK_PARAMETERS = JOB_DETAILS | {n for way in WORK_WAYS.values() for n in way}
HEADER_TEXT = string.ascii_letters + string.digits + string.punctuation + " "

COUNTS: dict[str, dict[str, Any]] = {}


@pytest.fixture(scope="module", autouse=True)
def _report_counts(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the module: the cases per operation, printed past pytest's capture and saved."""
    yield
    if not COUNTS:
        return
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(json.dumps(COUNTS, indent=2, sort_keys=True) + "\n")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    lines = [
        f"fuzz: {label} {c['cases']} cases ("
        + ", ".join(f"{mode} {c[mode]}" for mode in ("positive", "negative", "undeclared"))
        + "; statuses "
        + " ".join(f"{s}:{n}" for s, n in sorted(c["statuses"].items()))
        + ")"
        for label, c in sorted(COUNTS.items())
    ]
    with capture.global_and_fixture_disabled():
        print("\n" + "\n".join(lines) + f"\nfuzz: counts written to {ARTIFACT}", flush=True)


# An explicit Config: no schemathesis.toml from the working directory changes the run. An
# invalid request must be refused with one of these (the default list allows 5xx too).
CONFIG = {"checks": {"negative_data_rejection": {"expected-statuses": [400, 401, 403, 404, 414]}}}


QUERY_BYTES = "X-Fuzz-Query-Bytes"


def _schema(app) -> Any:  # type: ignore[no-untyped-def]
    """The app's own spec, loaded over WSGI, the app told to report each query's size."""

    @app.after_request
    def _query_bytes(response: Response) -> Response:
        # The size the app saw: werkzeug's test client encodes a query its own way.
        response.headers[QUERY_BYTES] = str(len(request.query_string))
        return response

    config = schemathesis.Config.from_dict(CONFIG)
    return schemathesis.openapi.from_wsgi("/openapi.json", app, config=config)


def _steered(strategy: st.SearchStrategy, path: str) -> st.SearchStrategy:
    """Each card parameter mostly a known id or alias, else as generated; and half the time
    without the parameters that, random, leave nothing to answer."""
    names = CARD_PARAMETERS.get(path, [])
    dropped = DROPPED_HALF_THE_TIME.get(path, ())
    if not names and not dropped:
        return strategy
    # st.one_of favours its first branch: mostly a known card.
    picks = st.tuples(*[st.one_of(st.sampled_from(KNOWN_CARDS), st.none()) for _ in names])

    def steer(drawn: tuple[Any, tuple[str | None, ...], bool, str]) -> Any:
        case, values, drop, way = drawn
        for (container, name), value in zip(names, values, strict=True):
            if value is not None:
                getattr(case, container)[name] = value
        if drop and case.query:
            case.query = {k: v for k, v in case.query.items() if k not in dropped}
        if path in ("/breakeven", "/rank"):
            case.query = _one_way(case.query or {}, way if path == "/rank" else way or "hours")
        return case

    ways = st.sampled_from(
        ["hours", "hours", "steady", "reference_run", "transformer", "vision", ""]
    )
    return st.tuples(strategy, picks, st.booleans(), ways).map(steer)


def _one_way(query: dict[str, Any], way: str) -> dict[str, Any]:
    """``query`` stating the work one way (``""``: none): that way's parameters kept (its
    required ones filled where generation left them out), the other ways' dropped."""
    own = set(WORK_WAYS[way or "none"])
    own |= JOB_DETAILS if way == "transformer" else set()
    kept = {k: v for k, v in query.items() if k not in WORK_PARAMETERS - own}
    required = dict(WORK_WAYS[way or "none"])
    if "param_count" in kept:  # a job sized by its parameter count names no model
        required.pop("model")
        kept.pop("model", None)
    if "model" in required:
        kept.pop("workload", None)  # the model's own
    return {**required, **kept}


def _with_undeclared(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """A positive case plus 1-3 query parameters the spec does not declare (x_...)."""
    junk = st.dictionaries(
        st.text(string.ascii_lowercase + string.digits + "_", min_size=1, max_size=10).map(
            lambda name: f"x_{name}"
        ),
        st.text(max_size=20),
        min_size=1,
        max_size=3,
    )

    def add(pair: tuple[Any, dict[str, str]]) -> Any:
        case, extra = pair
        case.query = {**(case.query or {}), **extra}
        return case

    return st.tuples(strategy, junk).map(add)


def _with_authorization(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """No Authorization header, a bare one, or a Bearer/Basic token no configuration has."""
    value = st.one_of(
        st.none(),
        st.text(HEADER_TEXT, max_size=40),
        st.tuples(
            st.sampled_from(["Bearer ", "bearer ", "Basic ", "Bearer  "]),
            st.text(HEADER_TEXT, max_size=40),
        ).map("".join),
    ).map(lambda header: None if header is None else header.lstrip())  # as HTTP allows

    def add(pair: tuple[Any, str | None]) -> Any:
        case, header = pair
        if header is not None:
            case.headers = {**(case.headers or {}), "Authorization": header}
        return case

    return st.tuples(strategy, value).map(add)


def _check_problem(response: Any, path: str) -> dict[str, Any]:
    """A 4xx is an RFC 9457 document: its media type, its model, its status echoed."""
    (content_type,) = response.headers["content-type"]
    assert content_type.split(";")[0].strip() == PROBLEM_JSON, content_type
    body = json.loads(response.content)
    problem = ProblemDocument.model_validate(body)
    assert problem.status == response.status_code
    assert problem.instance.startswith("/") and problem.title and problem.detail
    assert problem.type.startswith("urn:gpu-breakeven:problem:") or problem.type == "about:blank"
    assert "Traceback" not in response.content.decode("utf-8", "replace")
    if response.status_code == 400:
        assert problem.errors, body  # a 400 names the parameters to blame
    return body


def _fuzz(
    operation: Any,
    mode: GenerationMode | str,
    counts: dict[str, Any],
    expect: Callable[[Any, Any, GenerationMode | str], None],
) -> None:
    """Run one bounded, derandomized Hypothesis search over one operation and mode."""
    path = operation.path
    if mode == "undeclared":
        strategy = _with_undeclared(operation.as_strategy(GenerationMode.POSITIVE))
        checks = CHECKS
    elif mode == GenerationMode.POSITIVE:
        strategy = _steered(operation.as_strategy(mode), path)
        checks = CHECKS
    else:
        strategy = operation.as_strategy(mode)
        checks = [*CHECKS, negative_data_rejection]
    if path == "/refresh":
        strategy = _with_authorization(strategy)
    key = mode if isinstance(mode, str) else mode.value

    @settings(
        max_examples=MAX_EXAMPLES[mode],
        derandomize=True,  # the same cases on every run and machine
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: schemathesis prints the case
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(case=strategy)
    def run(case: Any) -> None:
        counts[key] += 1
        counts["cases"] += 1
        # The WSGI client hands back the bytes as sent: a gzipped body would not parse
        # (tests/test_http_caching.py checks the gzip; here the answers themselves).
        case.headers = {**(case.headers or {}), "Accept-Encoding": "identity"}
        response = case.call()
        counts["statuses"][str(response.status_code)] += 1
        case.validate_response(response, checks=checks)
        assert response.status_code < 500
        if 400 <= response.status_code < 500:
            _check_problem(response, path)
        # Any operation refuses a query string over the limit, before anything else.
        (query_bytes,) = response.headers[QUERY_BYTES.lower()]
        if int(query_bytes) > MAX_QUERY_BYTES:
            assert response.status_code == 414, response.status_code
            return
        assert response.status_code != 414
        expect(case, response, mode)

    run()


def _expect_documented(case: Any, response: Any, mode: GenerationMode | str) -> None:
    """What each mode may get back, beyond the schema: the statuses it allows."""
    path = case.operation.path
    status = response.status_code
    if mode == GenerationMode.POSITIVE:
        assert status < 300 or status in POSITIVE_REFUSALS.get(path, set()), status
        if path == "/offers" and status in (400, 422):
            query = case.query or {}
            named = {e["parameter"] for e in json.loads(response.content)["errors"]}
            # a moment in the future (400) or before the first run (422); a `sort` that
            # names no field of the rows (the pattern admits any name); else workload and
            # gpu, which go together
            if not named <= {"at", "sort"}:
                assert (query.get("workload") is None) != (query.get("gpu") is None), query
        if path == "/offers/history" and status == 400:
            named = {e["parameter"] for e in json.loads(response.content)["errors"]}
            assert named == {"since"}, named
    elif mode == GenerationMode.NEGATIVE:
        # negative_data_rejection has judged it: some invalid values serialize to a valid
        # query (an object parameter that encodes to nothing), and are rightly answered.
        return
    else:
        # Every operation refuses unknown parameters: 400, naming each one (POST /refresh
        # too, but it answers 401/403 before looking at them).
        assert status == 400, status
        named = {e["parameter"] for e in json.loads(response.content)["errors"]}
        undeclared = {name for name in case.query if name.startswith("x_")}
        assert undeclared <= named, (undeclared, named)


def _modes(operation: Any) -> list[GenerationMode | str]:
    # A schema that constrains nothing (no parameters, or one free-form path string) has no
    # invalid request to generate; Hypothesis would report it unsatisfiable.
    constrained = operation.path not in {
        "/gpus",
        "/health",
        "/ready",
        "/metrics",
        "/providers",
        "/models",
    } and (operation.path != "/gpus/{gpu_id}")
    return [
        GenerationMode.POSITIVE,
        *([GenerationMode.NEGATIVE] if constrained else []),
        "undeclared",
    ]


def _new_counts() -> dict[str, Any]:
    return {"cases": 0, "positive": 0, "negative": 0, "undeclared": 0, "statuses": Counter()}


def _record(label: str, counts: dict[str, Any]) -> None:
    COUNTS[label] = {**counts, "statuses": dict(counts["statuses"])}


def test_the_spec_lists_exactly_these_operations(app) -> None:  # type: ignore[no-untyped-def]
    spec = app.test_client().get("/openapi.json").get_json()
    documented = {
        (method.upper(), path)
        for path, item in spec["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert documented == set(OPERATIONS)
    # and every API route the app serves is in the spec
    routed = {
        (method, rule.rule.replace("<", "{").replace(">", "}"))
        for rule in app.url_map.iter_rules()
        if rule.rule not in NOT_OPERATIONS
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    assert routed == documented
    # every documented 4xx is a problem document
    for path, item in spec["paths"].items():
        for operation in item.values():
            for status, response in operation["responses"].items():
                if status.startswith("4"):
                    assert list(response["content"]) == [PROBLEM_JSON], (path, status)
                    schema = response["content"][PROBLEM_JSON]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ProblemDocument"}


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_fuzz_operation(app, method: str, path: str) -> None:  # type: ignore[no-untyped-def]
    operation = _schema(app)[path][method]
    counts = _new_counts()

    def expect(case: Any, response: Any, mode: GenerationMode | str) -> None:
        if path == "/refresh":
            # No BREAKEVEN_ADMIN_TOKEN: the endpoint is off, whatever is sent.
            assert response.status_code == 403, response.status_code
            assert json.loads(response.content)["type"].endswith("admin-disabled")
        else:
            _expect_documented(case, response, mode)

    for mode in _modes(operation):
        _fuzz(operation, mode, counts, expect)
    _record(f"{path} {method}", counts)
    assert counts["cases"] >= MIN_CASES, counts
    ok = sum(n for status, n in counts["statuses"].items() if status.startswith("2"))
    assert ok >= MIN_OK[path], counts


def test_fuzz_refresh_with_a_token_configured(settings) -> None:  # type: ignore[no-untyped-def]
    token = "fuzz-token-" + "0123456789abcdef" * 2  # no generated header carries it
    app = create_app(settings.model_copy(update={"admin_token": SecretStr(token)}))
    app.config["TESTING"] = True
    try:
        operation = _schema(app)["/refresh"]["POST"]
        counts = _new_counts()

        def expect(case: Any, response: Any, mode: GenerationMode | str) -> None:
            assert response.status_code == 401, response.status_code
            (challenge,) = response.headers["www-authenticate"]
            assert challenge.startswith("Bearer ")
            assert token not in response.content.decode("utf-8", "replace")

        for mode in _modes(operation):
            _fuzz(operation, mode, counts, expect)
        _record("/refresh POST (token set)", counts)
        assert counts["cases"] >= MIN_CASES, counts
        # nothing was refreshed: the bundled run is still the only one
        runs = app.extensions["breakeven"].store.provider_status()
        assert [s.adapter for s in runs] == ["bundled"]
    finally:
        app.extensions["breakeven"].store.dispose()


# Regressions: what the fuzzer found, pinned down case by case.


def test_since_takes_iso_dates_only(client) -> None:  # type: ignore[no-untyped-def]
    # pydantic alone read since=2026 as 2026 seconds after 1970
    for since in ("2026", "-6.103515625e-05", "1700000000"):
        response = client.get(f"/offers/history?since={since}")
        assert response.status_code == 400 and response.mimetype == PROBLEM_JSON, since
        assert [e["parameter"] for e in response.get_json()["errors"]] == ["since"]
    for since in ("2026-11-01", "2026-11-01T12:00", "2026-11-01T12:00:00Z"):
        assert client.get(f"/offers/history?since={since}").status_code == 200, since


def test_vanishing_hours_and_utilization_are_refused(client) -> None:  # type: ignore[no-untyped-def]
    # hours=5e-324 priced every rental at 0 (break-even "never"); utilization=5e-324 made the
    # break-even days infinite, served as null where the schema promises a number
    for query in ("hours=5e-324", "hours=500&utilization=5e-324"):
        response = client.get(f"/breakeven?detail=full&gpu=rtx3090&{query}")
        assert response.status_code == 400, query
    # undiscounted: 0.1 % utilization stretches the calendar 1,000-fold, and the crossing
    # is the same whatever the question's hours
    slow = "/breakeven?detail=full&gpu=rtx3090&utilization=0.001&discount_rate=0"
    tiny = client.get(f"{slow}&hours=0.001").get_json()
    usual = client.get(f"{slow}&hours=500").get_json()
    assert tiny["breakeven"]["hours"] == pytest.approx(usual["breakeven"]["hours"])
    assert tiny["breakeven"]["days"] == pytest.approx(usual["breakeven"]["days"])
    # discounted at 10 % over that calendar, renting for ever is worth less now than buying:
    # never, whatever the hours
    slow = slow.replace("discount_rate=0", "discount_rate=0.1")
    for hours in ("0.001", "500"):
        assert client.get(f"{slow}&hours={hours}").get_json()["breakeven"] is None


def test_refresh_refuses_before_reading_its_parameters(settings) -> None:  # type: ignore[no-untyped-def]
    # a caller without the token got 400s describing the parameters
    off = create_app(settings)
    on = create_app(settings.model_copy(update={"admin_token": SecretStr("t0ken-for-tests")}))
    try:
        assert off.test_client().post("/refresh?force=maybe&x=1").status_code == 403
        refused = on.test_client().post("/refresh?force=maybe&x=1")
        assert refused.status_code == 401 and refused.headers["WWW-Authenticate"]
        allowed = on.test_client().post(
            "/refresh?force=maybe", headers={"Authorization": "Bearer t0ken-for-tests"}
        )
        assert allowed.status_code == 400  # with the token, the parameters are checked
    finally:
        for app in (off, on):
            app.extensions["breakeven"].store.dispose()


def test_metrics_and_csv_answer_what_the_spec_says(client) -> None:  # type: ignore[no-untyped-def]
    spec = client.get("/openapi.json").get_json()["paths"]
    metrics = client.get("/metrics")
    assert metrics.headers["Content-Type"].count("charset") == 1  # Flask added a second one
    assert list(spec["/metrics"]["get"]["responses"]["200"]["content"]) == ["text/plain"]
    for path in ("/offers", "/offers/history"):
        assert client.get(f"{path}?format=csv").mimetype == "text/csv"
        content = spec[path]["get"]["responses"]["200"]["content"]
        assert set(content) == {"application/json", "text/csv"}


def test_rank_survives_free_ownership_and_vanishing_utilization(client) -> None:  # type: ignore[no-untyped-def]
    # full resale, no host and no power made the TCO 0, and hours / TCO a 500; so did
    # utilization=5e-324, through the resale decay
    free = (
        "hours=500&resale=1&depreciation=0&host_cost=0&electricity=0&discount_rate=0"
        "&site=home"  # no rack, support or staff (a whole node's site costs otherwise)
    )
    response = client.get(f"/rank?{free}")
    assert response.status_code == 200
    cards = response.get_json()["cards"]
    assert cards and all(c["tco_usd"] == 0 and c["reference_hours_per_usd"] is None for c in cards)
    assert client.get("/rank?hours=500&utilization=5e-324").status_code == 400
    spec = client.get("/openapi.json").get_json()["paths"]["/rank"]["get"]["responses"]
    assert spec["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RankAnswer"
    }
