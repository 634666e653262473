"""The contract of every route (serve/models.py): `/openapi.json` is generated from the
models and says what the docs say, field by field; and one policy on unknown keys, a 422
naming the key, on every route."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.serve.conftest import local_client
from toolsel.serve.http import create_app
from toolsel.serve.service import Service

SECTION = "## `toolsel serve` and `toolsel mcp`"
#: A route as the docs' tables name it: `POST /v1/rank`.
ROUTE = re.compile(r"`(GET|POST) (/[^`]*)`")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from toolsel.serve.store import open_store

    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('store') / 'u.sqlite3'}")
    service = Service([ROOT / "registries"], store)
    yield local_client(create_app(service))
    service.close()


@pytest.fixture(scope="module")
def spec(client: Any) -> dict[str, Any]:
    answer: dict[str, Any] = client.get("/openapi.json").json()
    return answer


def documented_routes() -> dict[tuple[str, str], tuple[str, str]]:
    """(method, path) -> (what the docs say it takes, what it answers), from the route
    tables of the serve section of docs/commands.md."""
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    routes = {}
    for row in section.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        if len(cells) != 3 or not ROUTE.match(cells[0]):
            continue
        takes, _, answers = cells[1].partition("→")  # the reference design's table
        answers = answers or cells[2]
        for method, path in ROUTE.findall(cells[0]):
            routes[method, path] = (takes, answers)
    return routes


def keys(text: str) -> dict[str, bool]:
    """The top-level keys of the first `{...}` of `text` (`?a=&b=`: a query), each with
    whether it is required (written without `?` or `=default`)."""
    query = re.search(r"`\?([^`]*)`", text)
    if query:
        return dict.fromkeys(re.findall(r"(?:^|&)(\w+)=", query.group(1)), False)
    found = re.search(r"`\[?(\{[^`]*\})", text)
    return _object_keys(found.group(1)) if found else {}


def all_keys(text: str) -> dict[str, bool]:
    """The keys of every `{...}` or `[{...}]` of `text`, as an answer's documents."""
    joined: dict[str, bool] = {}
    for found in re.findall(r"`\[?(\{[^`]*\})", text):
        joined |= _object_keys(found)
    return joined


def _object_keys(text: str) -> dict[str, bool]:
    depth, item, items = 0, "", []
    for char in text:
        depth += char in "[{"
        depth -= char in "]}"
        if (char == "," and depth == 1) or depth == 0:
            items.append(item.strip())
            item = ""
        elif depth >= 1 and not (char == "{" and depth == 1):
            item += char
    found = {}
    for entry in filter(None, items):
        name = re.match(r"\w+", entry)
        assert name is not None, entry
        rest = entry[name.end() :]
        found[name.group()] = not rest.startswith(("?", "="))
    return found


def resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with its `$ref` followed (the first branch of an `anyOf`, the items of an
    array)."""
    while True:
        if "$ref" in schema:
            target: Any = spec
            for part in schema["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            schema = target
        elif "anyOf" in schema:
            schema = schema["anyOf"][0]
        elif schema.get("type") == "array":
            schema = schema["items"]
        else:
            return schema


def body_keys(spec: dict[str, Any], operation: dict[str, Any]) -> dict[str, bool]:
    if "requestBody" not in operation:
        return {p["name"]: p["required"] for p in operation.get("parameters", []) if p["in"] == "query"}  # fmt: skip
    schema = resolve(spec, operation["requestBody"]["content"]["application/json"]["schema"])
    return {name: name in schema.get("required", []) for name in schema["properties"]}


def answer(spec: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = operation["responses"]["200"]["content"]["application/json"]["schema"]
    return schema


def documents(spec: dict[str, Any], schema: dict[str, Any]) -> set[str]:
    """The versioned documents (`toolsel.rank/v3`) an answer's schema refers to."""
    names = set()
    for branch in schema.get("anyOf", [schema]):
        component = branch.get("$ref", "").removeprefix("#/components/schemas/").split("/")[0]
        if component.startswith("toolsel."):
            names.add(spec["components"]["schemas"][component]["properties"]["schema"]["const"])
    return names


def test_every_route_is_documented_and_only_those(spec: dict[str, Any]) -> None:
    served = {(m.upper(), path) for path, ops in spec["paths"].items() for m in ops}
    assert served == set(documented_routes())


def test_each_route_takes_the_fields_the_docs_name(spec: dict[str, Any]) -> None:
    for (method, path), (takes, _) in documented_routes().items():
        operation = spec["paths"][path][method.lower()]
        assert keys(takes) == body_keys(spec, operation), (method, path)


def test_each_route_answers_the_fields_the_docs_name(spec: dict[str, Any]) -> None:
    for (method, path), (_, answers) in documented_routes().items():
        schema = answer(spec, spec["paths"][path][method.lower()])
        named = set(re.findall(r"`(toolsel\.[a-z-]+/v\d+)`", answers))
        assert named == documents(spec, schema), (method, path)
        fields = all_keys(answers)
        assert named or fields, f"the docs say nothing of what {method} {path} answers"
        if fields:
            assert set(fields) == set(resolve(spec, schema)["properties"]), (method, path)


def test_every_reference_in_the_document_resolves(spec: dict[str, Any]) -> None:
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "$ref" in node:
                resolve(spec, {"$ref": node["$ref"]})
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    assert spec["components"]["schemas"]["RankRequest"]["properties"]["with_deps"]


#: (method, path, a request it serves): each must refuse the same with one key more.
REQUESTS = [
    ("GET", "/healthz", None),
    ("GET", "/readyz", None),
    ("POST", "/v1/rank", {"query": "read a file"}),
    ("POST", "/v1/select", {"names": ["read_file"]}),
    ("POST", "/v1/validate", {"tool": "read_file", "input": {"path": "a"}}),
    ("POST", "/v1/usage", {"tool": "read_file", "ok": True}),
    ("GET", "/v1/analytics", None),
    ("GET", "/v1/tools", None),
    ("GET", "/v1/tools/{name}", None),
    ("POST", "/agent/select-tools", {"message": "read a file"}),
    ("POST", "/agent/validate", {"tool": "read_file"}),
    ("POST", "/agent/record-usage", {"tool": "read_file", "success": True}),
    ("GET", "/agent/analytics", None),
]


def test_the_policy_covers_every_route(spec: dict[str, Any]) -> None:
    served = {(m.upper(), path) for path, ops in spec["paths"].items() for m in ops}
    assert {(method, path) for method, path, _ in REQUESTS} == served


@pytest.mark.parametrize(("method", "path", "body"), REQUESTS, ids=[f"{m} {p}" for m, p, _ in REQUESTS])  # fmt: skip
def test_an_unknown_key_is_refused_on_every_route(
    client: Any, method: str, path: str, body: dict[str, Any] | None
) -> None:
    url = path.replace("{name}", "read_file")
    assert client.request(method, url, json=body).status_code == 200
    queried = client.request(method, url, json=body, params={"typo": "1"})
    assert queried.status_code == 422
    assert "does not take" in queried.json()["error"] and "`typo`" in queried.json()["error"]
    if body is not None:
        refused = client.request(method, url, json={**body, "typo": 1})
        problem = refused.json()
        assert problem == {"error": problem["error"], "status": 422}
        subject = "record 0: a usage record" if path == "/v1/usage" else path
        assert problem["error"].startswith(f"{subject} does not take `typo`; it takes ")


def test_an_unknown_key_is_named_with_a_suggestion_wherever_it_is(client: Any) -> None:
    for path, body, said in [
        ("/v1/select", {"names": ["a"], "with_dep": True}, "/v1/select does not take `with_dep` (did you mean 'with_deps'?)"),
        ("/v1/usage", [{"tool": "t", "ok": True}, {"tool": "t", "ok": True, "sesion": "s"}], "record 1: a usage record does not take `sesion` (did you mean 'session'?)"),
        ("/v1/usage", {"records": [], "record": 1}, "/v1/usage does not take `record`"),
        ("/agent/validate", {"tool": "t", "toolCallHistory": [{"name": "a", "success": True, "ok": 1}]}, "a toolCallHistory entry does not take `ok`"),
    ]:  # fmt: skip
        refused = client.post(path, json=body)
        assert refused.status_code == 422 and said in refused.json()["error"], refused.text


def test_a_body_that_is_not_an_object_is_one_422(client: Any) -> None:
    for path in ("/v1/rank", "/v1/select", "/v1/validate", "/agent/select-tools"):
        for body in (b"[1]", b'"text"', b"3", b"null"):
            refused = client.post(path, content=body, headers={"Content-Type": "application/json"})
            assert refused.json() == {"error": "request body must be a JSON object", "status": 422}
    entry = client.post("/agent/validate", json={"tool": "t", "toolCallHistory": [1]})
    assert entry.json() == {"error": "`toolCallHistory.0` must be an object, got a number", "status": 422}  # fmt: skip
