"""TS9xx: suppression comments stay honest. These rules run after all the others, once the
suppressions have been applied, and are never suppressed themselves."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.suppress import Directive


def _directives(context: LintContext) -> Iterator[tuple[str, Directive, list[str]]]:
    """Every suppression comment: its file, itself, and the rule ids it names that do not
    exist."""
    from toolsel.lint import all_rules

    known = all_rules()
    for file, suppressions in context.suppressions.items():
        for directive in suppressions.directives:
            yield file, directive, [i for i in directive.ids if i not in known]


def _hit(file: str, directive: Directive, message: str) -> Hit:
    # a suppression comment has no JSON pointer; `#L<line>` names it in fingerprints
    return Hit(message, file, f"#L{directive.line}", line=directive.line, column=directive.column)


def unused_suppression(context: LintContext) -> Iterator[Hit]:
    """A suppression that no longer matches a finding hides future regressions."""
    for file, directive, unknown in _directives(context):
        # an `enable` suppresses nothing by design; unknown ids are TS902's
        if directive.kind != "enable" and not directive.used and not unknown:
            yield _hit(
                file, directive, f"`toolsel: {directive.kind}` suppressed nothing; remove it"
            )


TS901 = Rule(
    "TS901",
    "unused-suppression",
    None,
    "Every suppression comment suppresses something (off by default)",
    bad="- name: a  # toolsel: disable-line TS202\n  description: A long enough description of this tool's purpose.\n",
    good="- name: a\n  description: Short.  # toolsel: disable-line TS202\n",
    after=True,
    check=unused_suppression,
)


def unknown_suppressed_rule(context: LintContext) -> Iterator[Hit]:
    """A typo in a suppression suppresses nothing."""
    for file, directive, unknown in _directives(context):
        if unknown:
            yield _hit(file, directive, f"suppression names unknown rule {', '.join(unknown)}")


TS902 = Rule(
    "TS902",
    "unknown-suppressed-rule",
    Severity.WARNING,
    "Suppressions name existing rule ids",
    bad="- name: a\n  description: Short.  # toolsel: disable-line TS2O2\n",
    good="- name: a\n  description: Short.  # toolsel: disable-line TS202\n",
    after=True,
    check=unknown_suppressed_rule,
)


def ineffective_suppression(context: LintContext) -> Iterator[Hit]:
    """A comment that looks like a suppression but is not one (`Toolsel:`, an unknown verb,
    lower-case rule ids) suppresses nothing; neither does one that names a rule only
    configuration can turn off (the security rules TS601 and TS602)."""
    from toolsel.lint import all_rules

    rules = all_rules()
    for file, suppressions in context.suppressions.items():
        for bad in suppressions.malformed:
            message = f"this comment suppresses nothing: {bad.problem}"
            yield Hit(message, file, f"#L{bad.line}", line=bad.line, column=bad.column)
    for file, directive, _ in _directives(context):
        for rule_id in directive.ids:
            if rule_id in rules and rules[rule_id].config_only:
                yield _hit(
                    file,
                    directive,
                    f"{rule_id} can be turned off only in configuration (ignore, "
                    "per-file-ignores, per-tool-ignores or severity), not by a comment",
                )


TS903 = Rule(
    "TS903",
    "ineffective-suppression",
    Severity.WARNING,
    "Suppression comments are well formed and can suppress what they name",
    bad="- name: a\n  description: Short.  # Toolsel: disable-line TS202\n",
    good="- name: a\n  description: Short.  # toolsel: disable-line TS202\n",
    after=True,
    check=ineffective_suppression,
)
