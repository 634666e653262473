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
