"""TS9xx: suppression comments stay honest. These rules run after all the others, once the
suppressions have been applied, and are never suppressed themselves."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity, rule


def _directive_hit(file: str, line: int, column: int, message: str) -> Hit:
    # a suppression comment has no JSON pointer; `#L<line>` names it in fingerprints
    return Hit(message, file, f"#L{line}", line=line, column=column)


@rule(
    "TS901",
    "unused-suppression",
    None,
    "Every suppression comment suppresses something (off by default)",
    bad="- name: a  # toolsel: disable-line TS202\n  description: A long enough description of this tool's purpose.\n",
    good="- name: a\n  description: Short.  # toolsel: disable-line TS202\n",
    after=True,
)
def unused_suppression(context: LintContext) -> Iterator[Hit]:
    """A suppression that no longer matches a finding hides future regressions."""
    from toolsel.lint import all_rules

    known = all_rules()
    for file, suppressions in context.suppressions.items():
        for directive in suppressions.directives:
            if directive.kind == "enable" or directive.used:
                continue
            if any(i not in known for i in directive.ids):
                continue  # TS902 reports it
            yield _directive_hit(
                file,
                directive.line,
                directive.column,
                f"`toolsel: {directive.kind}` suppressed nothing; remove it",
            )


@rule(
    "TS902",
    "unknown-suppressed-rule",
    Severity.WARNING,
    "Suppressions name existing rule ids",
    bad="- name: a\n  description: Short.  # toolsel: disable-line TS2O2\n",
    good="- name: a\n  description: Short.  # toolsel: disable-line TS202\n",
    after=True,
)
def unknown_suppressed_rule(context: LintContext) -> Iterator[Hit]:
    """A typo in a suppression suppresses nothing."""
    from toolsel.lint import all_rules

    known = all_rules()
    for file, suppressions in context.suppressions.items():
        for directive in suppressions.directives:
            unknown = [i for i in directive.ids if i not in known]
            if unknown:
                yield _directive_hit(
                    file,
                    directive.line,
                    directive.column,
                    f"suppression names unknown rule {', '.join(unknown)}",
                )
