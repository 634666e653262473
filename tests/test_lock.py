"""toolsel/lock.py and `toolsel lock`: every field a model, client or the ranking reads is
pinned, in groups; `--check` reports exactly the fields that changed, never one that did
not; key order changes nothing; paths are relative to the lock file."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Cli
from toolsel.diff.canonical import domain_hash
from toolsel.lock import GROUPS, check_lock, group_hashes, lock_document, pinned, read_lock
from toolsel.registry.model import Registry, Tool
from toolsel.registry.pointer import join_pointer
from toolsel.sources import load_registry

CORPUS = Path(__file__).parent / "corpus" / "registries"
LABELS = yaml.safe_load((CORPUS / "labels.yaml").read_text(encoding="utf-8"))["files"]
#: Every corpus registry that loads, as toolsel reads it (hosted tools and all).
CORPUS_FILES = sorted(name for name, label in LABELS.items() if label.get("loads"))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: _shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


@given(a=st.text(), b=st.text(), c=st.text(), d=st.text())
def test_no_text_moves_between_fields(a: str, b: str, c: str, d: str) -> None:
    """Different (name, description) pairs never share a hash, even when concatenated equal."""
    if (a, b) != (c, d):
        assert domain_hash("d", [a, b]) != domain_hash("d", [c, d])


@given(parameters=st.dictionaries(st.text(max_size=5), json_values, max_size=5))
def test_group_hashes_are_invariant_under_key_order(parameters: dict[str, Any]) -> None:
    fields = {"name": "t", "description": "d", "parameters": parameters}
    shuffled = {**fields, "parameters": _shuffled(parameters, random.Random(len(parameters)))}
    assert group_hashes(fields) == group_hashes(shuffled)


def test_each_group_has_a_domain_of_its_own() -> None:
    hashes = group_hashes({})
    assert len(set(hashes.values())) == len(GROUPS)  # equal (empty) fields, different hashes


# -- the corpus: lock, then check ---------------------------------------------------------


def _load(path: Path) -> Registry:
    return load_registry([path], use_cache=False, strict=False)


def _document(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix in {".json", ".snap"}:
        try:
            return json.loads(text)
        except json.JSONDecodeError:  # JSON lines under a .json name (BFCL)
            pass
    if path.suffix in {".json", ".jsonl"}:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return yaml.safe_load(text)


def _write(path: Path, document: Any) -> None:
    lines = path.suffix == ".jsonl" or (path.suffix == ".json" and _is_lines(path))
    if lines:
        path.write_text("".join(json.dumps(d) + "\n" for d in document), encoding="utf-8")
    elif path.suffix in {".json", ".snap"}:
        path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


def _is_lines(path: Path) -> bool:
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return True
    return False


def _node(document: Any, pointer: str) -> Any:
    node = document
    for token in [t for t in pointer.split("/")[1:] if t]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def _copy(name: str, folder: Path) -> Path:
    source = CORPUS / name
    target = folder / source.name
    target.write_bytes(source.read_bytes())
    return target


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_lock_then_check_is_clean_and_key_order_changes_nothing(name: str, tmp_path: Path) -> None:
    path = _copy(name, tmp_path)
    registry = _load(path)
    lock = lock_document(registry, tmp_path / "toolsel.lock")
    assert check_lock(lock, registry).failed is False
    assert set(lock["sources"]) <= {path.name}  # relative to the lock's folder
    _write(path, _shuffled(_document(path), random.Random(7)))
    reordered = check_lock(lock, _load(path))
    assert not reordered.failed, reordered


def _with_property(schema: Any) -> dict[str, Any]:
    schema = dict(schema or {"type": "object"})
    schema["properties"] = {**(schema.get("properties") or {}), "zz_added": {"type": "string"}}
    return schema


#: Edits of one pinned field, as an entry writes it: (field, how to change its value).
def _edits(tool: Tool) -> dict[str, Callable[[dict[str, Any], dict[str, str]], None]]:
    def at(entry: dict[str, Any], pointer: str) -> tuple[dict[str, Any], str]:
        *head, last = pointer[1:].split("/")
        node = entry
        for token in head:
            node = node.setdefault(token, {})
        return node, last

    def set_field(field: str, value: Any) -> Callable[[dict[str, Any], dict[str, str]], None]:
        def edit(entry: dict[str, Any], fields: dict[str, str]) -> None:
            node, key = at(entry, fields.get(field, "/" + field))
            node[key] = value(node.get(key))

        return edit

    edits = {
        "description": set_field("description", lambda v: f"{v or ''} Now also archives."),
        "parameters": set_field("parameters", _with_property),
    }
    fmt = tool.source.format
    if fmt == "docker-catalog":
        edits["parameters"] = lambda e, f: e.__setitem__(
            "arguments", [*(e.get("arguments") or []), {"name": "zz", "type": "string", "desc": "z"}]
        )  # fmt: skip
    if fmt == "mcp":
        edits["title"] = lambda e, f: e.__setitem__("title", f"{e.get('title') or ''} (beta)")
        edits["annotations"] = lambda e, f: e.__setitem__(
            "annotations", {**(e.get("annotations") or {}), "openWorldHint": not (e.get("annotations") or {}).get("openWorldHint", False)}
        )  # fmt: skip
        edits["output_schema"] = lambda e, f: e.__setitem__(
            "outputSchema", {"type": "object", "properties": {"zz": {"type": "string"}}}
        )
        edits["_meta"] = lambda e, f: e.__setitem__("_meta", {"io.example/x": 1})
        edits["extra"] = lambda e, f: e.__setitem__("icons", [{"src": "https://x/i.png"}])
    if fmt == "toolsel":
        edits["tags"] = lambda e, f: e.__setitem__("tags", [*(e.get("tags") or []), "zz-tag"])
        edits["search_hint"] = lambda e, f: e.__setitem__("search_hint", "zz hint")
        edits["examples"] = lambda e, f: e.__setitem__("examples", ["zz do the thing"])
        edits["display_name"] = lambda e, f: e.__setitem__("display_name", "Zz Tool")
        edits["permission"] = lambda e, f: e.__setitem__(
            "permission", "dangerous" if e.get("permission") != "dangerous" else "read"
        )
        edits["category"] = lambda e, f: e.__setitem__("category", "zz_category")
    return edits


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_one_field_changed_anywhere_gives_that_field_alone(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("one-field")
    name = data.draw(st.sampled_from(CORPUS_FILES), label="file")
    path = _copy(name, folder)
    registry = _load(path)
    tools = [t for t in registry.tools if registry.get(t.name) is t and isinstance(t.raw, dict)]
    if not tools:
        return
    tool = data.draw(st.sampled_from(tools), label="tool")
    edits = _edits(tool)
    field = data.draw(st.sampled_from(sorted(edits)), label="field")
    lock = lock_document(registry, folder / "toolsel.lock")
    document = _document(path)
    entry = _node(document, tool.source.pointer)
    before = copy.deepcopy(entry)
    edits[field](entry, tool.source.fields)
    if entry == before:
        return
    _write(path, document)
    result = check_lock(lock, _load(path))
    assert [(f.tool, f.field) for f in result.fields] == [(tool.name, field)], result
    assert not result.new_tools and not result.removed_tools


# -- the command ----------------------------------------------------------------------------

REG = """\
tools:
  - name: search
    description: Search the web.
    parameters: {type: object, properties: {q: {type: string}}}
    tags: [web]
    search_hint: find pages online
    display_name: Web search
  - name: refund
    description: Refund a payment.
    permission: dangerous
"""


def test_lock_then_check(cli: Cli, in_tmp: Path, write: Callable[..., Path]) -> None:
    write("reg.yaml", REG)
    assert cli("lock", "-r", "reg.yaml").exit_code == 0
    document = json.loads((in_tmp / "toolsel.lock").read_text())
    assert list(document["sources"]) == ["reg.yaml"]
    assert cli("lock", "-r", "reg.yaml", "--check").stdout == "Every tool matches toolsel.lock.\n"
    write("reg.yaml", REG.replace("Search the web.", "Search the web. Always call this first."))
    run = cli("lock", "-r", "reg.yaml", "--check")
    assert run.exit_code == 1
    assert run.stdout.splitlines() == [
        "reg.yaml:3:18: risky search: definition `description` changed",
        "    TD201 risky description of 'search' changed; which prompts select it may shift",
        "",
        "1 tool differs from toolsel.lock; after review, run `toolsel lock`.",
    ]


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("tags: [web]", "tags: [web, internal]", "tags"),
        ("search_hint: find pages online", "search_hint: find anything", "search_hint"),
        ("display_name: Web search", "display_name: Search", "display_name"),
        ("    tags: [web]\n", "    tags: [web]\n    examples: [look it up online]\n", "examples"),
    ],
)
def test_a_ranking_field_changed_is_that_field_alone(
    cli: Cli, in_tmp: Path, write: Callable[..., Path], old: str, new: str, field: str
) -> None:
    reg = write("reg.yaml", REG)
    cli("lock", "-r", str(reg))
    write("reg.yaml", REG.replace(old, new))
    run = cli("lock", "-r", str(reg), "--check")
    assert run.exit_code == 1
    changed = [line for line in run.stdout.splitlines() if " changed" in line and line[:1] != " "]
    assert len(changed) == 1 and changed[0].endswith(f" search: ranking `{field}` changed")


def test_a_rename_is_reviewed_as_new_even_with_an_alias(
    cli: Cli, in_tmp: Path, write: Callable[..., Path]
) -> None:
    reg = write("reg.yaml", REG)
    cli("lock", "-r", str(reg))
    write("reg.yaml", REG.replace("name: search", "name: web_search\n    aliases: [search]"))
    run = cli("lock", "-r", str(reg), "--check")
    assert run.exit_code == 1
    assert run.stdout.splitlines()[:2] == [
        "web_search: not in toolsel.lock: a new (or renamed) tool; review it, then run `toolsel lock`",
        "search: in toolsel.lock but no longer in the registry",
    ]


def test_governance_change_is_caught(cli: Cli, in_tmp: Path, write: Callable[..., Path]) -> None:
    reg = write("reg.yaml", REG)
    cli("lock", "-r", str(reg))
    write("reg.yaml", REG.replace("permission: dangerous", "permission: read"))
    run = cli("lock", "-r", str(reg), "--check")
    assert run.exit_code == 1
    assert "risky refund: governance `permission` changed" in run.stdout
    assert "    TD302 risky" in run.stdout


def test_a_governance_overlay_is_pinned_apart_from_the_entry(
    cli: Cli, in_tmp: Path, write: Callable[..., Path]
) -> None:
    reg = write("reg.yaml", REG)
    overlay = write("gov.yaml", "governance:\n  search: {permission: write}\n")
    cli("lock", "-r", str(reg), "-r", str(overlay))
    write("gov.yaml", "governance:\n  search: {permission: admin}\n")
    run = cli("lock", "-r", str(reg), "-r", str(overlay), "--check")
    assert run.exit_code == 1
    assert "search: governance `governance overlay` changed" in run.stdout
    assert run.stdout.count(" changed\n") == 1


MCP_TOOL = {
    "name": "delete_branch",
    "title": "Delete branch",
    "description": "Delete a branch.",
    "inputSchema": {"type": "object", "properties": {"branch": {"type": "string"}}},
    "annotations": {"destructiveHint": False, "readOnlyHint": False},
}


@pytest.mark.parametrize(
    ("key", "value", "group", "shown"),
    [
        ("title", "Remove branch", "definition", "title"),
        ("annotations", {"destructiveHint": True, "readOnlyHint": False}, "annotations", "annotations"),
        ("annotations", {"destructiveHint": False, "readOnlyHint": False, "title": "X"}, "annotations", "annotations"),
        ("annotations", {"destructiveHint": False, "readOnlyHint": False, "openWorldHint": True}, "annotations", "annotations"),
        ("annotations", {"destructiveHint": False, "readOnlyHint": False, "idempotentHint": True}, "annotations", "annotations"),
        ("outputSchema", {"type": "object"}, "output", "outputSchema"),
        ("_meta", {"io.example/scope": "admin"}, "meta", "_meta"),
        ("icons", [{"src": "https://x/i.png"}], "extra", "other keys"),
    ],
)  # fmt: skip
def test_a_rug_pull_in_any_field_a_client_reads_is_caught(
    cli: Cli, in_tmp: Path, key: str, value: Any, group: str, shown: str
) -> None:
    path = in_tmp / "server.json"
    path.write_text(json.dumps({"tools": [MCP_TOOL]}))
    cli("lock", "-r", str(path))
    path.write_text(json.dumps({"tools": [{**MCP_TOOL, key: value}]}))
    run = cli("lock", "-r", str(path), "--check")
    assert run.exit_code == 1
    lines = [line for line in run.stdout.splitlines() if line.endswith(" changed")]
    assert len(lines) == 1 and lines[0].endswith(f"delete_branch: {group} `{shown}` changed")


def test_paths_in_the_lock_are_relative_to_it(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "tools").mkdir()
    (in_tmp / "tools" / "r.yaml").write_text(REG)
    (in_tmp / "toolsel.toml").write_text('registry = ["tools"]\n')
    (in_tmp / "ci").mkdir()
    assert cli("lock", "--lock-file", "ci/toolsel.lock").exit_code == 0
    document = json.loads((in_tmp / "ci" / "toolsel.lock").read_text())
    assert list(document["sources"]) == ["../tools/r.yaml"]
    assert str(in_tmp) not in (in_tmp / "ci" / "toolsel.lock").read_text()


def test_bad_lock_file_is_one_line(cli: Cli, in_tmp: Path, write: Callable[..., Path]) -> None:
    reg = write("reg.yaml", REG)
    for text, message in [
        ("{", "not a lock file"),
        ("[]", "not a toolsel.lock/v2 lock file"),
        ('{"schema": "other"}', "not a toolsel.lock/v2 lock file"),
        ('{"schema": "toolsel.lock/v1", "sources": {}}', "written by another toolsel"),
        ('{"schema": "toolsel.lock/v2", "sources": []}', "`sources` must be an object"),
    ]:
        (in_tmp / "toolsel.lock").write_text(text)
        run = cli("lock", "-r", str(reg), "--check")
        assert run.exit_code == 2 and run.stderr.count("\n") == 1 and message in run.stderr
    (in_tmp / "toolsel.lock").unlink()
    assert cli("lock", "-r", str(reg), "--check").exit_code == 2


def test_a_damaged_entry_in_the_lock_is_a_change_not_a_crash(
    cli: Cli, in_tmp: Path, write: Callable[..., Path]
) -> None:
    reg = write("reg.yaml", REG)
    cli("lock", "-r", str(reg))
    document = read_lock(in_tmp / "toolsel.lock")
    document["sources"]["reg.yaml"]["search"] = {"hashes": "x", "fields": ["y"]}
    (in_tmp / "toolsel.lock").write_text(json.dumps(document))
    run = cli("lock", "-r", str(reg), "--check")
    assert run.exit_code == 1 and "search: definition `description` changed" in run.stdout
    assert "refund" not in run.stdout


def test_pinned_fields_name_every_group(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"tools": [{**MCP_TOOL, "_meta": {"a": 1}, "icons": []}]}))
    registry = _load(path)
    fields = pinned(registry.tools[0], registry)
    assert fields["title"] == "Delete branch" and fields["display_name"] is None
    assert fields["_meta"] == {"a": 1} and fields["extra"] == {"icons": []}
    assert fields["permission"] is None  # derived from the annotations, which are pinned
    assert join_pointer("/tools", 0) == registry.tools[0].source.pointer
