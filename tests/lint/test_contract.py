"""TS5xx (lint/rules/contract.py): dependencies, deprecation, metadata."""

from __future__ import annotations

from tests.lint.helpers import assert_findings


def test_references_conflicts_and_cycles() -> None:
    assert_findings(
        "- {name: a, description: d, requires: [b]}\n", ["TS504 /tools/0/requires/0"], rule="TS504"
    )
    text = "- {name: a, description: d, conflicts: [b]}\n- {name: b, description: d}\n"
    assert_findings(text, ["TS505 /tools/0/conflicts/0"], rule="TS505")
    cycle = "- {name: a, description: d, requires: [b]}\n- {name: b, description: d, requires: [c]}\n- {name: c, description: d, requires: [a]}\n"
    assert_findings(cycle, ["TS506 /tools/0/requires/0"], rule="TS506")
    both = (
        "- {name: a, description: d, requires: [b], conflicts: [b]}\n- {name: b, description: d}\n"
    )
    assert_findings(both, ["TS507 /tools/0/requires/0"], rule="TS507")


def test_deprecation_category_tags_and_versions() -> None:
    assert_findings(
        "- {name: a, description: d, deprecated: true}\n",
        ["TS508 /tools/0/deprecated"],
        rule="TS508",
    )
    live = "- {name: a, description: d, requires: [b]}\n- {name: b, description: d, deprecated: true, deprecated_by: a}\n"
    assert_findings(live, ["TS509 /tools/0/requires/0"], rule="TS509")
    assert_findings("- {name: a, description: d}\n", ["TS510 /tools/0/name"], rule="TS510")
    assert_findings("- {name: a, description: d, tags: [Files, Files]}\n", ["TS511 /tools/0/tags/0", "TS511 /tools/0/tags/1", "TS511 /tools/0/tags/1"], rule="TS511")  # fmt: skip
    assert_findings(
        "- {name: a, description: d, version: v1}\n", ["TS512 /tools/0/version"], rule="TS512"
    )
