"""A target narrows the rules (issue 34): a rule about some providers' documented limits
runs only when a target sends tools to one of them; the default `portable` target checks
them all."""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_text
from toolsel.lint import all_rules
from toolsel.lint.config import TARGET_PROVIDERS
from toolsel.lint.model import Rule

ABOUT_PROVIDERS = [r for r in all_rules().values() if r.providers and r.profile is None]
BASE_TARGETS = ("openai", "anthropic", "gemini", "mcp")


def test_the_provider_rules_are_the_ones_the_docs_call_other_providers_limits() -> None:
    about = {r.id: r.providers for r in ABOUT_PROVIDERS}
    assert about["TS204"] == ("openai",)  # OpenAI's 1,024-character description limit
    assert about["TS307"] == ("gemini",)  # Gemini's parameter-name characters
    assert about["TS105"] == ("gemini",)
    assert all(p in TARGET_PROVIDERS["portable"] for r in ABOUT_PROVIDERS for p in r.providers)


@pytest.mark.parametrize("rule", ABOUT_PROVIDERS, ids=[r.id for r in ABOUT_PROVIDERS])
@pytest.mark.parametrize("target", BASE_TARGETS)
def test_a_rule_fires_only_under_targets_that_send_to_its_providers(
    rule: Rule, target: str
) -> None:
    found = {f.rule for f in lint_text(rule.bad, targets=(target,), select=(rule.id,))}
    about = bool(set(TARGET_PROVIDERS[target]) & set(rule.providers))
    assert (rule.id in found) is about, (target, rule.id, found)
    assert rule.id in {f.rule for f in lint_text(rule.bad, select=(rule.id,))}  # portable
    both = lint_text(rule.bad, targets=("anthropic", target), select=(rule.id,))
    assert (rule.id in {f.rule for f in both}) is (about or "anthropic" in rule.providers)


def test_anthropic_keeps_its_own_checks_and_drops_the_others() -> None:
    text = (
        "- name: a\n  description: " + "word " * 210 + "\n"
        "  parameters: {type: object, properties: {file-path: {type: string}}}\n"
    )
    assert {f.rule for f in lint_text(text) if f.rule in ("TS204", "TS307")} == {"TS204", "TS307"}
    anthropic = {f.rule for f in lint_text(text, targets=("anthropic",))}
    assert anthropic & {"TS204", "TS307"} == set()
    gemini = {f.rule: f.severity.value for f in lint_text(text, targets=("gemini",))}
    assert gemini.get("TS307") == "error" and "TS204" not in gemini
