"""`toolsel lint --statistics`: how many findings each rule made, as ruff counts them."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from toolsel.lint.model import Finding, LintResult, Severity


@dataclass(frozen=True, slots=True)
class RuleCount:
    rule: str
    name: str
    severity: Severity
    count: int
    fixable: int  # how many of them `--fix` fixes

    def to_dict(self) -> dict[str, object]:
        fields = {name: getattr(self, name) for name in self.__slots__}
        return fields | {"severity": self.severity.value}


def finding_key(finding: Finding) -> tuple[str, str, str]:
    return (finding.rule, finding.file, finding.pointer)


def rule_counts(
    result: LintResult, fixable: Collection[tuple[str, str, str]] = ()
) -> tuple[RuleCount, ...]:
    """One row per rule and severity among the findings shown, most frequent first."""
    from toolsel.lint import all_rules

    rules = all_rules()
    counts: dict[tuple[str, Severity], list[int]] = {}
    for finding in result.findings:
        row = counts.setdefault((finding.rule, finding.severity), [0, 0])
        row[0] += 1
        row[1] += finding_key(finding) in fixable
    rows = [
        RuleCount(rule, rules[rule].name if rule in rules else "", severity, n, fixes)
        for (rule, severity), (n, fixes) in counts.items()
    ]
    return tuple(sorted(rows, key=lambda r: (-r.count, r.rule, -r.severity.rank)))
