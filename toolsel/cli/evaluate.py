"""`toolsel eval --cases FILE`: selection quality on labelled queries."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import (
    NamespaceOption,
    NoCacheOption,
    RegistryOption,
    embedded,
    handle_errors,
    registry_paths,
    warn,
    warn_cases,
)
from toolsel.errors import ExitCode, UsageError
from toolsel.ranking.options import Method
from toolsel.render.formats import EvalFormat

if TYPE_CHECKING:
    import numpy as np

    from toolsel.cases.model import CaseFile
    from toolsel.evaluate import Case
    from toolsel.ranking.prepared import PreparedIndex

CasesArg = Annotated[
    Path,
    typer.Option(
        "--cases",
        help="Cases (YAML, JSON or JSON lines): prompt, expect, and optionally permission.",
    ),
]

MethodArg = Annotated[
    Method,
    typer.Option(
        "--method",
        "-m",
        help="Scoring method; auto is fusion with toolsel[embed], else hybrid.",
    ),
]

CompareArg = Annotated[
    bool,
    typer.Option("--compare", help="Every method side by side, each with and without examples."),
]

NoExamplesArg = Annotated[
    bool, typer.Option("--no-examples", help="Rank without the tools' example prompts.")
]

MinStrengthArg = Annotated[
    float,
    typer.Option(
        "--min-strength",
        min=0.0,
        max=1.0,
        help="Measure as rank --min-strength does: tools matching less of the prompt are "
        "not offered.",
    ),
]

CalibrateArg = Annotated[
    bool,
    typer.Option(
        "--calibrate",
        help="Choose the --min-strength that halves the tools offered for `expect: none` "
        "prompts for the least recall lost, and say what it costs.",
    ),
]

WorstArg = Annotated[int, typer.Option("--worst", min=0, help="How many worst queries to list.")]

OutputFormatArg = Annotated[EvalFormat, typer.Option("--format", "-f", help="Output format.")]


@handle_errors
def evaluate(
    cases: CasesArg,
    registry: RegistryOption = None,
    namespace: NamespaceOption = False,
    method: MethodArg = Method.AUTO,
    compare: CompareArg = False,
    no_examples: NoExamplesArg = False,
    k: Annotated[str, typer.Option("-k", help="Recall cut-offs, comma-separated.")] = "1,5,10",
    min_strength: MinStrengthArg = 0.0,
    calibrate: CalibrateArg = False,
    worst: WorstArg = 5,
    output_format: OutputFormatArg = EvalFormat.HUMAN,
    no_cache: NoCacheOption = False,
) -> None:
    """Measure selection quality on labelled queries: Recall@k, MRR@10, NDCG@10."""
    registry = registry_paths(registry, namespace=namespace)
    from toolsel.evaluate import evaluate as run_evaluation
    from toolsel.inputs import display_path
    from toolsel.ranking.options import resolve
    from toolsel.render.eval import EVAL_RENDERERS

    ks = _cutoffs(k)
    case_file, found = _measured_cases(cases)
    bad = case_file.problems
    methods = _compared_methods() if compare else [resolve(method)[0]]
    index, plain, vectors = _indexes(
        registry, methods, found, compare=compare, examples=not no_examples, no_cache=no_cache
    )
    report = run_evaluation(
        index,
        found,
        methods,
        ks,
        source=display_path(cases),
        bad_lines=bad,
        query_vectors=vectors,
        without_examples=plain,
        min_strength=min_strength,
    )
    if calibrate:
        from dataclasses import replace

        from toolsel.evaluate import calibrate as calibrated

        report = replace(report, calibrations=tuple(calibrated(m, ks) for m in report.methods))
    EVAL_RENDERERS[output_format](report, sys.stdout, worst=worst)
    if bad:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _indexes(
    registry: list[Path] | None,
    methods: list[Method],
    found: list[Case],
    *,
    compare: bool,
    examples: bool,
    no_cache: bool,
) -> tuple[PreparedIndex, PreparedIndex | None, dict[str, np.ndarray]]:
    """The index to measure; to compare, the same without its examples (if it has any);
    and the cases' query vectors, each method's tool vectors prepared."""
    from toolsel.ranking.store import load_index

    index = load_index(registry or None, use_cache=not no_cache, bulk=True, examples=examples)
    plain = None
    if compare and examples and index.index.example_count:
        plain = load_index(registry or None, use_cache=not no_cache, bulk=True, examples=False)
    if plain is not None:  # the same vectors serve both (tool texts hold no examples)
        embedded(plain, methods, use_cache=not no_cache)
    return index, plain, embedded(index, methods, [c.query for c in found], use_cache=not no_cache)


def _measured_cases(path: Path) -> tuple[CaseFile, list[Case]]:
    """The case file, and the cases eval measures (those with `expect`); the problems and
    notes are said on stderr, and a file with nothing to measure is a usage error."""
    from toolsel.cases import read_cases
    from toolsel.evaluate import eval_cases

    case_file = read_cases(path)
    found, notes = eval_cases(case_file)
    if not found:
        warn_cases(case_file, case_file.listed_problems)
        raise case_file.no_cases(
            "no case has `expect`, which eval measures" if case_file.cases else ""
        )
    warn_cases(case_file)
    for note in notes:
        warn(note)
    return case_file, found


def _cutoffs(k: str) -> tuple[int, ...]:
    try:
        ks = tuple(int(part) for part in k.split(",") if part.strip())
    except ValueError:
        raise UsageError(f"-k must be comma-separated positive integers, got {k!r}") from None
    if not ks or min(ks) < 1:
        raise UsageError(f"-k must be comma-separated positive integers, got {k!r}")
    return ks


def _compared_methods() -> list[Method]:
    """Every method; `semantic` and `fusion` only where the embedding extra is installed."""
    from toolsel.embed.model import INSTALL_HINT, missing
    from toolsel.ranking.options import EMBEDDING_METHODS

    every: list[Method] = [m for m in Method if m is not Method.AUTO]  # auto: one of them
    if missing() is None:
        return every
    warn(f"note: semantic and fusion skipped (install them with: {INSTALL_HINT})")
    return [m for m in every if m not in EMBEDDING_METHODS]
