"""TS7xx (lint/rules/retrieval.py): tools can be found by search."""

from __future__ import annotations

from tests.lint.helpers import assert_findings

CROWDED = (
    "- name: get_item\n  description: Returns one inventory entry by its key, with stock level, price and supplier details.\n"
    + "".join(
        f"- name: get_item_{s}\n  description: Get item {s}. Gets the item {s} for an item; get item data.\n"
        for s in ("price", "stock", "history")
    )
)


def test_a_tool_its_own_name_does_not_find_is_reported() -> None:
    assert_findings(CROWDED, ["TS701 /tools/0/name"], rule="TS701", select=("TS701",))
