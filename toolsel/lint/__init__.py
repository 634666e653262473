"""Lint: the rule table lives here; each rule family is a small module under `rules/`;
`engine` runs them, `context` is what they see, `config` and `suppress` decide what counts.

The table is the single source for `--list-rules`, `--explain`, SARIF rule metadata,
configuration validation and the rule table of docs/reference.md.
"""

from __future__ import annotations

import functools
import importlib

from toolsel.lint.model import Rule
from toolsel.registry.model import ProblemKind

RULE_MODULES = (
    "structure", "names", "descriptions", "neighbours", "guidance", "schema", "references",
    "parameters", "openai", "anthropic", "gemini", "mcp", "permissions", "contract", "annotations",
    "security", "retrieval", "examples", "misrouted", "suppressions",
)  # fmt: skip


@functools.cache
def all_rules() -> dict[str, Rule]:
    """Every rule, keyed and sorted by id."""
    rules: dict[str, Rule] = {}
    for module_name in RULE_MODULES:
        module = importlib.import_module(f"toolsel.lint.rules.{module_name}")
        for value in vars(module).values():
            if isinstance(value, Rule):
                if value.id in rules:
                    raise RuntimeError(f"rule id {value.id} is defined twice")
                rules[value.id] = value
    return dict(sorted(rules.items()))


def rule_for_problem(kind: ProblemKind) -> Rule:
    """The rule that reports the loader's problems of `kind`."""
    return next(rule for rule in all_rules().values() if rule.problem is kind)
