"""Walk a tool's JSON Schema iteratively, yielding every subschema with its place."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolsel.registry.source import escape_token

_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_LIST_KEYWORDS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SINGLE_KEYWORDS = (
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
)


@dataclass(frozen=True, slots=True)
class SchemaNode:
    pointer: str  # relative to the parameters root ("" for the root)
    schema: dict[str, Any]
    depth: int  # property/items hops from the root
    property_name: str | None  # set when this node is a value of `properties`
    parent: dict[str, Any] | None  # the object schema owning `property_name`

    @property
    def is_root(self) -> bool:
        return self.pointer == ""


def walk_schema(root: Any) -> Iterator[SchemaNode]:
    if not isinstance(root, dict):
        return
    stack: list[SchemaNode] = [SchemaNode("", root, 0, None, None)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(_children(node))))


def _children(node: SchemaNode) -> Iterator[SchemaNode]:
    schema, base, depth = node.schema, node.pointer, node.depth
    for keyword in _MAP_KEYWORDS:
        members = schema.get(keyword)
        if isinstance(members, dict):
            hop = 1 if keyword in ("properties", "patternProperties") else 0
            for name, sub in members.items():
                if isinstance(sub, dict):
                    owner = schema if keyword == "properties" else None
                    prop = name if keyword == "properties" else None
                    pointer = f"{base}/{keyword}/{escape_token(str(name))}"
                    yield SchemaNode(pointer, sub, depth + hop, prop, owner)
    items = schema.get("items")
    if isinstance(items, dict):
        yield SchemaNode(f"{base}/items", items, depth + 1, None, None)
    elif isinstance(items, list):
        for index, sub in enumerate(items):
            if isinstance(sub, dict):
                yield SchemaNode(f"{base}/items/{index}", sub, depth + 1, None, None)
    for keyword in _LIST_KEYWORDS:
        members = schema.get(keyword)
        if isinstance(members, list):
            for index, sub in enumerate(members):
                if isinstance(sub, dict):
                    hop = 1 if keyword == "prefixItems" else 0
                    yield SchemaNode(f"{base}/{keyword}/{index}", sub, depth + hop, None, None)
    for keyword in _SINGLE_KEYWORDS:
        sub = schema.get(keyword)
        if isinstance(sub, dict):
            yield SchemaNode(f"{base}/{keyword}", sub, depth, None, None)


def properties_of(schema: Any) -> dict[str, Any]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def is_object_schema(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return (
        kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema
    )
