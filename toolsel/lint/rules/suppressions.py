"""TS9xx: suppression comments stay honest. The engine evaluates these after all rules."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity, rule


@rule(
    "TS901",
    "unused-suppression",
    None,
    "Every suppression comment suppresses something (off by default)",
    bad="- name: a  # toolsel: disable-line TS202\n  description: A long enough description of this tool's purpose.\n",
    good="- name: a\n  description: Short.  # toolsel: disable-line TS202\n",
)
def unused_suppression(context: LintContext) -> Iterator[Hit]:
    """A suppression that no longer matches a finding hides future regressions."""
    return iter(())


@rule(
    "TS902",
    "unknown-suppressed-rule",
    Severity.WARNING,
    "Suppressions name existing rule ids",
    bad="- name: a\n  description: Short.  # toolsel: disable-line TS2O2\n",
    good="- name: a\n  description: Short.  # toolsel: disable-line TS202\n",
)
def unknown_suppressed_rule(context: LintContext) -> Iterator[Hit]:
    """A typo in a suppression suppresses nothing."""
    return iter(())
