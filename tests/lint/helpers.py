"""`assert_findings`: the one-line way to test a rule, as yamllint's RuleTestCase.check."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.conftest import tools_document
from toolsel.lint import all_rules
from toolsel.lint.config import build_config
from toolsel.lint.engine import lint_registry
from toolsel.lint.model import Finding
from toolsel.misroute_evidence import read_misroutes
from toolsel.registry import load_registry


def lint_text(
    text: str,
    *,
    targets: tuple[str, ...] = ("portable",),
    options: dict[str, object] | None = None,
    select: tuple[str, ...] = (),
) -> list[Finding]:
    with tempfile.TemporaryDirectory() as folder:
        # a rule example may hold more files, each after a `# file: NAME` line (overlays)
        first, *others = text.split("# file: ")
        path = Path(folder) / "registry.yaml"
        path.write_text(tools_document(first), encoding="utf-8")
        paths = [path]
        evidence = []  # `*.misroutes.json`: `lint --misroutes FILE` evidence (TS708)
        for other in others:
            name, _, body = other.partition("\n")
            file = Path(folder) / name.strip()
            file.write_text(body, encoding="utf-8")
            if file.name.endswith(".misroutes.json"):
                evidence.append(read_misroutes(file))
            else:
                paths.append(file)
        table: dict[str, object] = {"targets": list(targets), "options": options or {}}
        if select:
            table["extend-select"] = list(select)
        config = build_config(table, all_rules(), source="test")
        registry = load_registry(paths, use_cache=False, strict=False)
        return list(lint_registry(registry, config, evidence=tuple(evidence)).findings)


def report(text: str, rule: str, **kwargs: object) -> list[str]:
    """`pointer line:col severity message` of each finding of one rule."""
    return [
        f"{f.pointer} {f.line}:{f.column} {f.severity.value} {f.message}"
        for f in lint_text(text, **kwargs)  # type: ignore[arg-type]
        if f.rule == rule
    ]


def assert_findings(
    text: str, expected: list[str], *, rule: str | None = None, **kwargs: object
) -> None:
    """Compare `RULE pointer` strings, optionally only for one rule (or rule prefix)."""
    findings = lint_text(text, **kwargs)  # type: ignore[arg-type]
    got = [f"{f.rule} {f.pointer}" for f in findings if rule is None or f.rule.startswith(rule)]
    assert got == expected, "\n".join(
        f"{f.rule} {f.pointer} {f.line}:{f.column} {f.message}" for f in findings
    )
