"""Golden selection tests for CI (`toolsel test CASES.yaml`).

cases:
  - name: deploy request offers deploy_service
    prompt: deploy the billing service to production
    expect: [deploy_service]        # must appear within top_k
    forbid: [deploy_legacy]         # must not appear within top_k
    top_k: 5                        # default 8
    permission: dangerous           # optional gate, as rank --permission
    method: hybrid                  # optional, as rank --method
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolsel.errors import UsageError
from toolsel.ranking.core import rank_index, rank_options
from toolsel.ranking.options import Method
from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry.model import Permission
from toolsel.suggest import did_you_mean

CASE_KEYS = ("name", "prompt", "expect", "forbid", "top_k", "permission", "method")


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


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: GoldenCase
    offered: tuple[str, ...]
    missing: tuple[str, ...]  # expected but not within top_k
    forbidden: tuple[str, ...]  # forbidden but offered
    unknown: tuple[str, ...]  # names the registry does not have

    @property
    def passed(self) -> bool:
        return not (self.missing or self.forbidden or self.unknown)

    def message(self) -> str:
        parts = []
        if self.missing:
            parts.append(f"expected within top {self.case.top_k}: {', '.join(self.missing)}")
        if self.forbidden:
            parts.append(f"forbidden but offered: {', '.join(self.forbidden)}")
        if self.unknown:
            parts.append(f"not in the registry: {', '.join(self.unknown)}")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class GoldenReport:
    file: str
    results: tuple[CaseResult, ...]

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results if not r.passed)


#: Largest cases file `toolsel test` reads (thousands of cases fit in far less).
MAX_CASES_BYTES = 16 * 1024 * 1024


def read_cases(path: Path) -> list[GoldenCase]:
    """Parse and validate a cases file; every problem names its line, with a did-you-mean."""
    from toolsel.inputs import InputProblem, read_bounded
    from toolsel.registry.source import SourceSyntaxError, parse_text

    try:
        data = read_bounded(path, MAX_CASES_BYTES)
        text = data.decode("utf-8-sig")
    except InputProblem as problem:
        raise UsageError(f"{path}: cannot read: {problem}") from None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise UsageError(
            f"{path}:{line}:{column}: not valid UTF-8 (byte 0x{data[exc.start]:02x}); "
            "save the file as UTF-8"
        ) from None
    if not text.strip():
        raise UsageError(f"{path}: the file is empty; expected `cases:` with a list of test cases")
    try:
        parsed = parse_text(text, is_json=path.suffix.lower() == ".json")
    except SourceSyntaxError as exc:
        raise UsageError(f"{path}:{exc.line}:{exc.column}: cannot parse: {exc.message}") from None
    document = parsed.value
    entries = document.get("cases") if isinstance(document, dict) else document
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"{path}: expected `cases:` with a list of test cases")
    return [
        _case(
            entry,
            f"/cases/{i}" if isinstance(document, dict) else f"/{i}",
            path,
            parsed.source.locate,
        )
        for i, entry in enumerate(entries)
    ]


def _case(entry: Any, pointer: str, path: Path, locate: Any) -> GoldenCase:
    line = locate(pointer)[0]
    where = f"{path}:{line}"
    if not isinstance(entry, dict):
        raise UsageError(f"{where}: a case must be a mapping with `prompt` and `expect`")
    for key in entry:
        if key not in CASE_KEYS:
            raise UsageError(f"{where}: unknown key {key!r}{did_you_mean(key, CASE_KEYS)}")
    prompt = entry.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise UsageError(f"{where}: `prompt` must be a non-empty string")
    expect, forbid = _names(entry, "expect", where), _names(entry, "forbid", where)
    if not expect and not forbid:
        raise UsageError(f"{where}: a case needs `expect` or `forbid`")
    top_k = entry.get("top_k", 8)
    if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
        raise UsageError(f"{where}: `top_k` must be a positive integer")
    try:
        permission = Permission(entry["permission"]) if entry.get("permission") else None
        method = Method(entry.get("method", "hybrid"))
    except ValueError as exc:
        raise UsageError(f"{where}: {exc}") from None
    return GoldenCase(
        str(entry.get("name") or prompt), prompt, expect, forbid, top_k, permission, method, line
    )


def _names(entry: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where}: `{key}` must be a list of tool names")
    return tuple(value)


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
        results.append(CaseResult(case, offered, missing, forbidden, unknown))
    return GoldenReport(file, tuple(results))
