"""The built-in tool catalogs under toolsel/catalogs: each loads, lints clean of errors,
names its sources, knows every built-in tool name the transcript corpus calls, and accepts
the arguments those recorded calls sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from toolsel.lint.engine import lint_registry
from toolsel.lint.model import Severity
from toolsel.registry import load_registry
from toolsel.registry.model import Registry, Tool
from toolsel.validate import InputValidator

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = ROOT / "toolsel" / "catalogs"
CORPUS = ROOT / "tests" / "corpus" / "transcripts"

#: Built-in tool names called in the corpus's real and fixture sessions, per catalog.
#: Left out, as names no release of the client uses: Claude Code `bash` (lowercase, in
#: agent-sessions' schema-drift fixtures), Gemini CLI `edit_file` (agent-history's fixture;
#: Gemini CLI's edit tool is `replace`) and `Bash` (untether's stream-json fixture).
SEEN = {
    "claude-code": {
        "Agent", "Task", "Bash", "BashOutput", "KillBash", "KillShell", "TaskOutput", "Glob",
        "Grep", "Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "WebSearch", "TodoWrite",
        "ExitPlanMode", "EnterPlanMode", "AskUserQuestion", "Skill", "Workflow",
        "ScheduleWakeup",
    },
    "codex": {
        "shell", "apply_patch", "update_plan", "exec_command", "spawn_agent", "web_search",
        "web_search_call", "tool_search_call",
    },
    "gemini-cli": {"run_shell_command", "read_file", "write_file"},
}  # fmt: skip
#: Where each catalog's recorded calls are, for the argument check, and how many calls at
#: least it must check (so it cannot pass by finding none).
SESSIONS = {
    "claude-code": (("claude-code", "claude-stream-json"), 8),
    "gemini-cli": (("gemini-cli", "gemini-stream-json"), 3),
}
#: Hand-written fixtures whose calls no client sends: this one's Task call has no `prompt`,
#: which every Claude Code version requires.
NOT_CLIENT_OUTPUT = {"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl"}


def catalog(name: str) -> Registry:
    return load_registry(CATALOGS / f"{name}.yaml", use_cache=False)


def by_any_name(registry: Registry) -> dict[str, Tool]:
    """Each tool under its name and under each of its aliases."""
    names: dict[str, Tool] = {}
    for tool in registry.tools:
        for name in (tool.name, *tool.aliases):
            names.setdefault(name, tool)
    return names


def recorded_calls(folders: tuple[str, ...]) -> Iterator[tuple[str, str, Any]]:
    """(file, tool name, arguments) of every call in the sessions under `folders`: Anthropic
    `tool_use` blocks, stream-json `tool_use` events and Gemini `toolCalls`."""
    for folder in folders:
        for path in sorted((CORPUS / folder).rglob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                for name, arguments in _calls_in(record):
                    yield path.name, name, arguments


def _calls_in(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, list):
        for item in value:
            yield from _calls_in(item)
        return
    if not isinstance(value, dict):
        return
    if value.get("type") == "tool_use" and isinstance(value.get("name"), str):
        yield value["name"], value.get("input")
    elif value.get("type") == "tool_use" and isinstance(value.get("tool_name"), str):
        yield value["tool_name"], value.get("parameters")
    for call in value.get("toolCalls") or ():
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            yield call["name"], call.get("args")
    for item in value.values():
        yield from _calls_in(item)


@pytest.mark.parametrize("name", sorted(SEEN))
def test_catalog_loads_strictly_with_unique_names(name: str) -> None:
    registry = catalog(name)
    assert registry.problems == ()
    names = [tool.name for tool in registry.tools]
    aliases = [alias for tool in registry.tools for alias in tool.aliases]
    assert len(names) == len(set(names)), "a tool is defined twice"
    assert not set(names) & set(aliases), "an alias shadows a tool name"
    assert len(aliases) == len(set(aliases)), "an alias names two tools"


@pytest.mark.parametrize("name", sorted(SEEN))
def test_catalog_knows_every_built_in_name_the_corpus_calls(name: str) -> None:
    missing = SEEN[name] - set(by_any_name(catalog(name)))
    assert not missing, f"{name} lacks {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(SEEN))
def test_every_tool_is_described_and_takes_an_object(name: str) -> None:
    for tool in catalog(name).tools:
        assert tool.description.strip(), tool.name
        assert tool.parameters.get("type") == "object", tool.name
        assert isinstance(tool.parameters.get("properties", {}), dict), tool.name


@pytest.mark.parametrize("name", sorted(SEEN))
def test_default_lint_finds_no_error(name: str) -> None:
    findings = lint_registry(catalog(name), use_cache=False).findings
    errors = [f"{f.rule} {f.tool} {f.message}" for f in findings if f.severity is Severity.ERROR]
    assert errors == []


@pytest.mark.parametrize("name", sorted(SEEN))
def test_header_names_version_sources_and_licences(name: str) -> None:
    header = (CATALOGS / f"{name}.yaml").read_text(encoding="utf-8").split("\nversion: 1\n")[0]
    assert header.startswith("# Built-in tools of ")
    for needed in ("version", "repository:", "commit", "licence"):
        assert needed in header.lower(), needed
    assert all(line.startswith("#") for line in header.splitlines())


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_recorded_calls_validate_against_the_catalog(name: str) -> None:
    tools = by_any_name(catalog(name))
    checked, invalid = 0, []
    folders, at_least = SESSIONS[name]
    for file, tool_name, arguments in recorded_calls(folders):
        tool = tools.get(tool_name)
        if tool is None or file in NOT_CLIENT_OUTPUT:  # MCP tools, fixtures' inventions
            continue
        problem = InputValidator(tool.parameters).check(arguments)
        checked += 1
        if problem is not None:
            invalid.append(f"{file}: {tool_name}: {problem}")
    assert invalid == []
    assert checked >= at_least, checked  # the check ran on real calls


def test_a_call_outside_the_schema_is_caught() -> None:
    """The argument check can fail: Read without its required file_path is invalid."""
    read = by_any_name(catalog("claude-code"))["Read"]
    assert InputValidator(read.parameters).check({"path": "/etc/hosts"}) is not None


@pytest.mark.parametrize("name", sorted(SEEN))
def test_catalog_ships_inside_the_package(name: str) -> None:
    assert resources.files("toolsel").joinpath("catalogs", f"{name}.yaml").is_file()
