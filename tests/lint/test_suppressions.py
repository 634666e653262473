"""TS9xx (lint/rules/suppressions.py): suppression comments stay honest."""

from __future__ import annotations

from tests.lint.helpers import assert_findings


def test_an_unknown_rule_in_a_suppression() -> None:
    text = "- name: a\n  description: Short.  # toolsel: disable-line TS2O2\n"
    assert_findings(text, ["TS902 #L3"], rule="TS9")


def test_an_unused_suppression_when_selected() -> None:
    text = "- name: a  # toolsel: disable-line TS202\n  description: A long enough description of this tool's purpose.\n"
    assert_findings(text, ["TS901 #L2"], rule="TS9", select=("TS901",))
    assert_findings(text, [], rule="TS9")  # TS901 is off by default


def test_a_used_suppression_is_silent_and_silences() -> None:
    text = "- name: a\n  description: Short.  # toolsel: disable-line TS202\n"
    assert_findings(text, [], rule="TS202")
    assert_findings(text, [], rule="TS9", select=("TS901",))
