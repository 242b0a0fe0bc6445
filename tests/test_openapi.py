"""/openapi.json as tools read it: a valid OpenAPI 3.1 document that a client generator
turns into a complete, typed client.

A client generated with openapi-python-client once dropped the /gpus/{gpu_id} and /offers
responses: APIFlask registered nested models once per parent ("GpuList.GpuOut" beside
"GpuOut", "OfferList.Freshness" and "RankAnswer.Freshness"), the generator names classes by
title, and the copies clashed; the tags Hardware and Prices were declared twice. Here the
document is validated, every answer is checked against the schema its operation names, and
a client is generated (offline, in about a second) and called over WSGI.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import httpx
import orjson
import pytest
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import OpenAPIV31SpecValidator, validate

from service.http.app import create_app
from service.http.problems import PROBLEM_JSON
from service.http.schemas import finish_components
from service.settings import Settings

METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
PROBLEM_REF = {"$ref": "#/components/schemas/ProblemDocument"}
EVERYWHERE = {"413", "414", "500"}  # the limits, and an unexpected error

# One real call per JSON operation, with the lists in its answer non-empty.
REAL_CALLS = [
    ("/breakeven", "/breakeven?gpu=rtx3090&hours=500"),  # the compact answer
    ("/breakeven", "/breakeven?detail=full&gpu=rtx3090&hours=500"),
    ("/rank", "/rank?hours=1000&budget=3000"),
    ("/gpus", "/gpus"),
    ("/gpus/{gpu_id}", "/gpus/rtx3090"),
    ("/offers", "/offers?workload=cnn&gpu=rtx3090"),  # with usd_per_reference_hour
    ("/offers/history", "/offers/history?limit=5"),
    ("/providers", "/providers"),
    ("/health", "/health"),
]
# Answers each operation refuses with, which it must document.
REFUSALS = [
    ("GET", "/breakeven", "/breakeven?detail=full&gpu=rtx3090&hours=-5", 400),
    ("GET", "/breakeven", "/breakeven?detail=full&gpu=rtx9999&hours=10", 404),
    ("GET", "/breakeven", "/breakeven?detail=full&gpu=rtx3090&hours=500&memory=4000", 422),
    ("GET", "/rank", "/rank?utilization=0", 400),
    ("GET", "/rank", "/rank?gpu=nosuch", 404),
    ("GET", "/gpus/{gpu_id}", "/gpus/nosuch", 404),
    ("GET", "/offers", "/offers?workload=cnn", 400),
    ("GET", "/offers", "/offers?accelerator=nosuch", 404),
    ("GET", "/offers/history", "/offers/history?since=2026", 400),
    ("GET", "/offers/history", "/offers/history?accelerator=nosuch", 404),
    ("POST", "/refresh", "/refresh", 403),  # no admin token configured
    ("GET", "/health", "/health?" + "x" * 5000, 414),
]
GENERATOR_NOISE = re.compile(r"warning|unable to|skipping|error|cannot|could not", re.IGNORECASE)
PACKAGE = "gpu_breakeven_client"


@pytest.fixture
def spec(client) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return client.get("/openapi.json").get_json()


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield method.upper(), path, operation


def resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = pointer(spec, schema["$ref"])
    return schema


def pointer(spec: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = spec
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def undeclared(spec: dict[str, Any], value: Any, schema: dict[str, Any], at: str) -> list[str]:
    """Members of ``value``, at any depth, that its schema does not declare."""
    schema = resolve(spec, schema)
    options = [resolve(spec, s) for s in schema.get("anyOf", [schema])]
    options = [s for s in options if s.get("type") != "null"]
    if value is None or len(options) != 1:
        return []
    (schema,) = options
    if isinstance(value, list) and "items" in schema:
        return [
            name
            for i, item in enumerate(value)
            for name in undeclared(spec, item, schema["items"], f"{at}[{i}]")
        ]
    if not isinstance(value, dict):
        return []
    properties = schema.get("properties")
    if properties is None:  # a map: each value has the additionalProperties schema
        entries = schema.get("additionalProperties")
        if not isinstance(entries, dict):
            return []
        return [n for k, v in value.items() for n in undeclared(spec, v, entries, f"{at}.{k}")]
    return [f"{at}.{k}" for k in value if k not in properties] + [
        name
        for k, v in value.items()
        if k in properties
        for name in undeclared(spec, v, properties[k], f"{at}.{k}")
    ]


# -- the document ---------------------------------------------------------------------------


def test_the_document_is_valid_openapi_3_1(spec: dict[str, Any]) -> None:
    assert spec["openapi"].startswith("3.1")
    errors = [error.message for error in OpenAPIV31SpecValidator(spec).iter_errors()]
    assert errors == []
    validate(spec, cls=OpenAPIV31SpecValidator)  # raises on the first error


def test_tags_are_declared_once_and_every_operation_has_one(spec: dict[str, Any]) -> None:
    names = [tag["name"] for tag in spec["tags"]]
    assert [name for name, n in Counter(names).items() if n > 1] == []
    used = set()
    for method, path, operation in operations(spec):
        assert operation.get("tags"), (method, path)
        assert set(operation["tags"]) <= set(names), (method, path, operation["tags"])
        used |= set(operation["tags"])
    assert used == set(names)  # no tag declared for nothing


def test_every_reference_resolves_and_every_model_has_its_own_title(
    spec: dict[str, Any],
) -> None:
    refs: list[str] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(spec)
    assert refs
    for ref in refs:
        pointer(spec, ref)  # KeyError names the missing component
    schemas = spec["components"]["schemas"]
    # Client generators name a class by title (else by component name): one of each.
    titles = Counter(schema.get("title", name) for name, schema in schemas.items())
    assert [title for title, n in titles.items() if n > 1] == []
    # and nothing is left that no reference reaches
    assert {ref.rpartition("/")[2] for ref in refs} >= set(schemas)


def test_copies_merge_and_models_that_share_a_name_keep_apart() -> None:
    def model(*names: str) -> dict[str, Any]:
        return {
            "title": "X",
            "type": "object",
            "properties": {n: {"type": "string"} for n in names},
        }

    ref = {"$ref": "#/components/schemas/B.X"}
    spec = {
        "paths": {"/b": {"get": {"responses": {"200": {"content": {"a/json": {"schema": ref}}}}}}},
        "components": {
            "schemas": {
                "A.X": model("a"),
                "B.X": model("a"),  # the same model, registered under another parent
                "C.Y": {"title": "Y", "properties": {"x": {"$ref": "#/components/schemas/C.X"}}},
                "C.X": model("c"),  # another model of the same name
            }
        },
    }
    schemas = finish_components(spec)["components"]["schemas"]
    assert sorted(schemas) == ["A.X", "B.X", "C.X", "Y"]  # X differs between parents: kept
    assert Counter(s["title"] for s in schemas.values()) == Counter(["AX", "BX", "CX", "Y"])
    same = {"A.X": model("a"), "B.X": model("a"), "Z": {"$ref": "#/components/schemas/A.X"}}
    merged = finish_components({"components": {"schemas": same}})["components"]["schemas"]
    assert merged == {"X": model("a"), "Z": {"$ref": "#/components/schemas/X"}}


def test_every_operation_is_described_and_documents_its_answers(spec: dict[str, Any]) -> None:
    for method, path, operation in operations(spec):
        where = (method, path)
        assert operation.get("summary") or operation.get("description"), where
        responses = operation["responses"]
        ok = [status for status in responses if status.startswith("2")]
        assert ok, where
        for status in ok:
            assert responses[status].get("content"), (where, status)
            assert responses[status].get("description"), (where, status)
        assert set(responses) >= EVERYWHERE, where
        if any(p["in"] == "query" for p in operation.get("parameters", [])):
            assert "400" in responses, where  # the query is validated
        for status, response in responses.items():
            if status[0] in "45":
                assert response["content"] == {PROBLEM_JSON: {"schema": PROBLEM_REF}}, where


@pytest.mark.parametrize(
    ("method", "path", "url", "status"), REFUSALS, ids=[f"{r[3]} {r[2][:50]}" for r in REFUSALS]
)
def test_each_refusal_is_documented(  # type: ignore[no-untyped-def]
    client, spec: dict[str, Any], method: str, path: str, url: str, status: int
) -> None:
    response = client.open(url, method=method)
    assert response.status_code == status, response.get_data(as_text=True)
    assert str(status) in spec["paths"][path][method.lower()]["responses"]


def test_each_answer_matches_the_model_its_operation_names(  # type: ignore[no-untyped-def]
    client, spec: dict[str, Any]
) -> None:
    named: dict[str, str] = {}
    for path, url in REAL_CALLS:
        response = client.get(url)
        assert response.status_code == 200, (url, response.get_data(as_text=True))
        content = spec["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
        answer = response.get_json()
        # an operation that answers one of several shapes (/breakeven's compact or full):
        # the answer is exactly one of them, the one whose required members it has
        options = content["schema"].get("oneOf", [content["schema"]])
        (schema,) = [o for o in options if set(resolve(spec, o)["required"]) <= set(answer)]
        ref = schema["$ref"]
        named[url] = ref
        assert undeclared(spec, answer, schema, "$") == [], url
        whole = OAS31Validator({**content["schema"], "components": spec["components"]})
        assert [error.message for error in whole.iter_errors(answer)] == [], url
        assert all(answer[k] for k in ("gpus", "offers", "points", "cards", "rent") if k in answer)
    # no two answers share a model: each has its own
    assert len(set(named.values())) == len(named), named


def test_undeclared_finds_what_a_schema_leaves_out(spec: dict[str, Any]) -> None:
    # the checker above, on answers it must refuse
    gpu = {"$ref": "#/components/schemas/GpuOut"}
    assert undeclared(spec, {"id": "x", "nickname": "y"}, gpu, "$") == ["$.nickname"]
    nested = {"id": "x", "throughput": {"cnn": {"relative": 1, "colour": "red"}}}
    assert undeclared(spec, nested, gpu, "$") == ["$.throughput.cnn.colour"]


# -- a client generated from it -------------------------------------------------------------


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Any], Path]]:
    """The document, and the client openapi-python-client makes of it, importable."""
    root = tmp_path_factory.mktemp("client")
    app = create_app(Settings(data_dir=root / "data", catalog_check_seconds=0))
    try:
        spec = app.test_client().get("/openapi.json").get_json()
    finally:
        app.extensions["breakeven"].store.dispose()
    document = root / "openapi.json"
    document.write_bytes(orjson.dumps(spec))
    config = root / "config.yml"
    config.write_text("post_hooks: []\n")  # no ruff over the output: fast, and no noise
    output = root / PACKAGE
    run = subprocess.run(
        [
            *(sys.executable, "-m", "openapi_python_client", "generate"),
            *("--path", str(document), "--output-path", str(output)),
            *("--meta", "none", "--config", str(config), "--fail-on-warning"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = run.stdout + run.stderr
    assert run.returncode == 0, said  # --fail-on-warning: a warning fails the run
    # It says "Generating <path>" and nothing else; warnings read "Warning(s) encountered",
    # "WARNING parsing GET /offers ...", "Unable to parse schema ...".
    lines = [line for line in said.splitlines() if not line.startswith("Generating ")]
    assert [line for line in lines if GENERATOR_NOISE.search(line)] == [], said
    sys.path.insert(0, str(root))
    try:
        yield spec, output
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def generated_operations(output: Path) -> dict[tuple[str, str], str]:
    """(METHOD, path) -> the module of the generated client that calls it."""
    found: dict[tuple[str, str], str] = {}
    for module in sorted((output / "api").glob("*/*.py")):
        if module.name == "__init__.py":
            continue
        source = module.read_text()
        (method,) = re.findall(r'"method": "(\w+)"', source)
        (url,) = re.findall(r'"url": "([^"]+)"', source)
        key = (method.upper(), url)
        assert key not in found, (key, module)
        found[key] = ".".join(module.relative_to(output.parent).with_suffix("").parts)
    return found


def test_the_generated_client_has_every_operation_typed(generated) -> None:  # type: ignore[no-untyped-def]
    spec, output = generated
    modules = generated_operations(output)
    documented = {(method, path) for method, path, _ in operations(spec)}
    assert set(modules) == documented and len(modules) == len(documented)  # one module each
    models = {path.stem for path in (output / "models").glob("*.py")}
    for (method, path), module in modules.items():
        operation = spec["paths"][path][method.lower()]
        source = (output.parent / Path(*module.split("."))).with_suffix(".py").read_text()
        parse = source.split("def _parse_response", 1)[1].split("\ndef ", 1)[0]
        for status, response in operation["responses"].items():
            block = re.search(rf"status_code == {status}:\n(.*?)return", parse, re.DOTALL)
            assert block, (method, path, status)  # a documented status the client ignores
            if (
                "application/json" not in response["content"]
                and PROBLEM_JSON not in response["content"]
            ):
                continue  # text: /metrics
            parsed = re.search(r"(\w+)\.from_dict\(", block.group(1))
            assert parsed, (method, path, status, block.group(1))  # typed, not Any
            snake = re.sub(r"(?<!^)(?=[A-Z])", "_", parsed.group(1)).lower()
            assert snake in models, (method, path, status, parsed.group(1))


def test_the_generated_client_reads_every_answer(generated, app) -> None:  # type: ignore[no-untyped-def]
    _, output = generated
    modules = generated_operations(output)
    client_module = importlib.import_module(f"{PACKAGE}.client")
    models = importlib.import_module(f"{PACKAGE}.models")
    transport = httpx.WSGITransport(app=app)
    client = client_module.Client("http://testserver", httpx_args={"transport": transport})
    admin = client_module.AuthenticatedClient(
        "http://testserver", token="not-configured", httpx_args={"transport": transport}
    )
    per_reference_hour = {"workload": models.Workload.CNN, "gpu": "rtx3090"}
    (detail,) = [getattr(models, n) for n in dir(models) if n.startswith("GetBreakevenDetail")]
    full = {"detail": detail.FULL}
    calls: list[tuple[str, str, Any, dict[str, Any], int, str]] = [
        ("GET", "/breakeven", client, {"gpu": "rtx3090", "hours": 500.0}, 200, "BreakevenCompact"),
        (
            "GET",
            "/breakeven",
            client,
            {**full, "gpu": "rtx3090", "hours": 500.0},
            200,
            "BreakevenAnswer",
        ),
        ("GET", "/rank", client, {"hours": 1000.0}, 200, "RankAnswer"),
        ("GET", "/gpus", client, {}, 200, "GpuList"),
        ("GET", "/gpus/{gpu_id}", client, {"gpu_id": "rtx3090"}, 200, "GpuOut"),
        ("GET", "/gpus/{gpu_id}", client, {"gpu_id": "nosuch"}, 404, "ProblemDocument"),
        ("GET", "/offers", client, per_reference_hour, 200, "OfferList"),
        ("GET", "/offers/history", client, {"limit": 5}, 200, "History"),
        ("GET", "/providers", client, {}, 200, "ProviderList"),
        ("GET", "/health", client, {}, 200, "Health"),
        ("POST", "/refresh", admin, {}, 403, "ProblemDocument"),
    ]
    for method, path, caller, arguments, status, model in calls:
        operation = importlib.import_module(modules[(method, path)])
        response = operation.sync_detailed(client=caller, **arguments)
        assert response.status_code == status, (path, response.content[:300])
        assert isinstance(response.parsed, getattr(models, model)), (path, response.parsed)
        # every member typed: nothing left over in additional_properties, at any depth
        assert list(leftovers(response.parsed, path)) == [], path
    metrics = importlib.import_module(modules[("GET", "/metrics")])
    assert "breakeven_http_requests" in metrics.sync(client=client)


def leftovers(value: Any, at: str) -> Iterator[str]:
    """Members a generated model did not declare: they land in additional_properties."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from leftovers(item, f"{at}[{i}]")
        return
    if not attrs.has(type(value)):
        return
    declared = [f.name for f in attrs.fields(type(value)) if f.name != "additional_properties"]
    extra = getattr(value, "additional_properties", {})
    if declared:  # a record: extra members are what the schema missed
        yield from (f"{at}.{name}" for name in extra)
        for name in declared:
            yield from leftovers(getattr(value, name), f"{at}.{name}")
    else:  # a map (dict[str, Model]): its entries are the additional properties
        for key, item in extra.items():
            yield from leftovers(item, f"{at}.{key}")
