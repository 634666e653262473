"""Selection quality: Recall@k, MRR@10, NDCG@10 over labelled cases, per method.

Cases are those of `toolsel.cases` (YAML, JSON or JSON lines): `prompt` and `expect`, and
`permission` (the case is ranked under that ceiling). `forbid`, `top_k` and `method` belong
to `toolsel test`: eval's metrics do not use them (a note says so). Metrics use binary
relevance: Recall@k is the share of a query's expected tools found in its top k,
averaged over queries; MRR@10 is the reciprocal rank of the first expected tool within the
top 10; NDCG@10 is DCG over the top 10 divided by the ideal DCG of min(|expected|, 10)
relevant tools. Comp@k is the share of queries with every expected tool in the top k.
An expected tool has no evidence when the method gave it no score at all (no prompt word
reached any of its fields): a vocabulary gap, counted apart from ranking errors.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsel.errors import UsageError
from toolsel.ranking.core import RankOptions, rank_index
from toolsel.ranking.options import Method
from toolsel.ranking.prepared import PreparedIndex

if TYPE_CHECKING:
    from toolsel.cases.model import CaseFile, CaseProblem
    from toolsel.registry.permission import Permission

DEFAULT_KS = (1, 5, 10)
#: The methods that rank with example prompts (`cc` emulates Claude Code, which has none;
#: `fuzzy` matches names)
EXAMPLE_METHODS = frozenset(
    {Method.BM25, Method.TFIDF, Method.HYBRID, Method.SEMANTIC, Method.FUSION}
)


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    query: str
    expected: tuple[str, ...]
    permission: Permission | None = None  # the agent's ceiling: ranked as rank --permission
    none: bool = False  # `expect: none`: no tool should serve the prompt


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    ranks: dict[str, int | None]  # expected tool -> 1-based rank within the top N, or None
    ndcg10: float
    reciprocal_rank: float
    #: expected tools the method gave no score at all: no depth of results would hold them
    no_evidence: tuple[str, ...] = ()
    #: the ranked tools with their strengths, best first (what `--min-strength` cuts)
    ranked: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class MethodReport:
    method: str
    cases: int
    recall: dict[int, float]
    complete: dict[int, float]
    mrr10: float
    ndcg10: float
    outcomes: tuple[Outcome, ...] = field(repr=False)
    examples: bool = False  # whether the index ranked with example prompts
    #: `expect: none` cases: the strongest match each got (0.0: nothing matched at all)
    none_strengths: tuple[float, ...] = ()
    min_strength: float = 0.0  # the --min-strength the metrics were taken at
    #: expected tools missing from the top 10, by why: "conflict" (excluded by a conflict
    #: with a higher-ranked tool), "permission" (above the permission ceiling) or
    #: "not_retrieved" (ranked too low, or not matched at all)
    missed: dict[str, int] = field(default_factory=dict)

    @property
    def expected(self) -> int:
        """Expected tools over all cases (a tool expected by two cases counts twice)."""
        return sum(len(o.ranks) for o in self.outcomes)

    @property
    def no_evidence(self) -> int:
        """Expected tools the method gave no score at all (a vocabulary gap)."""
        return sum(len(o.no_evidence) for o in self.outcomes)

    @property
    def no_evidence_queries(self) -> int:
        return sum(1 for o in self.outcomes if o.no_evidence)

    @property
    def label(self) -> str:
        return f"{self.method}+examples" if self.examples else self.method

    @property
    def none_cases(self) -> int:
        return len(self.none_strengths)

    @property
    def offered_anyway(self) -> int:
        """`expect: none` cases where a tool was offered all the same (a match at or
        above --min-strength)."""
        return offered(self.none_strengths, self.min_strength)

    def worst(self, n: int = 10) -> list[Outcome]:
        return sorted(self.outcomes, key=lambda o: (o.ndcg10, o.reciprocal_rank, o.case.id))[:n]


@dataclass(frozen=True, slots=True)
class EvalReport:
    source: str
    ks: tuple[int, ...]
    methods: tuple[MethodReport, ...]
    bad_lines: tuple[CaseProblem, ...] = ()
    unknown_tools: tuple[str, ...] = ()  # expected names the registry does not have
    calibrations: tuple[Calibration, ...] = ()  # `eval --calibrate`, one per method


#: What eval does not measure, and who does: the note for a file whose cases use these keys.
IGNORED_KEYS = {
    "forbid": "`toolsel test` checks it",
    "top_k": "eval measures at each -k",
    "method": "eval ranks with --method or --compare",
}


def read_cases(path: Path) -> tuple[list[Case], list[CaseProblem]]:
    """Every readable case; unreadable ones are returned with their place, never dropped
    silently."""
    from toolsel.cases import read_cases as read_case_file

    found = read_case_file(path)
    return eval_cases(found)[0], list(found.problems)


def eval_cases(found: CaseFile) -> tuple[list[Case], list[str]]:
    """(the cases eval measures, notes): a case with no `expect` (only `forbid`) cannot be
    measured and is counted in a note, as are the keys eval does not use. `expect: none`
    cases are measured apart (how often a tool is offered anyway)."""
    cases = [
        Case(c.id or c.name or f"line-{c.line}", c.prompt, c.expect, c.permission, c.expect_none)
        for c in found.cases
        if c.expect or c.expect_none
    ]
    notes = []
    ignored = [key for key in IGNORED_KEYS if key in found.keys]
    if ignored:
        why = "; ".join(f"`{key}`: {IGNORED_KEYS[key]}" for key in ignored)
        notes.append(f"note: {found.file}: eval's metrics do not use {why}")
    unmeasured = len(found.cases) - len(cases)
    if unmeasured:
        notes.append(
            f"note: {found.file}: {unmeasured} {'case has' if unmeasured == 1 else 'cases have'} "
            "no `expect` and cannot be measured (`toolsel test` checks `forbid`)"
        )
    return cases, notes


def evaluate(
    index: PreparedIndex,
    cases: Sequence[Case],
    methods: Iterable[Method],
    ks: Sequence[int] = DEFAULT_KS,
    *,
    source: str = "",
    bad_lines: Sequence[CaseProblem] = (),
    query_vectors: Mapping[str, Any] | None = None,
    without_examples: PreparedIndex | None = None,
    min_strength: float = 0.0,
) -> EvalReport:
    """Rank every case with every method; `query_vectors` are the cases' prompt embeddings
    (`semantic`, `fusion`), computed up front. With `without_examples` (the same registry
    indexed without its example prompts), each method that uses examples is measured on
    both, so the two can be compared (`eval --compare`). `min_strength` cuts each ranking
    as `rank --min-strength` does, before it is measured."""
    if not any(not c.none for c in cases):
        first = f" ({bad_lines[0].located(source)})" if bad_lines else ""
        raise UsageError(
            f"{source or 'the cases file'}: no readable cases with `expect`{first}",
            hint='each case: {"prompt": "...", "expect": ["tool"]}',
        )
    ks = tuple(sorted(set(ks)))
    depth = max(10, *ks)
    known = {t.name for t in index.tools}
    unknown = sorted({name for case in cases for name in case.expected if name not in known})
    if unknown:  # a typo would count as a miss, and the report would look like a result
        from toolsel.suggest import did_you_mean

        named = "; ".join(f"{name!r}{did_you_mean(name, sorted(known))}" for name in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise UsageError(
            f"{source or 'the cases'}: expected tools not in the registry: {named}{more}",
            hint="fix the names in the cases, or pass the registry they were written for (-r)",
        )
    vectors = query_vectors or {}
    examples = index.index.example_count > 0
    runs: list[tuple[PreparedIndex, Method, bool]] = []
    for method in methods:
        uses = examples and method in EXAMPLE_METHODS
        if without_examples is not None and uses:
            runs.append((without_examples, method, False))
        runs.append((index, method, uses))
    reports = tuple(
        _evaluate_method(ix, cases, method, ks, depth, vectors, with_examples)
        for ix, method, with_examples in runs
    )
    if min_strength:
        reports = tuple(at_min_strength(r, ks, min_strength) for r in reports)
    return EvalReport(source, ks, reports, tuple(bad_lines), tuple(unknown))


def _evaluate_method(
    index: PreparedIndex,
    cases: Sequence[Case],
    method: Method,
    ks: tuple[int, ...],
    depth: int,
    vectors: Mapping[str, Any],
    with_examples: bool = False,
) -> MethodReport:
    # the ranking itself is measured: pinned always-include tools compete on their score
    options = RankOptions(
        method=method, top=depth, include_deprecated=True, pin_always_include=False
    )
    outcomes = []
    none_strengths = []
    missed = dict.fromkeys(("conflict", "permission", "not_retrieved"), 0)
    for case in cases:
        ranked_as = replace(options, permission=case.permission) if case.permission else options
        result = rank_index(index, case.query, ranked_as, query_vector=vectors.get(case.query))
        if case.none:
            none_strengths.append(max((r.strength for r in result.results), default=0.0))
            continue
        ranked = [r.name for r in result.results]
        excluded = {e.name for e in result.excluded}
        blocked = {b.name for b in result.blocked}
        listed = {*ranked, *excluded, *blocked}
        unranked = [name for name in case.expected if name not in listed]
        if unranked and len(ranked) >= depth:  # the list was cut: were they scored below it?
            scored = _scored(index, case.query, ranked_as, vectors.get(case.query))
            unranked = [name for name in unranked if name not in scored]
        outcome = replace(
            score_case(case, ranked),
            no_evidence=tuple(unranked),
            ranked=tuple((r.name, r.strength) for r in result.results),
        )
        outcomes.append(outcome)
        for name, rank in outcome.ranks.items():
            if rank is None or rank > 10:
                missed[_why_missed(name, excluded, blocked)] += 1
    return _report(method.value, outcomes, ks, with_examples, missed, tuple(none_strengths))


def _why_missed(name: str, excluded: set[str], blocked: set[str]) -> str:
    return "conflict" if name in excluded else "permission" if name in blocked else "not_retrieved"


def _report(
    method: str,
    outcomes: Sequence[Outcome],
    ks: tuple[int, ...],
    with_examples: bool,
    missed: dict[str, int],
    none_strengths: tuple[float, ...],
    min_strength: float = 0.0,
) -> MethodReport:
    n = len(outcomes)
    recall = {k: sum(_recall(o, k) for o in outcomes) / n for k in ks}
    complete = {k: sum(_recall(o, k) == 1.0 for o in outcomes) / n for k in ks}
    return MethodReport(
        method=method,
        cases=n,
        recall=recall,
        complete=complete,
        mrr10=sum(o.reciprocal_rank for o in outcomes) / n,
        ndcg10=sum(o.ndcg10 for o in outcomes) / n,
        outcomes=tuple(outcomes),
        examples=with_examples,
        missed=missed,
        none_strengths=none_strengths,
        min_strength=min_strength,
    )


def offered(strengths: Sequence[float], min_strength: float) -> int:
    """How many `expect: none` cases a tool is offered for at `min_strength`: a match at or
    above it (at 0, any match at all)."""
    return sum(1 for s in strengths if s > 0 and s >= min_strength)


def at_min_strength(report: MethodReport, ks: tuple[int, ...], min_strength: float) -> MethodReport:
    """`report` as if every ranking had been cut at `min_strength` (`rank --min-strength`):
    the tools below it are not offered, and the rest keep their order."""
    outcomes = []
    for outcome in report.outcomes:
        kept = [name for name, strength in outcome.ranked if strength >= min_strength]
        outcomes.append(replace(score_case(outcome.case, kept), ranked=outcome.ranked))
    return _report(
        report.method, outcomes, ks, report.examples, report.missed, report.none_strengths,
        min_strength,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Calibration:
    """`eval --calibrate`: the --min-strength that halves wrong offers for the least recall."""

    method: str
    chosen: float | None  # None: no cut-off halves them (or there is nothing to halve)
    before: MethodReport
    after: MethodReport


def calibrate(report: MethodReport, ks: tuple[int, ...]) -> Calibration:
    """The lowest cut-off at which tools are offered for at most half the `expect: none`
    cases they were offered for at the report's own --min-strength: the lowest such cut
    loses the least recall, since a higher cut only ever removes more tools."""
    wrong = report.offered_anyway
    if not report.none_cases or not wrong:
        return Calibration(report.method, None, report, report)
    strengths = [*report.none_strengths, *(s for o in report.outcomes for _, s in o.ranked)]
    for threshold in sorted({s for s in strengths if s > report.min_strength}):
        cut = threshold + 1e-9  # strictly above this strength
        if offered(report.none_strengths, cut) * 2 <= wrong:
            chosen = math.ceil(cut * 10_000) / 10_000  # as --min-strength can be written
            return Calibration(report.method, chosen, report, at_min_strength(report, ks, chosen))
    return Calibration(report.method, None, report, report)


def _scored(index: PreparedIndex, query: str, options: RankOptions, vector: Any) -> set[str]:
    """Every tool the method gives a score for `query`: ranking stops where evidence does."""
    every = replace(options, top=max(1, len(index.tools)))
    return {r.name for r in rank_index(index, query, every, query_vector=vector).results}


def score_case(case: Case, ranked: Sequence[str]) -> Outcome:
    position = {name: i for i, name in enumerate(ranked, start=1)}
    ranks = {name: position.get(name) for name in case.expected}
    hits = sorted(r for r in ranks.values() if r is not None)
    dcg = sum(1 / math.log2(r + 1) for r in hits if r <= 10)
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(len(case.expected), 10) + 1))
    first = hits[0] if hits and hits[0] <= 10 else None
    return Outcome(case, ranks, dcg / ideal, 1 / first if first else 0.0)


def _recall(outcome: Outcome, k: int) -> float:
    found = sum(1 for r in outcome.ranks.values() if r is not None and r <= k)
    return found / len(outcome.ranks)
