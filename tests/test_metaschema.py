"""toolsel/metaschema.py: checking a schema against its metaschema never changes it."""

from __future__ import annotations

import copy

from toolsel.metaschema import passes_fast_check
from toolsel.validate import InputValidator

SCHEMA = {
    "type": "object",
    "properties": {
        "pages": {"type": "array", "default": ["Home"], "items": {"type": "string"}},
        "mode": {"enum": ["a", "b"]},
    },
}


def test_the_fast_check_leaves_the_schema_as_written() -> None:
    schema = copy.deepcopy(SCHEMA)
    assert passes_fast_check(schema)
    assert schema == SCHEMA  # no metaschema defaults (`uniqueItems`, `properties`, ...)


def test_validating_a_value_leaves_the_schema_as_written() -> None:
    schema = copy.deepcopy(SCHEMA)
    assert InputValidator(schema).check({"pages": ["Home"]}) is None
    assert schema == SCHEMA
