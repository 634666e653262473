"""Governance overlays: permission, category, requires... for tools defined elsewhere (an
OpenAI list, an MCP server), keyed by name or glob; every wrong entry is a finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli
from toolsel.errors import RegistryError
from toolsel.registry import load_registry
from toolsel.registry.model import Permission, ProblemKind

OPENAI = [
    {"type": "function", "function": {"name": name, "description": f"{name} tool.",
     "parameters": {"type": "object", "properties": {}}}}
    for name in ("refund_payment", "get_payment", "list_payments")
]  # fmt: skip


def registry(tmp_path: Path, governance: str, *, strict: bool = True):  # type: ignore[no-untyped-def]
    tools = tmp_path / "openai.json"
    tools.write_text(json.dumps(OPENAI))
    overlay = tmp_path / "governance.yaml"
    overlay.write_text(governance)
    return load_registry([tools, overlay], use_cache=False, strict=strict)


def test_an_openai_tool_gets_the_fields_its_format_lacks(tmp_path: Path) -> None:
    loaded = registry(
        tmp_path,
        "governance:\n  refund_payment:\n    permission: dangerous\n    category: billing\n"
        "    requires: [get_payment]\n    tags: [money]\n",
    )
    refund = loaded.get("refund_payment")
    assert refund is not None
    assert refund.permission is Permission.DANGEROUS
    assert (refund.category, refund.requires, refund.tags) == (
        "billing",
        ("get_payment",),
        ("money",),
    )
    get = loaded.get("get_payment")
    assert get is not None and get.permission is Permission.READ and get.category is None


def test_globs_and_a_later_entry_wins(tmp_path: Path) -> None:
    loaded = registry(
        tmp_path,
        "governance:\n  '*_payment*':\n    category: billing\n    permission: write\n"
        "  get_payment:\n    permission: read\n",
    )
    assert {t.name: (t.category, t.permission.value) for t in loaded.tools} == {
        "refund_payment": ("billing", "write"),
        "get_payment": ("billing", "read"),
        "list_payments": ("billing", "write"),
    }


def test_an_entry_that_names_no_tool_is_a_problem_with_a_suggestion(tmp_path: Path) -> None:
    loaded = registry(
        tmp_path, "governance:\n  refund_paymnt:\n    permission: admin\n", strict=False
    )
    [problem] = loaded.problems
    assert problem.kind is ProblemKind.SHAPE and not problem.fatal
    assert "names no tool in the registry (did you mean 'refund_payment'?)" in problem.message
    assert (problem.line, problem.column) == (2, 3)


def test_a_wrong_value_is_never_half_applied(tmp_path: Path) -> None:
    text = "governance:\n  get_payment:\n    permission: superuser\n    category: billing\n    colour: red\n"
    loaded = registry(tmp_path, text, strict=False)
    kinds = sorted(p.kind.value for p in loaded.problems)
    assert kinds == ["unknown-key", "unknown-permission"]
    get = loaded.get("get_payment")
    assert get is not None and get.category is None and get.permission is Permission.READ
    with pytest.raises(RegistryError, match="unknown permission 'superuser'"):
        registry(tmp_path, text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("governance: [a]\n", "`governance` must map tool names"),
        ("governance:\n  get_payment: admin\n", "governance of 'get_payment' must be a mapping"),
        ("governance:\n  get_payment:\n    requires: get_payment_x\n", "requires"),
    ],
)
def test_wrong_shapes(tmp_path: Path, text: str, message: str) -> None:
    loaded = registry(tmp_path, text, strict=False)
    assert any(message in p.message for p in loaded.problems), loaded.problems


def test_lint_reports_governance_problems_at_their_lines(cli: Cli, tmp_path: Path) -> None:
    registry(tmp_path, "governance:\n  nope:\n    permission: admin\n", strict=False)
    result = cli("lint", str(tmp_path / "openai.json"), str(tmp_path / "governance.yaml"))
    assert result.exit_code == 1
    assert "governance.yaml:2:3: TS003 error governance for 'nope' names no tool" in result.stdout
