"""Walk a tool's JSON Schema iteratively, yielding every subschema with its place."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolsel.registry.source import escape_token, split_pointer

_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_LIST_KEYWORDS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SINGLE_KEYWORDS = (
    "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
    "unevaluatedProperties", "unevaluatedItems",
)  # fmt: skip


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
    """Every subschema, depth first in document order; iterative, so any depth is safe."""
    if not isinstance(root, dict):
        return
    stack: list[SchemaNode] = [SchemaNode("", root, 0, None, None)]
    while stack:
        node = stack.pop()
        yield node
        children = _children(node)
        if children:
            children.reverse()
            stack.extend(children)


#: Keywords whose values are subschemas (walked as nodes of their own).
SUBSCHEMA_KEYWORDS = frozenset(_MAP_KEYWORDS + _LIST_KEYWORDS + _SINGLE_KEYWORDS + ("items",))


def _children(node: SchemaNode) -> list[SchemaNode]:
    schema, base, depth = node.schema, node.pointer, node.depth
    found: list[SchemaNode] = []
    for keyword, value in schema.items():
        if keyword not in SUBSCHEMA_KEYWORDS:
            continue
        if keyword in _MAP_KEYWORDS:
            if isinstance(value, dict):
                is_props = keyword == "properties"
                hop = 1 if is_props or keyword == "patternProperties" else 0
                for name, sub in value.items():
                    if isinstance(sub, dict):
                        pointer = f"{base}/{keyword}/{escape_token(str(name))}"
                        found.append(
                            SchemaNode(
                                pointer,
                                sub,
                                depth + hop,
                                name if is_props else None,
                                schema if is_props else None,
                            )
                        )
        elif keyword == "items":
            if isinstance(value, dict):
                found.append(SchemaNode(f"{base}/items", value, depth + 1, None, None))
            elif isinstance(value, list):
                for index, sub in enumerate(value):
                    if isinstance(sub, dict):
                        found.append(
                            SchemaNode(f"{base}/items/{index}", sub, depth + 1, None, None)
                        )
        elif keyword in _LIST_KEYWORDS:
            if isinstance(value, list):
                hop = 1 if keyword == "prefixItems" else 0
                for index, sub in enumerate(value):
                    if isinstance(sub, dict):
                        found.append(
                            SchemaNode(f"{base}/{keyword}/{index}", sub, depth + hop, None, None)
                        )
        elif isinstance(value, dict):
            found.append(SchemaNode(f"{base}/{keyword}", value, depth, None, None))
    return found


def properties_of(schema: Any) -> dict[str, Any]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def is_object_schema(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return (
        kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema
    )


def property_path(pointer: str) -> tuple[str, ...]:
    """The property names a subschema's pointer passes through, outermost first: the nesting
    a model writes. Array `items`, combinators and `$defs` add no name of their own
    (`/properties/a/items/properties/b` is `("a", "b")`)."""
    tokens = split_pointer(pointer)
    names: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in ("properties", "patternProperties") and index + 1 < len(tokens):
            names.append(tokens[index + 1])
            index += 2
        elif token in _MAP_KEYWORDS or token in _LIST_KEYWORDS:
            index += 2  # the entry's name or index
        elif token == "items" and index + 1 < len(tokens) and tokens[index + 1].isdigit():
            index += 2  # a tuple's item: a keyword is never all digits
        else:
            index += 1
    return tuple(names)
