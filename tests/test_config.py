"""Project configuration: where the default registry comes from."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli
from toolsel.errors import ConfigError
from toolsel.lint import all_rules
from toolsel.lint.config import DEFAULT_OPTIONS, build_config

Write = Callable[..., Path]


def test_default_registry_from_pyproject(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "tools").mkdir()
    (in_tmp / "tools" / "mine.yaml").write_text(
        "tools:\n- {name: my_only_tool, description: does my only thing}\n"
    )
    (in_tmp / "pyproject.toml").write_text('[tool.toolsel]\nregistry = "tools"\n')
    sub = in_tmp / "deep" / "er"
    sub.mkdir(parents=True)
    import os

    os.chdir(sub)
    data = json.loads(cli("rank", "only thing", "-f", "json").stdout)
    assert [r["name"] for r in data["results"]] == ["my_only_tool"]


def test_default_registry_is_local_registries_dir(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "registries").mkdir()
    (in_tmp / "registries" / "r.yaml").write_text(
        "tools:\n- {name: local_tool, description: local thing}\n"
    )
    data = json.loads(cli("rank", "local", "-f", "json").stdout)
    assert data["results"][0]["name"] == "local_tool"


def test_default_registry_falls_back_to_bundled_example(cli: Cli, in_tmp: Path) -> None:
    data = json.loads(cli("rank", "read a file", "-f", "json").stdout)
    assert next(r for r in data["results"] if not r["always_include"])["name"] == "read_file"


def test_unknown_key_in_tool_toolsel_is_a_config_error(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "pyproject.toml").write_text('[tool.toolsel]\nregistri = "x"\n')
    run = cli("rank", "x")
    assert run.exit_code == 2 and "did you mean 'registry'" in run.stderr


BAD_LINT_CONFIG = {
    "a list of mixed values": (
        "allowed-categories = [1, {a = 1}]",
        "must be a list of strings, got 1",
    ),
    "a string for a number": ('max-description-chars = "x"', "must be like 1024, got 'x'"),
    "a negative number": ("max-tools = -3", "'max-tools' must be a finite number >= 0, got -3"),
    "nan": ("max-description-chars = nan", "must be a finite number >= 0, got nan"),
    "inf": ("max-tools = inf", "'max-tools' must be a finite number >= 0, got inf"),
    "-inf": ("min-sentences = -inf", "must be a finite number >= 0, got -inf"),
    "a fraction above 1": ("overlap-threshold = 60", "must be a number from 0 to 1, got 60"),
    "a nan fraction": ("example-ratio = nan", "'example-ratio' must be a number from 0 to 1"),
    "a boolean for a number": ("max-tools = true", "must be like 30, got True"),
    "an unknown option": ("max-toolz = 3", "did you mean 'max-tools'"),
}


@pytest.mark.parametrize("case", list(BAD_LINT_CONFIG))
def test_bad_lint_options_are_one_line_errors(cli: Cli, in_tmp: Path, case: str) -> None:
    setting, message = BAD_LINT_CONFIG[case]
    (in_tmp / "pyproject.toml").write_text(f"[tool.toolsel.lint.options]\n{setting}\n")
    (in_tmp / "r.yaml").write_text("tools:\n- {name: a_tool, description: does a thing}\n")
    run = cli("lint", "r.yaml")
    assert run.exit_code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert "pyproject.toml: option" in run.stderr or "unknown lint option" in run.stderr
    assert message in run.stderr and "Traceback" not in run.stderr


NUMERIC_OPTIONS = [
    name
    for name, default in DEFAULT_OPTIONS.items()
    if isinstance(default, (int, float)) and not isinstance(default, bool)
]


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1])
@pytest.mark.parametrize("name", NUMERIC_OPTIONS)
def test_no_numeric_option_takes_nan_infinity_or_a_negative(name: str, value: float) -> None:
    """NaN compares false with everything, so `nan` used to turn a check off silently."""
    with pytest.raises(ConfigError) as refused:
        build_config({"options": {name: value}}, all_rules(), source="toolsel.toml")
    assert str(refused.value).startswith(f"toolsel.toml: option {name!r} must be a")


@pytest.mark.parametrize("name", NUMERIC_OPTIONS)
def test_every_numeric_option_takes_zero_and_its_default(name: str) -> None:
    for value in (0, DEFAULT_OPTIONS[name]):
        config = build_config({"options": {name: value}}, all_rules(), source="x")
        assert config.option(name) == value


DEEP_ARRAY = "[" * 10_000 + "]" * 10_000
DEEP_TABLE = "{a = " * 10_000 + "1" + "}" * 10_000


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("pyproject.toml", f"[tool.other]\nx = {DEEP_ARRAY}\n", "nested too deeply to read"),
        ("pyproject.toml", f"[tool.other]\nx = {DEEP_TABLE}\n", "nested too deeply to read"),
        ("toolsel.toml", f"[lint]\nx = {DEEP_ARRAY}\n", "nested too deeply to read"),
        (
            "pyproject.toml",
            f"[tool.other]\n\nx = {'9' * 5000}\n",
            ":3:5: an integer of 5,000 digits",
        ),
    ],
    ids=["pyproject array", "pyproject inline table", "toolsel.toml", "5,000-digit integer"],
)
@pytest.mark.parametrize(
    "command",
    [("rank", "x"), ("lint",), ("deps", "--all"), ("replay", "t.jsonl"), ("stats", "t.jsonl")],
    ids=lambda c: c[0],
)
def test_a_config_python_cannot_read_is_one_line_everywhere(
    cli: Cli, in_tmp: Path, name: str, text: str, message: str, command: tuple[str, ...]
) -> None:
    (in_tmp / "registries").mkdir()
    (in_tmp / "registries" / "r.yaml").write_text("tools:\n- {name: a_tool, description: does}\n")
    (in_tmp / "t.jsonl").write_text('{"role": "tool", "tool_call_id": "x", "content": "ok"}\n')
    (in_tmp / name).write_text(text)
    run = cli(*command)
    assert run.exit_code == 2 and run.stdout == "" and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"toolsel: error: {in_tmp / name}") and message in run.stderr
    assert run.stderr.count("\n") == 1


def test_a_toolsel_toml_beside_an_unreadable_pyproject_is_the_way_round_it(
    cli: Cli, in_tmp: Path
) -> None:
    (in_tmp / "registries").mkdir()
    (in_tmp / "registries" / "r.yaml").write_text("tools:\n- {name: a_tool, description: does}\n")
    (in_tmp / "pyproject.toml").write_text(f"[tool.other]\nx = {DEEP_ARRAY}\n")
    refused = cli("rank", "x")
    assert refused.exit_code == 2 and "keep toolsel's settings in a toolsel.toml" in refused.stderr
    (in_tmp / "toolsel.toml").write_text("[lint]\n")
    assert cli("rank", "does", "-f", "json").exit_code == 0


def test_live_registry_entries_are_kept_as_written(in_tmp: Path) -> None:
    from toolsel.sources.project import find_config

    (in_tmp / "toolsel.toml").write_text(
        'registry = ["registries", "gh=mcp:npx -y server-github", "https://h.example/mcp"]\n'
        "connect = true\n"
    )
    config = find_config()
    assert config.connect is True
    assert [str(p) for p in config.registry] == [
        str(in_tmp / "registries"),
        "gh=mcp:npx -y server-github",
        "https:/h.example/mcp",  # a Path keeps one slash; toolsel.live puts it back
    ]


def test_connect_must_be_a_boolean(in_tmp: Path) -> None:
    from toolsel.sources.project import find_config

    (in_tmp / "toolsel.toml").write_text('connect = "yes"\n')
    with pytest.raises(ConfigError, match="`connect` must be true or false"):
        find_config()
