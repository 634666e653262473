"""`--emit PROVIDER`: every provider's request shape reads back as the same tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from toolsel.emit import EMITTERS
from toolsel.registry import load_registry

BUNDLED = load_registry(ROOT / "registries", use_cache=False)
EXTRA = """\
tools:
  - name: pick_shape
    description: Draws one shape; the schema needs more than Gemini's OpenAPI subset.
    permission: write
    parameters:
      $schema: https://json-schema.org/draft/2020-12/schema
      type: object
      properties:
        shape: {oneOf: [{const: circle}, {const: square}]}
      required: [shape]
"""


def _schema(tool, provider: str) -> dict:
    if provider == "gemini":
        return {k: v for k, v in tool.parameters.items() if k != "$schema"}
    return tool.parameters


@pytest.mark.parametrize("provider", sorted(EMITTERS))
def test_emit_reads_back_as_the_same_tools(provider: str, tmp_path: Path) -> None:
    extra = tmp_path / "extra.yaml"
    extra.write_text(EXTRA)
    tools = [*BUNDLED.tools, *load_registry(extra, use_cache=False).tools]
    emitted = tmp_path / f"{provider}.json"
    emitted.write_text(json.dumps(EMITTERS[provider](tools)))
    back = load_registry(emitted, use_cache=False)
    assert [t.name for t in back.tools] == [t.name for t in tools]
    for before, after in zip(tools, back.tools, strict=True):
        assert after.description == before.description
        assert after.parameters == _schema(before, provider), before.name
        if provider == "mcp":  # permissions travel in the annotations
            assert after.permission == before.permission, before.name
            assert after.display_name == before.display_name


def test_gemini_emission_is_lint_clean_for_gemini(cli: Cli, tmp_path: Path) -> None:
    extra = tmp_path / "extra.yaml"
    extra.write_text(EXTRA)
    run = cli("rank", "draw a circle shape", "-r", str(extra), "--emit", "gemini")
    document = json.loads(run.stdout)
    (declaration,) = document["tools"][0]["functionDeclarations"]
    assert "parametersJsonSchema" in declaration and "$schema" not in json.dumps(declaration)
    emitted = tmp_path / "gemini.json"
    emitted.write_text(run.stdout)
    bundled = cli("rank", "read a file", "--emit", "gemini")
    (tmp_path / "bundled.json").write_text(bundled.stdout)
    for path in (emitted, tmp_path / "bundled.json"):
        lint = json.loads(cli("lint", str(path), "-t", "gemini", "-f", "json").stdout)
        errors = [f for f in lint["findings"] if f["severity"] == "error"]
        assert errors == [], errors


def test_gemini_request_shapes_are_registries(tmp_path: Path) -> None:
    declaration = {
        "name": "get_weather",
        "description": "Returns the forecast.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    for document in (
        {"tools": [{"functionDeclarations": [declaration]}]},
        {"functionDeclarations": [declaration]},
        {"tools": [{"function_declarations": [declaration]}, {"functionDeclarations": []}]},
    ):
        path = tmp_path / "g.json"
        path.write_text(json.dumps(document))
        registry = load_registry(path, use_cache=False, strict=False)
        assert [t.name for t in registry.tools] == ["get_weather"] and not registry.problems
        assert registry.files[0].format == "gemini"


BEYOND_64_BITS = """\
tools:
  - name: set_counter
    description: Sets a 64-bit counter; its bounds are one past what 64 bits hold.
    parameters:
      type: object
      properties:
        value: {type: integer, maximum: 18446744073709551616, default: -9223372036854775809}
"""


@pytest.mark.parametrize("provider", sorted(EMITTERS))
def test_integers_beyond_64_bits_are_emitted_exactly(
    provider: str, cli: Cli, tmp_path: Path
) -> None:
    """orjson refuses them ("Integer exceeds 64-bit range"); the emitted JSON has them."""
    registry = tmp_path / "big.yaml"
    registry.write_text(BEYOND_64_BITS)
    run = cli("rank", "counter", "-r", str(registry), "--emit", provider)
    assert run.exit_code == 0 and "Traceback" not in run.stderr
    assert "18446744073709551616" in run.stdout and "-9223372036854775809" in run.stdout
    emitted = tmp_path / "emitted.json"
    emitted.write_text(run.stdout)
    (tool,) = load_registry(emitted, use_cache=False).tools
    value = tool.parameters["properties"]["value"]
    assert value["maximum"] == 2**64 and value["default"] == -(2**63) - 1
