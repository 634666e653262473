"""toolsel/schemas: the one list of versioned outputs, and every copy tested against it
(issue 19): the `schema` strings in code, in the published JSON Schemas, and the method
lists the schemas carry."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import ROOT
from toolsel.ranking.options import Method
from toolsel.schemas import Output, schema_name

SCHEMAS = ROOT / "toolsel" / "schemas"
VERSIONED = re.compile(r"toolsel\.[a-z-]+/v[0-9]+")


def test_no_schema_string_is_written_out_in_the_code() -> None:
    """Renderers and the service ask `schema_name`; only toolsel/schemas says versions."""
    written = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in (ROOT / "toolsel").rglob("*.py")
        if path.parent != SCHEMAS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if VERSIONED.search(line)
    ]
    assert written == []


@pytest.mark.parametrize("output", list(Output))
def test_each_published_schema_names_its_own_version(output: Output) -> None:
    text = (SCHEMAS / f"{output.value}.schema.json").read_text(encoding="utf-8")
    assert f'"const": "{schema_name(output)}"' in text
    stale = set(VERSIONED.findall(text)) - {schema_name(o) for o in Output}
    assert stale == set(), f"{output.value}.schema.json names versions that are not current"


@pytest.mark.parametrize("name", ["rank", "rank-batch"])
def test_the_method_lists_in_the_schemas_are_the_methods(name: str) -> None:
    text = (SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8")
    lists = [json.loads(m) for m in re.findall(r'"enum": (\[[^\]]*\])', text) if "hybrid" in m]
    # `auto` is never reported: the method it chose is
    ran = [m.value for m in Method if m is not Method.AUTO]
    assert lists and all(found == ran for found in lists)


def test_every_schema_file_is_an_output_or_the_registry() -> None:
    files = {p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json")}
    assert files == {o.value for o in Output} | {"registry"}
