"""`toolsel test CASES`: golden selection tests for CI."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolsel.cli.common import (
    NamespaceOption,
    NoCacheOption,
    RegistryOption,
    check_output,
    embedded,
    handle_errors,
    output,
    registry_paths,
    warn_cases,
)
from toolsel.errors import ExitCode
from toolsel.render.formats import TestFormat


@handle_errors
def test(
    cases: Annotated[
        Path,
        typer.Argument(
            help="Cases (YAML, JSON or JSON lines): prompt, expect, forbid, top_k, method, "
            "permission."
        ),
    ],
    registry: RegistryOption = None,
    namespace: NamespaceOption = False,
    output_format: Annotated[
        TestFormat, typer.Option("--format", "-f", help="Output format.")
    ] = TestFormat.HUMAN,
    output_file: Annotated[
        Path | None,
        typer.Option("--output-file", "-o", help="Write the report here (e.g. JUnit for CI)."),
    ] = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Run golden selection tests: fail (exit 1) when a prompt stops offering the right tools."""
    registry = registry_paths(registry, namespace=namespace)
    from toolsel.cases import read_cases
    from toolsel.golden import golden_cases, run_cases
    from toolsel.inputs import display_path
    from toolsel.ranking.store import load_index
    from toolsel.render.golden import TEST_RENDERERS
    from toolsel.sources import registry_files

    inputs = [cases, *registry_files(registry or None)]
    check_output(output_file, inputs)
    found = read_cases(cases)
    warn_cases(found, found.listed_problems)
    golden = golden_cases(found)
    index = load_index(registry or None, use_cache=not no_cache, bulk=True)
    vectors = embedded(
        index, {c.method for c in golden}, [c.prompt for c in golden], use_cache=not no_cache
    )
    report = run_cases(index, golden, display_path(cases), vectors)
    with output(output_file, inputs=inputs) as out:
        TEST_RENDERERS[output_format](report, out)
    if report.failed:
        raise typer.Exit(int(ExitCode.FINDINGS))
