"""Reading a client config's data (`live.configfile.read_config`): YAML by either suffix, a
YAML error at its line and column, and the comments JSON configs may hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolsel.errors import RegistryError
from toolsel.live.configfile import read_config


def _read(tmp_path: Path, name: str, text: str) -> Any:
    path = tmp_path / name
    path.write_text(text)
    return read_config(path)


@pytest.mark.parametrize("name", ["servers.yaml", "servers.yml", "SERVERS.YML"])
def test_yaml_by_either_suffix_in_any_case(tmp_path: Path, name: str) -> None:
    assert _read(tmp_path, name, "mcpServers:\n  a: {command: x}\n") == {
        "mcpServers": {"a": {"command": "x"}}
    }


def test_yaml_without_libyaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PyYAML built without libyaml has no CSafeLoader: its pure-Python safe loader reads."""
    import yaml

    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    assert _read(tmp_path, "servers.yaml", "mcpServers: {a: {command: x}}\n") == {
        "mcpServers": {"a": {"command": "x"}}
    }


def test_a_yaml_error_says_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "servers.yaml"
    path.write_text("mcpServers:\n  a: [1\n  b: 2\n")
    with pytest.raises(RegistryError) as refused:
        read_config(path)
    assert str(refused.value) == f"{path}:3:4: invalid YAML: did not find expected ',' or ']'"


def test_a_yaml_error_without_a_position_says_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import yaml

    def refuse(text: str, Loader: Any) -> Any:
        raise yaml.MarkedYAMLError(problem="found a tag it cannot construct")

    monkeypatch.setattr(yaml, "load", refuse)
    path = tmp_path / "servers.yaml"
    path.write_text("a: 1\n")
    with pytest.raises(RegistryError) as refused:
        read_config(path)
    assert str(refused.value) == f"{path}: invalid YAML: found a tag it cannot construct"


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ('{"a": 1} // only a line comment\n', {"a": 1}),
        ('{"a": /**/ 1}', {"a": 1}),  # an empty block comment
        ('[/* one */2]', [2]),  # a value right after the comment's end
        ('{"a": 1 /* one *//* two */}', {"a": 1}),  # a comment right after another
        ('{"a": "x\\\\"} // after an escaped backslash', {"a": "x\\"}),
    ],
)  # fmt: skip
def test_comments_in_a_json_config(tmp_path: Path, text: str, data: Any) -> None:
    assert _read(tmp_path, "mcp.json", text) == data
