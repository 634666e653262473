"""toolsel/lock.py and `toolsel lock`: every field a model, client or the ranking reads is
pinned, in groups; `--check` reports exactly the fields that changed, never one that did
not; key order changes nothing; paths are relative to the lock file."""

from __future__ import annotations

import copy
import json
import random
import sys
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


# -- the lock document, field by field ---------------------------------------------------


def _lock_and_reload(
    tmp_path: Path, before: str, after: str, name: str = "reg.yaml"
) -> tuple[dict[str, Any], Registry]:
    path = tmp_path / name
    path.write_text(before, encoding="utf-8")
    document = lock_document(_load(path), tmp_path / "toolsel.lock")
    path.write_text(after, encoding="utf-8")
    return document, _load(path)


def _changes(document: dict[str, Any], registry: Registry) -> list[tuple[Any, ...]]:
    """Each changed field as (tool, group, field, shown, line, column, class, changes), each
    change as (rule, class, message, the value locked, the value now)."""
    result = check_lock(document, registry)
    return [
        (
            f.tool, f.group, f.field, f.shown, f.line, f.column, f.change_class.value,
            [
                (c.rule, c.change_class.value, c.message,
                 c.old.value if c.old else None, c.new.value if c.new else None)
                for c in f.changes
            ],
        )
        for f in result.fields
    ]  # fmt: skip


def test_the_lock_pins_each_field_as_written_and_hashes_each_group_in_its_domain(
    tmp_path: Path,
) -> None:
    (tmp_path / "reg.yaml").write_text(REG)
    document = lock_document(_load(tmp_path / "reg.yaml"), tmp_path / "toolsel.lock")
    parameters = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert document == {
        "schema": "toolsel.lock/v2",
        "sources": {
            "reg.yaml": {
                "search": {
                    "fields": {
                        "name": "search",
                        "description": "Search the web.",
                        "parameters": parameters,
                        "display_name": "Web search",
                        "tags": ["web"],
                        "search_hint": "find pages online",
                    },
                    "hashes": {
                        "definition": domain_hash(
                            "toolsel.lock.definition/v2",
                            ["search", None, "Search the web.", parameters],
                        ),
                        "output": domain_hash("toolsel.lock.output/v2", [None]),
                        "annotations": domain_hash("toolsel.lock.annotations/v2", [None]),
                        "meta": domain_hash("toolsel.lock.meta/v2", [None]),
                        "governance": domain_hash("toolsel.lock.governance/v2", [None] * 13),
                        "ranking": domain_hash(
                            "toolsel.lock.ranking/v2",
                            ["Web search", ["web"], "find pages online", None, None],
                        ),
                        "extra": domain_hash("toolsel.lock.extra/v2", [None]),
                    },
                },
                "refund": {
                    "fields": {
                        "name": "refund",
                        "description": "Refund a payment.",
                        "parameters": {"type": "object", "properties": {}},
                        "permission": "dangerous",
                    },
                    "hashes": {
                        "definition": domain_hash(
                            "toolsel.lock.definition/v2",
                            [
                                "refund",
                                None,
                                "Refund a payment.",
                                {"type": "object", "properties": {}},
                            ],
                        ),
                        "output": domain_hash("toolsel.lock.output/v2", [None]),
                        "annotations": domain_hash("toolsel.lock.annotations/v2", [None]),
                        "meta": domain_hash("toolsel.lock.meta/v2", [None]),
                        "governance": domain_hash(
                            "toolsel.lock.governance/v2", ["dangerous", *[None] * 12]
                        ),
                        "ranking": domain_hash("toolsel.lock.ranking/v2", [None] * 5),
                        "extra": domain_hash("toolsel.lock.extra/v2", [None]),
                    },
                },
            }
        },
    }


def test_of_two_tools_with_one_name_the_first_is_locked_and_checked(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("tools:\n- {name: search, description: The first one.}\n")
    second.write_text(
        "tools:\n- {name: search, description: The second one.}\n"
        "- {name: fetch, description: Fetch a page.}\n"
    )
    registry = load_registry([first, second], use_cache=False, strict=False)
    document = lock_document(registry, tmp_path / "toolsel.lock")
    assert {source: list(tools) for source, tools in document["sources"].items()} == {
        "a.yaml": ["search"],
        "b.yaml": ["fetch"],
    }
    assert document["sources"]["a.yaml"]["search"]["fields"]["description"] == "The first one."
    second.write_text(
        "tools:\n- {name: search, description: Changed, but never the one called.}\n"
        "- {name: fetch, description: Fetch a page.}\n"
    )
    unchanged = check_lock(document, load_registry([first, second], use_cache=False, strict=False))
    assert unchanged.failed is False
    first.write_text("tools:\n- {name: search, description: The first one changed.}\n")
    changed = check_lock(document, load_registry([first, second], use_cache=False, strict=False))
    assert [(f.tool, f.field, f.file) for f in changed.fields] == [
        ("search", "description", str(first))
    ]


def test_examples_of_the_entry_and_of_an_overlay_are_pinned_apart(tmp_path: Path) -> None:
    registry_file, overlay = tmp_path / "reg.yaml", tmp_path / "examples.yaml"
    registry_file.write_text(
        "tools:\n- name: search\n  description: Search the web.\n  examples: [find it]\n"
    )
    overlay.write_text("examples:\n  search:\n  - find it\n  - look it up online\n")
    registry = load_registry([registry_file, overlay], use_cache=False, strict=False)
    fields = pinned(registry.get("search"), registry)  # type: ignore[arg-type]
    assert (fields["examples"], fields["overlay_examples"]) == (["find it"], ["look it up online"])
    document = lock_document(registry, tmp_path / "toolsel.lock")
    overlay.write_text("examples:\n  search:\n  - look up anything online\n")
    now = load_registry([registry_file, overlay], use_cache=False, strict=False)
    assert _changes(document, now) == [
        ("search", "ranking", "overlay_examples", "examples from an overlay", 2, 3, "risky", [])
    ]
    registry_file.write_text("tools:\n- name: search\n  description: Search the web.\n")
    overlay.write_text("examples:\n  search:\n  - look it up online\n")
    now = load_registry([registry_file, overlay], use_cache=False, strict=False)
    assert _changes(document, now) == [
        ("search", "ranking", "examples", "examples", 2, 3, "risky", [])
    ]


def test_the_keys_a_format_reads_are_not_pinned_twice_and_locking_changes_no_entry(
    tmp_path: Path,
) -> None:
    """OpenAI's entries nest their fields under `function`: what is left of it, and every
    other key, is pinned as other keys; the registry's entries are left as they were."""
    entry = {
        "type": "function",
        "x-top": 1,
        "function": {"name": "f", "description": "F.", "parameters": {"type": "object"}, "x-in": 2},
    }
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([entry]))
    registry = _load(path)
    document = lock_document(registry, tmp_path / "toolsel.lock")
    assert document["sources"]["tools.json"]["f"]["fields"]["extra"] == {
        "type": "function",
        "x-top": 1,
        "function": {"x-in": 2},
    }
    assert registry.tools[0].raw == entry
    path.write_text(json.dumps([{k: v for k, v in entry.items() if k != "x-top"}]))
    assert [(f.tool, f.field) for f in check_lock(document, _load(path)).fields] == [("f", "extra")]
    bare = {"type": "function", "function": {"name": "f", "description": "F."}}
    path.write_text(json.dumps([bare]))
    assert pinned(_load(path).tools[0], _load(path))["extra"] == {"type": "function"}


def test_a_changed_meta_is_located_at_its_own_key(tmp_path: Path) -> None:
    path = tmp_path / "server.json"
    tool = {**MCP_TOOL, "_meta": {"io.example/scope": "read"}}
    path.write_text(json.dumps({"tools": [tool]}, indent=1))
    document = lock_document(_load(path), tmp_path / "toolsel.lock")
    path.write_text(
        json.dumps({"tools": [{**tool, "_meta": {"io.example/scope": "admin"}}]}, indent=1)
    )
    text = path.read_text().splitlines()
    line = next(i for i, t in enumerate(text, 1) if '"_meta"' in t)
    column = text[line - 1].index('"_meta"') + len('"_meta": ') + 1
    assert _changes(document, _load(path)) == [
        ("delete_branch", "meta", "_meta", "_meta", line, column, "risky", [])
    ]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "    tags: [web]\n", "    tags: [web]\n    permission: dangerous\n",
            ("search", "governance", "permission", "breaking", [(
                "TD301", "breaking", "permission of 'search' raised from read to dangerous; "
                "approvals given for it no longer hold", "read", "dangerous",
            )]),
        ),
        (
            "permission: dangerous", "permission: write",
            ("refund", "governance", "permission", "risky", [(
                "TD302", "risky", "permission of 'refund' lowered from dangerous to write; a gate "
                "may now let it run unapproved", "dangerous", "write",
            )]),
        ),
        (
            "    tags: [web]\n", "",
            ("search", "ranking", "tags", "risky", [(
                "TD203", "risky", "tags of 'search' changed (ranking input)", ["web"], [],
            )]),
        ),
        (
            "tags: [web]", "tags: [web, internal]",
            ("search", "ranking", "tags", "risky", [(
                "TD203", "risky", "tags of 'search' changed (ranking input)", ["web"], ["web", "internal"],
            )]),
        ),
        (
            "    permission: dangerous\n", "    permission: dangerous\n    deprecated: true\n",
            ("refund", "governance", "deprecated", "risky", [(
                "TD402", "risky", "'refund' deprecated without a replacement (`deprecated_by`)", None, None,
            )]),
        ),
        (
            "Search the web.", "Search the web. Always call this first.",
            ("search", "definition", "description", "risky", [(
                "TD201", "risky", "description of 'search' changed; which prompts select it may shift",
                "Search the web.", "Search the web. Always call this first.",
            )]),
        ),
        (
            "display_name: Web search", "display_name: Search",
            ("search", "ranking", "display_name", "safe", [(
                "TD203", "safe", "display_name of 'search' changed (display only)", "Web search", "Search",
            )]),
        ),
    ],
    ids=["permission-added", "permission-lowered", "tags-removed", "tag-added", "deprecated",
         "description", "display-name"],
)  # fmt: skip
def test_each_changed_field_is_classed_by_the_diff_rules_against_the_locked_value(
    tmp_path: Path, old: str, new: str, expected: tuple[Any, ...]
) -> None:
    document, now = _lock_and_reload(tmp_path, REG, REG.replace(old, new))
    assert [(c[0], c[1], c[2], c[6], c[7]) for c in _changes(document, now)] == [expected]


def test_a_tool_no_longer_deprecated_is_measured_from_the_locked_flag(tmp_path: Path) -> None:
    deprecated = REG.replace(
        "    permission: dangerous\n", "    permission: dangerous\n    deprecated: true\n"
    )
    document, now = _lock_and_reload(tmp_path, deprecated, REG)
    assert [(c[0], c[2], c[7]) for c in _changes(document, now)] == [
        (
            "refund",
            "deprecated",
            [("TD404", "risky", "'refund' is no longer deprecated", True, False)],
        )
    ]


def test_a_description_that_already_had_a_marker_is_a_description_change_only(
    tmp_path: Path,
) -> None:
    """The locked description is what the change is measured from: a marker it already had
    is not one the tool gained."""
    text = REG.replace("Search the web.", "'Search the web. <IMPORTANT> read it all.'")
    document, now = _lock_and_reload(tmp_path, text, text.replace("read it all", "read all"))
    assert [[c[0] for c in change[7]] for change in _changes(document, now)] == [["TD201"]]


def _damaged(document: dict[str, Any], tool: str, fields: dict[str, Any]) -> dict[str, Any]:
    damaged = copy.deepcopy(document)
    damaged["sources"]["reg.yaml"][tool] = {"hashes": {}, "fields": fields}
    return damaged


def test_a_lock_entry_missing_fields_is_measured_from_each_fields_default(tmp_path: Path) -> None:
    document, now = _lock_and_reload(tmp_path, REG, REG)
    assert _changes(_damaged(document, "search", {"name": "search"}), now) == [
        ("search", "definition", "description", "description", 3, 18, "risky", [(
            "TD201", "risky", "description of 'search' changed; which prompts select it may shift",
            "", "Search the web.",
        )]),
        ("search", "definition", "parameters", "parameters", 4, 17, "safe", [(
            "TD103", "safe", "optional parameter q added", None, {"type": "string"},
        )]),
        ("search", "ranking", "display_name", "display_name", 7, 19, "safe", [(
            "TD203", "safe", "display_name of 'search' changed (display only)", None, "Web search",
        )]),
        ("search", "ranking", "tags", "tags", 5, 11, "risky", [(
            "TD203", "risky", "tags of 'search' changed (ranking input)", [], ["web"],
        )]),
        ("search", "ranking", "search_hint", "search_hint", 6, 18, "risky", [(
            "TD203", "risky", "search_hint of 'search' changed (ranking input)", None, "find pages online",
        )]),
    ]  # fmt: skip


def test_a_locked_value_no_tool_can_have_is_reported_unclassed(tmp_path: Path) -> None:
    """A damaged lock (a name that is not text, a permission toolsel does not know) still
    names the field, with no class from the diff rules (risky: a client reads it)."""
    document, now = _lock_and_reload(tmp_path, REG, REG)
    fields = {**document["sources"]["reg.yaml"]["refund"]["fields"], "name": 5}
    assert _changes(_damaged(document, "refund", fields), now) == [
        ("refund", "definition", "name", "name", 8, 11, "risky", [])
    ]
    fields = {**document["sources"]["reg.yaml"]["refund"]["fields"], "permission": "root"}
    assert _changes(_damaged(document, "refund", fields), now) == [
        ("refund", "governance", "permission", "permission", 10, 17, "risky", [])
    ]


def test_the_most_severe_class_of_a_fields_changes_is_its_class(tmp_path: Path) -> None:
    widened = REG.replace(
        "properties: {q: {type: string}}", "properties: {q: {type: string}, n: {type: integer}}, "
        "required: [n]"
    )  # fmt: skip
    document, now = _lock_and_reload(tmp_path, REG, widened)
    [field] = check_lock(document, now).fields
    assert sorted((c.rule, c.change_class.value) for c in field.changes) == [
        ("TD102", "breaking"),
    ]
    assert field.change_class.value == "breaking"
    loosened = REG.replace("properties: {q: {type: string}}", "properties: {}")
    document, now = _lock_and_reload(tmp_path, REG, loosened)
    [field] = check_lock(document, now).fields
    assert [(c.rule, c.change_class.value) for c in field.changes] == [("TD101", "risky")]
    assert field.change_class.value == "risky"


def test_changed_tools_are_each_named_once_in_order(tmp_path: Path) -> None:
    changed = REG.replace("Search the web.", "Search it.").replace("tags: [web]", "tags: [x]")
    changed = changed.replace("Refund a payment.", "Refund it.")
    document, now = _lock_and_reload(tmp_path, REG, changed)
    result = check_lock(document, now)
    assert [(f.tool, f.field) for f in result.fields] == [
        ("search", "description"), ("search", "tags"), ("refund", "description"),
    ]  # fmt: skip
    assert result.changed_tools == ("search", "refund") and result.failed is True
    assert (result.new_tools, result.removed_tools) == ((), ())


def test_a_lock_naming_no_tool_the_registry_has_fails_on_each(tmp_path: Path) -> None:
    document, now = _lock_and_reload(tmp_path, REG, REG)
    document["sources"]["reg.yaml"] = {"search": "not an entry", "gone": {"fields": {}}}
    document["sources"]["other.yaml"] = ["not", "a", "table"]
    result = check_lock(document, now)
    assert (result.fields, result.new_tools, result.removed_tools) == (
        (),
        ("search", "refund"),
        ("gone",),
    )
    assert result.failed is True
    assert check_lock({"sources": {}}, Registry((), (), {})).failed is False


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "LOCK: not a lock file: unexpected end of data: line 1 column 2 (char 1) "
              "(write it again with `toolsel lock`)"),
        ("[]", "LOCK: not a toolsel.lock/v2 lock file (write it again with `toolsel lock`)"),
        ('{"schema": "other"}',
         "LOCK: not a toolsel.lock/v2 lock file (write it again with `toolsel lock`)"),
        ('{"schema": 2}', "LOCK: not a toolsel.lock/v2 lock file (write it again with `toolsel lock`)"),
        ('{"schema": "toolsel.lock/v1", "sources": {}}',
         "LOCK: written by another toolsel (toolsel.lock/v1; this one reads toolsel.lock/v2) "
         "(review the registry, then write it again with `toolsel lock`)"),
        ('{"schema": "toolsel.lock/v2", "sources": []}',
         "LOCK: `sources` must be an object (write it again with `toolsel lock`)"),
        ('{"schema": "toolsel.lock/v2"}',
         "LOCK: `sources` must be an object (write it again with `toolsel lock`)"),
    ],
)  # fmt: skip
def test_read_lock_says_what_is_wrong_and_what_to_do(
    tmp_path: Path, text: str, message: str
) -> None:
    from toolsel.errors import UsageError

    path = tmp_path / "toolsel.lock"
    path.write_text(text)
    with pytest.raises(UsageError) as refused:
        read_lock(path)
    assert str(refused.value) == message.replace("LOCK", str(path))


def test_read_lock_of_a_missing_file_says_how_to_write_one(tmp_path: Path) -> None:
    from toolsel.errors import UsageError

    with pytest.raises(UsageError) as refused:
        read_lock(tmp_path / "toolsel.lock")
    assert str(refused.value) == (
        f"{tmp_path / 'toolsel.lock'}: cannot read the lock file: No such file or directory "
        "(write it with `toolsel lock`)"
    )
    (tmp_path / "toolsel.lock").write_text('{"schema": "toolsel.lock/v2", "sources": {"a": 1}}')
    assert read_lock(tmp_path / "toolsel.lock") == {
        "schema": "toolsel.lock/v2",
        "sources": {"a": 1},
    }


# -- sources: each named as the user named it, wherever the lock is ----------------------


def _servers() -> str:
    pytest.importorskip("mcp")
    from tests.live.mcp_servers import __file__ as servers

    return servers


def test_a_servers_snapshot_read_as_a_file_is_locked_under_the_server_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.live import resolve_config, resolve_live
    from toolsel.registry.loader import load_registry as load_files

    servers = _servers()
    monkeypatch.chdir(tmp_path)
    command = f"{sys.executable} {servers} pager"
    [(typed, _)] = resolve_live("stdio", command, "gh", credentials=False)
    config = tmp_path / ".mcp.json"
    entry = {"command": sys.executable, "args": [servers, "pager"]}
    config.write_text(json.dumps({"mcpServers": {"files": entry}}))
    [(named, _)] = resolve_config(config)
    (tmp_path / "ci").mkdir()
    for snapshot, label in ((typed, f"mcp:{command}"), (named, "../.mcp.json#files")):
        registry = load_files([snapshot], use_cache=False)
        document = lock_document(registry, tmp_path / "ci" / "toolsel.lock")
        assert list(document["sources"]) == [label]
        assert len(document["sources"][label]) == 5


def test_a_url_server_is_locked_under_its_url_wherever_the_lock_is(tmp_path: Path) -> None:
    _servers()
    from tests.live.test_fetch import http_server

    with http_server("pager") as url:
        registry = load_registry([url], use_cache=False)
    document = lock_document(registry, tmp_path / "ci" / "toolsel.lock")
    assert list(document["sources"]) == [url]


def test_a_command_server_is_locked_under_its_command_wherever_the_lock_is(
    tmp_path: Path,
) -> None:
    command = f"{sys.executable} {_servers()} pager"
    registry = load_registry([f"mcp:{command}"], use_cache=False)
    document = lock_document(registry, tmp_path / "ci" / "toolsel.lock")
    assert list(document["sources"]) == [f"mcp:{command}"]


def test_a_catalog_is_locked_under_its_builtin_name(tmp_path: Path) -> None:
    document = lock_document(load_registry(["builtin:codex"]), tmp_path / "toolsel.lock")
    assert list(document["sources"]) == ["builtin:codex"]


def test_a_docker_catalog_tools_title_is_pinned(tmp_path: Path) -> None:
    entry = {"name": "get_scene", "title": "Get scene", "description": "Get the scene.",
             "arguments": [{"name": "x", "type": "string", "desc": "x"}]}  # fmt: skip
    document, now = _lock_and_reload(
        tmp_path, json.dumps([entry]), json.dumps([{**entry, "title": "Delete all"}]), "tools.json"
    )
    assert check_lock(document, now).changed_tools == ("get_scene",)


def test_a_catalog_and_a_command_server_are_locked_as_named_through_the_cli(
    cli: Cli, in_tmp: Path
) -> None:
    command = f"{sys.executable} {_servers()} pager"
    (in_tmp / "ci").mkdir()
    run = cli("lock", "-r", "builtin:codex", "-r", f"mcp:{command}", "--lock-file", "ci/t.lock")
    assert run.exit_code == 0
    document = json.loads((in_tmp / "ci" / "t.lock").read_text())
    assert list(document["sources"]) == ["builtin:codex", f"mcp:{command}"]
    again = cli("lock", "-r", "builtin:codex", "-r", f"mcp:{command}", "--lock-file", "ci/t.lock",
                "--check")  # fmt: skip
    assert (again.exit_code, again.stdout) == (0, "Every tool matches ci/t.lock.\n")


def test_a_docker_catalog_tools_title_changed_fails_the_check(
    cli: Cli, in_tmp: Path, write: Callable[..., Path]
) -> None:
    entry = {"name": "get_scene", "title": "Get scene", "description": "Get the scene.",
             "arguments": [{"name": "x", "type": "string", "desc": "x"}]}  # fmt: skip
    tools = write("tools.json", json.dumps([entry]))
    assert cli("lock", "-r", str(tools)).exit_code == 0
    tools.write_text(json.dumps([{**entry, "title": "Delete all"}]))
    run = cli("lock", "-r", str(tools), "--check")
    assert run.exit_code == 1
    assert run.stdout.splitlines()[0] == f"{tools}:1:2: risky get_scene: extra `other keys` changed"
