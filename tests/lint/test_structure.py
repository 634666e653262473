"""TS0xx (lint/rules/structure.py): the file parses and has the registry's shape."""

from __future__ import annotations

from tests.lint.helpers import assert_findings


def test_loader_problems_are_reported_by_kind() -> None:
    assert_findings("- name: a\n  description: [unclosed\n", ["TS001 "], rule="TS00")
    assert_findings(
        "- name: a\n  description: x\n  description: y\n",
        ["TS002 /tools/0/description"],
        rule="TS002",
    )
    assert_findings(
        "- name: a\n  description: d\n  tags: one\n  deprecated: 'yes'\n",
        ["TS003 /tools/0/tags", "TS003 /tools/0/deprecated"],
        rule="TS003",
    )
    assert_findings(
        "- description: d\n- name: b\n", ["TS004 /tools/0", "TS004 /tools/1"], rule="TS004"
    )
    assert_findings(
        "- name: a\n  description: d\n  requries: [b]\n", ["TS006 /tools/0/requries"], rule="TS006"
    )


def test_missing_parameters_points_at_the_name() -> None:
    assert_findings("- name: a\n  description: d\n", ["TS005 /tools/0/name"], rule="TS005")
    assert_findings(
        "- name: a\n  description: d\n  parameters: {type: object, properties: {}}\n",
        [],
        rule="TS005",
    )


def test_duplicate_and_near_duplicate_names() -> None:
    text = (
        "- {name: get_user, description: d}\n- {name: getUser, description: d}\n"
        "- {name: get_user, description: d}\n"
    )
    assert_findings(text, ["TS007 /tools/2/name"], rule="TS007")
    assert_findings(text, ["TS008 /tools/1/name"], rule="TS008")


def test_built_in_tools_are_noted_not_errors() -> None:
    from tests.lint.helpers import lint_text

    text = "- type: file_search\n- type: web_search_20250305\n  name: web_search\n" + (
        "- name: a\n  description: Reads a file.\n"
    )
    found = [
        (f.rule, f.severity.value, f.pointer)
        for f in lint_text(text)
        if f.rule in ("TS004", "TS010", "TS006")
    ]
    assert found == [("TS010", "info", "/tools/0"), ("TS010", "info", "/tools/1")]


def test_a_typo_is_a_warning_and_other_metadata_is_information() -> None:
    """TS006 only for a key one or two edits from one the shape reads (case and `_`/`-`
    aside); a key that is nobody's typo is the file's own metadata: TS011, info."""
    from tests.lint.helpers import lint_text

    text = (
        "- name: a\n  description: d\n  descripton: typo\n  display-name: A\n  require: [b]\n"
        "  title: MCP's display title\n  safety: safe\n  command: run {x}\n  api: {path: /v1}\n"
        "- name: b\n  description: d\n  inputSchema: {type: object}\n  category: files\n"
        "  tittle: B\n"
    )
    found = {(f.rule, f.pointer.rsplit("/", 1)[-1], f.severity.value) for f in lint_text(text)}
    assert {f for f in found if f[0] in ("TS006", "TS011")} == {
        ("TS006", "descripton", "warning"),
        ("TS006", "display-name", "warning"),
        ("TS006", "require", "warning"),
        ("TS006", "tittle", "warning"),  # MCP's `title`, misspelt
        ("TS011", "title", "info"),  # not a field of toolsel's own entries
        ("TS011", "safety", "info"),
        ("TS011", "command", "info"),
        ("TS011", "api", "info"),
        ("TS011", "category", "info"),  # on an MCP entry
    }
    messages = {f.message for f in lint_text(text) if f.rule == "TS006"}
    assert (
        "unknown key 'descripton' (did you mean 'description'?); its value is ignored" in messages
    )


def test_a_manifest_s_own_version_and_metadata_do_not_refuse_its_tools(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A tool pack or server manifest (`{name, version: "1.0.0", tools}`) is read: its SemVer
    is its own release, not toolsel's format version (the integer 1)."""
    import json

    from toolsel.lint.engine import lint_paths
    from toolsel.registry import load_registry

    path = tmp_path / "manifest.json"
    manifest = {"name": "pack", "displayName": "Pack", "version": "1.0.0", "toolsets": {}}
    path.write_text(json.dumps({**manifest, "tools": [{"name": "a", "description": "d"}]}))
    assert [t.name for t in load_registry(path, use_cache=False).tools] == ["a"]
    findings = lint_paths([path], use_cache=False).findings
    assert {(f.rule, f.pointer) for f in findings if f.rule in ("TS003", "TS006", "TS011")} == {
        ("TS011", f"/{key}") for key in manifest
    }
    for version in ("2", "v1", 2):
        path.write_text(
            json.dumps({"version": version, "tools": [{"name": "a", "description": "d"}]})
        )
        rules = {f.rule for f in lint_paths([path], use_cache=False).findings}
        assert "TS003" in rules, version
