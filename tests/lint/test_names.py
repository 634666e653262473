"""TS1xx (lint/rules/names.py): names every provider accepts and agents can tell apart."""

from __future__ import annotations

from tests.lint.helpers import assert_findings, lint_text


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


def test_ts108_knows_nouns_that_are_verbs_and_one_word_names() -> None:
    """Issue 34: `reply_to_ticket`, `issue_credit`, `share_file` and `complete_task` start
    with a verb; `unfollow_user` and `redeploy_app` too (a verb with a prefix); Claude
    Code's `Bash` and `Glob` are one-word names, not phrases; `user_profile` has no verb."""
    names = (
        "reply_to_ticket issue_credit share_file complete_task refine_project"
        " claim_work_assignment submit_work_session unfollow_user redeploy_app Bash Glob"
        " user_profile cacheStatus"
    ).split()
    text = "".join(f"- {{name: {n}, description: Does one thing for the user.}}\n" for n in names)
    assert_findings(text, ["TS108 /tools/11/name", "TS108 /tools/12/name"], rule="TS108")


def test_english_only_checks_skip_tools_described_in_other_languages() -> None:
    """`crear_direccion` has no English verb, and a Spanish or Indonesian description has no
    "Use this when" or "Returns": TS108, TS206, TS207 and TS208 say nothing about them."""
    text = (
        "- name: crear_direccion\n  description: Crea una dirección de envío para el cliente"
        " y la guarda en la cuenta.\n"
        "- name: alamat_pelanggan\n  description: Membuat alamat baru untuk pelanggan dan"
        " menyimpannya ke database.\n"
        "- name: user_profile\n  description: The profile of the user with the given id.\n"
    )
    for rule in ("TS108", "TS206", "TS207", "TS208"):
        found = [f.pointer for f in lint_text(text) if f.rule == rule]
        assert found and all(p.startswith("/tools/2/") for p in found), (rule, found)
