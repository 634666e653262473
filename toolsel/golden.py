"""Golden selection tests for CI (`toolsel test CASES`), on the cases of `toolsel.cases`;
`test` honours every key: each `expect` tool within `top_k` (default 8; `expect: none`: no
tool matches strongly), no `forbid` tool offered, under `permission` with `method`.

Any case that cannot be read is an error: a test suite that skips a case passes wrongly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolsel.ranking.core import rank_index, rank_options
from toolsel.ranking.options import Method
from toolsel.ranking.prepared import PreparedIndex
from toolsel.ranking.strength import STRONG_MATCH
from toolsel.registry.model import Permission
from toolsel.suggest import did_you_mean

if TYPE_CHECKING:
    from toolsel.cases.model import CaseFile

#: How deep `expect` may be when a case gives no `top_k`.
DEFAULT_TOP_K = 8


@dataclass(frozen=True, slots=True)
class GoldenCase:
    name: str
    prompt: str
    expect: tuple[str, ...]
    forbid: tuple[str, ...]
    top_k: int
    permission: Permission | None
    method: Method
    line: int
    expect_none: bool = False  # no tool may match the prompt strongly


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: GoldenCase
    offered: tuple[str, ...]
    missing: tuple[str, ...]  # expected but not within top_k
    forbidden: tuple[str, ...]  # forbidden but offered
    unknown: tuple[str, ...]  # names the registry does not have
    #: `expect: none`: the tool that matched the prompt strongly anyway, and its strength
    strong: tuple[str, float] | None = None

    @property
    def passed(self) -> bool:
        return not (self.missing or self.forbidden or self.unknown or self.strong)

    def message(self) -> str:
        parts = []
        if self.missing:
            parts.append(f"expected within top {self.case.top_k}: {', '.join(self.missing)}")
        if self.forbidden:
            parts.append(f"forbidden but offered: {', '.join(self.forbidden)}")
        if self.unknown:
            parts.append(f"not in the registry: {', '.join(self.unknown)}")
        if self.strong:
            name, strength = self.strong
            parts.append(
                f"no tool should match, but {name} matches {strength:.0%} of the prompt (strong from {STRONG_MATCH:.0%})"
            )
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class GoldenReport:
    file: str
    results: tuple[CaseResult, ...]

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results if not r.passed)


def golden_cases(found: CaseFile) -> list[GoldenCase]:
    """The cases to run, with the defaults applied. Raises UsageError when any case could
    not be read (a test suite that skips a case passes wrongly); the caller lists
    `found.listed_problems` first."""
    if not found.cases:
        raise found.no_cases()
    if found.problems:
        raise found.refusal("every case must be readable for `toolsel test` to pass or fail")
    return [
        GoldenCase(
            case.label,
            case.prompt,
            case.expect,
            case.forbid,
            case.top_k or DEFAULT_TOP_K,
            case.permission,
            case.method or Method.AUTO,
            case.line,
            case.expect_none,
        )
        for case in found.cases
    ]


def run_cases(
    index: PreparedIndex,
    cases: list[GoldenCase],
    file: str,
    query_vectors: Mapping[str, Any] | None = None,
) -> GoldenReport:
    known = {t.name for t in index.tools}
    vectors = query_vectors or {}
    results = []
    for case in cases:
        options = rank_options(method=case.method, top=case.top_k, permission=case.permission)
        ranked = rank_index(index, case.prompt, options, query_vector=vectors.get(case.prompt))
        offered = ranked.offered  # always-include tools too; `top_k` counts ranked tools
        unknown = tuple(
            f"{n}{did_you_mean(n, sorted(known))}"
            for n in (*case.expect, *case.forbid)
            if n not in known
        )
        missing = tuple(n for n in case.expect if n not in offered and n in known)
        forbidden = tuple(n for n in case.forbid if n in offered)
        strong = None
        best = max(ranked.results, key=lambda r: r.strength, default=None)
        if case.expect_none and best is not None and best.strength >= STRONG_MATCH:
            strong = (best.name, best.strength)
        results.append(CaseResult(case, offered, missing, forbidden, unknown, strong))
    return GoldenReport(file, tuple(results))
