"""`toolsel diff OLD NEW`: class every change between two registries."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import NamespaceOption, NoCacheOption, handle_errors, output, warn
from toolsel.errors import ExitCode, UsageError
from toolsel.render.formats import DiffFormat

if TYPE_CHECKING:
    from toolsel.diff.model import DiffResult, FailOn
    from toolsel.registry.model import Registry


PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(help="OLD then NEW: files, directories, or REF:PATH git revisions."),
]
OldOption = Annotated[
    list[str] | None, typer.Option("--old", help="Another OLD path (repeatable).")
]
NewOption = Annotated[
    list[str] | None, typer.Option("--new", help="Another NEW path (repeatable).")
]
BaseOption = Annotated[
    str | None,
    typer.Option("--base", help="OLD = the same paths at the merge base with this ref."),
]
OutputFormatOption = Annotated[DiffFormat, typer.Option("--format", "-f", help="Output format.")]
OutputFileOption = Annotated[
    Path | None, typer.Option("--output-file", "-o", help="Write the report here.")
]
FailOnOption = Annotated[
    str,
    typer.Option(
        "--fail-on", metavar="CLASS", help="Class that exits 1: breaking, risky, any, none."
    ),
]
IgnoreOption = Annotated[
    Path | None,
    typer.Option("--ignore", help="Ignore file (default: .toolsel-diff-ignore.yaml)."),
]
TranscriptsOption = Annotated[
    list[str] | None,
    typer.Option("--transcripts", help="Replay these transcripts against OLD and NEW."),
]
CasesOption = Annotated[
    Path | None,
    typer.Option("--cases", help="Golden cases (YAML) or eval cases (JSONL) to rank."),
]
TopKOption = Annotated[
    int, typer.Option("-k", min=1, help="Top k for JSONL eval cases (default 5).")
]


@handle_errors
def diff(
    paths: PathsArgument = None,
    old: OldOption = None,
    new: NewOption = None,
    base: BaseOption = None,
    output_format: OutputFormatOption = DiffFormat.HUMAN,
    output_file: OutputFileOption = None,
    fail_on: FailOnOption = "breaking",
    ignore: IgnoreOption = None,
    transcripts: TranscriptsOption = None,
    cases: CasesOption = None,
    top_k: TopKOption = 5,
    namespace: NamespaceOption = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Class every change between two registries as breaking, risky or safe."""
    from toolsel.diff.sources import load_side

    chosen = _fail_on(fail_on)
    old_specs, new_specs, named_by = _sides(paths or [], old or [], new or [], base)
    old_registry = load_side(old_specs, no_cache=no_cache, namespace=namespace, named_by=named_by)
    new_registry = load_side(new_specs, no_cache=no_cache, namespace=namespace, named_by=named_by)
    result = _run(
        old_registry, new_registry, old_specs, new_specs, chosen, transcripts, cases, top_k
    )
    result = _ignored(result, ignore)
    from toolsel.render.diff import DIFF_RENDERERS

    with output(output_file, inputs=[*old_specs, *new_specs]) as out:
        DIFF_RENDERERS[output_format](result, out)
    if output_format is not DiffFormat.HUMAN:  # the human report shows them itself
        for warning in result.warnings:
            warn(f"{warning.file}:{warning.line}: {warning.message}")
    if result.failed:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _fail_on(value: str) -> FailOn:
    from toolsel.diff.model import FailOn

    try:
        return FailOn(value.strip().lower())
    except ValueError:
        raise UsageError(f"--fail-on must be breaking, risky, any or none, got {value!r}") from None


def _sides(
    paths: list[str], old: list[str], new: list[str], base: str | None
) -> tuple[list[str], list[str], Path | None]:
    """OLD's and NEW's sources, and the config file that names them (None: typed)."""
    if base is not None:
        from toolsel.cli.common import registry_sources
        from toolsel.diff.gitbase import merge_base
        from toolsel.sources import ConfiguredPaths
        from toolsel.sources.grammar import parse

        named_by = None
        targets = [*paths, *new]
        if not targets:
            configured = registry_sources(None)
            named_by = configured.named_by if isinstance(configured, ConfiguredPaths) else None
            targets = [str(p) for p in configured]
        if old:
            raise UsageError("--base gives OLD; do not also give --old")
        commit = merge_base(base)
        # files are read at the merge base; a catalog or a live server is the same on both
        old_side = [f"{commit}:{t}" if parse(t).kind == "path" else t for t in targets]
        return old_side, targets, named_by
    if len(paths) == 2:
        return [paths[0], *old], [paths[1], *new], None
    if len(paths) == 1 and (old or new):
        if new and not old:
            return [paths[0], *old], new, None
        return old, [paths[0], *new], None
    if not paths and old and new:
        return old, new, None
    raise UsageError(
        "give OLD and NEW (e.g. toolsel diff main:registries/ registries/)",
        hint="or --base main to compare with the merge base",
    )


def _run(
    old: Registry,
    new: Registry,
    old_specs: list[str],
    new_specs: list[str],
    fail_on: FailOn,
    transcripts: list[str] | None,
    cases: Path | None,
    top_k: int,
) -> DiffResult:
    from toolsel.diff.engine import diff_registries, sort_changes
    from toolsel.diff.model import DiffResult

    changes = list(diff_registries(old, new))
    notes = []
    if transcripts:
        from toolsel.diff.evidence import transcript_evidence

        found = transcript_evidence(transcripts, old, new)
        changes += found.changes
        notes.append(found.note)
    if cases is not None:
        from toolsel.diff.evidence import case_evidence

        ranked = case_evidence(cases, old, new, top_k=top_k)
        changes += ranked.changes
        notes.append(ranked.note)
    return DiffResult(
        old=" ".join(old_specs),
        new=" ".join(new_specs),
        changes=tuple(sort_changes(changes)),
        fail_on=fail_on,
        old_tools=len(old.names),
        new_tools=len(new.names),
        evidence_notes=tuple(notes),
    )


def _ignored(result: DiffResult, path: Path | None) -> DiffResult:
    from toolsel.diff.ignore import DEFAULT_IGNORE_FILE, apply_ignores, read_ignore_file

    if path is None:
        default = Path(DEFAULT_IGNORE_FILE)
        if not default.is_file():
            return result
        path = default
    elif not path.is_file():
        raise UsageError(f"{path}: no such ignore file")
    return apply_ignores(result, read_ignore_file(path))
