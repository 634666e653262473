"""TS1xx (lint/rules/names.py): names every provider accepts and agents can tell apart."""

from __future__ import annotations

from tests.lint.helpers import assert_findings


def test_portable_names() -> None:
    assert_findings("- {name: read file, description: d}\n", ["TS101 /tools/0/name"], rule="TS101")
    assert_findings("- {name: read_file, description: d}\n", [], rule="TS101")
    assert_findings("- {name: files.read, description: d}\n", ["TS103 /tools/0/name"], rule="TS103")
    assert_findings(
        "- {name: " + "a" * 65 + ", description: d}\n", ["TS102 /tools/0/name"], rule="TS102"
    )


def test_an_mcp_only_target_checks_mcp_names_instead() -> None:
    for rule in ("TS101", "TS103"):
        assert_findings("- {name: files.read, description: d}\n", [], rule=rule, targets=("mcp",))
    assert_findings(
        "- {name: read file, description: d}\n",
        ["TS461 /tools/0/name"],
        rule="TS461",
        targets=("mcp",),
    )


def test_mixed_styles_report_the_minority() -> None:
    text = "- {name: read_file, description: d}\n- {name: write_file, description: d}\n- {name: listDir, description: d}\n"
    assert_findings(text, ["TS104 /tools/2/name"], rule="TS104")


def test_generic_names_and_names_without_a_verb() -> None:
    assert_findings("- {name: search, description: d}\n", ["TS107 /tools/0/name"], rule="TS107")
    assert_findings("- {name: do_it, description: d}\n", ["TS107 /tools/0/name"], rule="TS107")
    assert_findings(
        "- {name: user_profile, description: d}\n", ["TS108 /tools/0/name"], rule="TS108"
    )
    assert_findings("- {name: get_user_profile, description: d}\n", [], rule="TS108")


NAMES = """\
- {name: 3d_render, description: d}
- {name: files.read, description: d}
- {name: "ns:tool", description: d}
- {name: a/b, description: d}
"""


def _errors(targets: tuple[str, ...]) -> set[tuple[str, str]]:
    from tests.lint.helpers import lint_text

    return {
        (f.rule, f.tool or "")
        for f in lint_text(NAMES, targets=targets)
        if f.severity.value == "error" and f.rule.startswith(("TS10", "TS4"))
    }


def test_name_rules_follow_the_targets() -> None:
    # OpenAI and Anthropic allow a leading digit; they reject '.', ':' and '/'
    assert _errors(("openai",)) == {("TS103", "files.read"), ("TS101", "ns:tool"), ("TS103", "a/b")}
    # Gemini wants a letter first and allows '.' and ':'; TS441 reports for it
    assert _errors(("gemini",)) == {("TS441", "3d_render"), ("TS441", "a/b")}
    assert _errors(("anthropic",)) == {
        ("TS421", "files.read"),
        ("TS421", "ns:tool"),
        ("TS421", "a/b"),
    }
    # portable: the intersection of all three
    assert _errors(("portable",)) == {
        ("TS101", "3d_render"),
        ("TS103", "files.read"),
        ("TS101", "ns:tool"),
        ("TS103", "a/b"),
    }


def test_each_name_finding_names_the_provider_and_its_pattern() -> None:
    from tests.lint.helpers import lint_text

    messages = {
        f.message for f in lint_text(NAMES, targets=("portable",)) if f.rule.startswith("TS10")
    }
    assert (
        "name '3d_render' starts with '3', which Gemini (^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$) rejects"
        in messages
    )
    assert any(
        "OpenAI (^[a-zA-Z0-9_-]{1,64}$) and Anthropic (^[a-zA-Z0-9_-]{1,64}$) reject" in m
        for m in messages
    )
