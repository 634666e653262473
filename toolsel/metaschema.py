"""Whether a JSON Schema is valid against its dialect's metaschema, and what is wrong where
it is not: lint's TS302 reports the errors, and `validate` skips the full check for a schema
the fast one clears. Below both, so neither imports the other."""

from __future__ import annotations

import functools
from typing import Any

import orjson

from toolsel.jsontext import json_text
from toolsel.lint.schema import walk_schema
from toolsel.registry.source import escape_token


@functools.cache
def _meta_validator(dialect: str) -> Any:
    from jsonschema import validators

    cls = validators.validator_for({"$schema": dialect}, default=validators.Draft202012Validator)
    return cls(cls.META_SCHEMA)


@functools.cache
def _fast_draft7_check() -> Any:
    """fastjsonschema's compiled draft-07 metaschema: ~70x faster than a full 2020-12 check.

    `use_default=False`: by default fastjsonschema writes the metaschema's defaults into the
    data it checks, which here is the tool's own schema (`properties: {}`, `uniqueItems:
    false`, `definitions: {}` ... on every subschema), and every rule after it saw them."""
    import fastjsonschema
    from jsonschema import Draft7Validator

    return fastjsonschema.compile(Draft7Validator.META_SCHEMA, handlers={}, use_default=False)


# Keywords whose meaning or shape differs between draft-07 and 2020-12: a schema using any of
# them always gets the full check of its own dialect.
_DIALECT_SENSITIVE = frozenset(
    "$defs prefixItems dependentRequired dependentSchemas unevaluatedItems unevaluatedProperties "
    "$anchor $dynamicRef $dynamicAnchor $recursiveRef $recursiveAnchor $vocabulary "
    "contentSchema minContains maxContains $schema".split()
)


def passes_fast_check(schema: dict[str, Any]) -> bool:
    """The schema is valid draft-07 and uses no keyword whose meaning differs in 2020-12."""
    if any(
        _DIALECT_SENSITIVE.intersection(node.schema) or isinstance(node.schema.get("items"), list)
        for node in walk_schema(schema)
    ):
        return False
    try:
        _fast_draft7_check()(schema)
    except Exception:
        return False
    return True


@functools.lru_cache(maxsize=4096)
def schema_errors(schema_json: bytes) -> tuple[tuple[str, str], ...]:
    """Every metaschema error as (pointer, message); a fast draft-07 pass clears most schemas."""
    try:
        schema = orjson.loads(schema_json)
    except orjson.JSONDecodeError:  # an integer beyond a double's range: Python's are exact
        import json

        schema = json.loads(schema_json)
    if passes_fast_check(schema):
        return ()
    from jsonschema.exceptions import best_match

    dialect = schema.get("$schema", "https://json-schema.org/draft/2020-12/schema")
    validator = _meta_validator(str(dialect))
    by_place: dict[str, list[Any]] = {}
    for error in validator.iter_errors(schema):
        pointer = "".join("/" + escape_token(str(p)) for p in error.absolute_path)
        by_place.setdefault(pointer, []).append(error)
    # one problem per place (the most relevant of the metaschema's complaints), in order
    return tuple(
        (pointer, _metaschema_message(best_match(errors), pointer))
        for pointer, errors in by_place.items()
    )


def _metaschema_message(error: Any, pointer: str) -> str:
    """What is wrong, with values written as JSON (`"dict"`, `true`), not as Python."""
    value = json_text(error.instance)
    expected = error.validator_value
    keyword = pointer.rsplit("/", 1)[-1]
    if keyword == "type" and error.validator in ("anyOf", "oneOf", "enum", "type"):
        return (
            f'{value} is not a JSON Schema type; use one of "array", "boolean", "integer", '
            '"null", "number", "object", "string"'
        )
    if error.validator == "type":
        wanted = expected if isinstance(expected, list) else [expected]
        return f"{value} must be {' or '.join(_article(str(t)) for t in wanted)}"
    if error.validator == "enum":
        return f"{value} is not one of {json_text(expected)}"
    if error.validator in ("minimum", "minItems", "minLength", "uniqueItems", "pattern"):
        return f"{value} breaks `{error.validator}: {json_text(expected)}`"
    return f"{value} is not valid here (the metaschema's `{error.validator}`)"


def _article(kind: str) -> str:
    return {"array": "an array", "object": "an object", "integer": "an integer"}.get(
        kind, f"a {kind}"
    )
