"""`toolsel schema`: the registry format's JSON Schema agrees with the loader."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import ROOT, Cli

Write = Callable[..., Path]


def test_schema_command_prints_a_schema_the_examples_satisfy(cli: Cli) -> None:
    import yaml
    from jsonschema import Draft202012Validator

    schema = json.loads(cli("schema").stdout)
    Draft202012Validator.check_schema(schema)
    for path in sorted((ROOT / "registries").glob("*.yaml")):
        errors = list(Draft202012Validator(schema).iter_errors(yaml.safe_load(path.read_text())))
        assert not errors, (path, errors[0].message)


def test_schema_rejects_what_the_loader_rejects() -> None:
    from importlib.resources import files

    from jsonschema import Draft202012Validator

    schema = json.loads(files("toolsel.schemas").joinpath("registry.schema.json").read_text())
    bad = {"tools": [{"name": "a", "description": "d", "permisson": "read", "tags": "x"}]}
    assert len(list(Draft202012Validator(schema).iter_errors(bad))) >= 2


def test_schema_fields_match_the_loader_field_table() -> None:
    from importlib.resources import files

    from toolsel.registry.formats import FIELD_TYPES

    schema = json.loads(files("toolsel.schemas").joinpath("registry.schema.json").read_text())
    assert set(schema["$defs"]["tool"]["properties"]) == set(FIELD_TYPES)
