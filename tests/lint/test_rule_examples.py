"""Every rule's documented examples hold: the failing one fails, the passing one passes.

The examples are what `toolsel lint --explain` prints, so the documentation is tested too.
"""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_text
from toolsel.lint import all_rules
from toolsel.lint.model import Rule

RULES = list(all_rules().values())


def _ids(findings: list) -> set[str]:
    return {f.rule for f in findings}


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_bad_example_triggers_rule(rule: Rule) -> None:
    assert rule.bad, f"{rule.id} has no failing example"
    findings = lint_text(rule.bad, targets=rule.targets or ("portable",), select=(rule.id,))
    assert rule.id in _ids(findings), [f"{f.rule}: {f.message}" for f in findings]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_good_example_passes_rule(rule: Rule) -> None:
    assert rule.good, f"{rule.id} has no passing example"
    findings = lint_text(rule.good, targets=rule.targets or ("portable",), select=(rule.id,))
    assert rule.id not in _ids(findings), [
        f"{f.rule}: {f.message}" for f in findings if f.rule == rule.id
    ]


def test_catalogue_covers_the_issue_ranges() -> None:
    ids = set(all_rules())
    wanted = (
        [f"TS00{i}" for i in range(1, 9)]
        + [f"TS10{i}" for i in range(1, 8)]
        + [f"TS2{i:02d}" for i in range(1, 11)]
        + [f"TS3{i:02d}" for i in range(1, 16)]
        + [f"TS40{i}" for i in range(1, 7)]
        + [f"TS42{i}" for i in range(1, 5)]
        + [f"TS44{i}" for i in range(1, 7)]
        + ["TS461", "TS462"]
        + [f"TS5{i:02d}" for i in range(1, 13)]
        + ["TS601", "TS602", "TS603", "TS902"]
    )
    assert sorted(set(wanted) - ids) == []


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_metadata_is_complete(rule: Rule) -> None:
    assert rule.id.startswith("TS") and len(rule.id) == 5
    assert rule.name == rule.name.lower() and " " not in rule.name
    assert rule.summary and rule.doc != rule.summary, rule.id
    # findings come from a check function or from the loader's problems of one kind, not both
    assert (rule.check is None) == (rule.problem is not None), rule.id
    if rule.profile:
        assert rule.targets, f"{rule.id} is a profile rule; its examples need a target"


def test_check_functions_are_not_decorated() -> None:
    """mutmut mutates no decorated function, so a rule registered as `@rule(...)` would
    escape mutation testing (`make mutate`): each is `TSxxx = rule(..., check=fn)`."""
    import ast
    import inspect
    import os
    import sys

    if "MUTANT_UNDER_TEST" in os.environ:
        pytest.skip("mutmut's copy of a module wraps every function it mutates")
    checks = {(rule.check.__module__, rule.check.__name__) for rule in RULES if rule.check}
    decorated = []
    for module_name in sorted({module for module, _ in checks}):
        tree = ast.parse(inspect.getsource(sys.modules[module_name]))
        decorated += [
            f"{module_name}.{node.name}"
            for node in tree.body
            if isinstance(node, ast.FunctionDef)
            and (module_name, node.name) in checks
            and node.decorator_list
        ]
    assert len(checks) == sum(1 for rule in RULES if rule.check)  # one function per rule
    assert decorated == []
