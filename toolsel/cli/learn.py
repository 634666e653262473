"""`toolsel learn`: an examples overlay from labelled cases and from transcripts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import (
    JobsOption,
    NamespaceOption,
    NoCacheOption,
    SinceOption,
    handle_errors,
    jobs_wanted,
    load_registry,
    output,
    since_time,
    warn,
)
from toolsel.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from toolsel.learn import Learned

CasesArg = Annotated[
    list[Path] | None,
    typer.Option(
        "--cases",
        help="Case files (YAML, JSON or JSON lines, as eval and test read them): each "
        "case's prompt becomes an example of its expected tools. Repeatable.",
    ),
]

TranscriptsArg = Annotated[
    list[str] | None,
    typer.Option(
        "--transcripts",
        help="Transcript files, directories or globs (any format replay reads): each "
        "successful call learns the user's request that led to it. Repeatable.",
    ),
]

MisroutesArg = Annotated[
    list[Path] | None,
    typer.Option(
        "--misroutes",
        help="`toolsel stats --misroutes -f json` output: each pair's requests (the prompts "
        "that led to the failed call) become examples of the tool that then worked. "
        "Repeatable.",
    ),
]

OutputPathArg = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="The overlay to write (atomically); only an overlay is ever overwritten. "
        "Default: standard output.",
    ),
]

RegistryArg = Annotated[
    list[Path] | None,
    typer.Option(
        "--registry",
        "-r",
        help="Registry whose tools may receive examples; others are reported and dropped.",
    ),
]

MaxPerToolArg = Annotated[
    int | None,
    typer.Option(
        "--max-per-tool",
        min=0,
        show_default=False,
        help="Keep N representative, diverse examples per tool (default: 50 with "
        "--transcripts, else all). 0: all; mining then keeps every distinct prompt "
        "in memory.",
    ),
]

MinCountArg = Annotated[
    int, typer.Option("--min-count", min=1, help="Drop tools seen fewer than N times.")
]

MergeArg = Annotated[
    bool,
    typer.Option("--merge", help="Add to the existing overlay at -o, without duplicates."),
]

RedactArg = Annotated[
    list[str] | None,
    typer.Option(
        "--redact",
        metavar="REGEX",
        help="Also drop prompts matching REGEX (secrets and personal data are always "
        "replaced by placeholders such as <email>). Repeatable.",
    ),
]

MaxCharsArg = Annotated[
    int,
    typer.Option(
        "--max-chars",
        min=0,
        help="Leave out prompts longer than N characters (pasted files and logs), "
        "and count them (0: no limit).",
    ),
]

IncludeDangerousArg = Annotated[
    bool,
    typer.Option(
        "--include-dangerous",
        help="Also learn from transcripts for tools whose permission is `dangerous` "
        "(needs -r to know them; left out by default, and counted).",
    ),
]


@handle_errors
def learn(
    cases: CasesArg = None,
    transcripts: TranscriptsArg = None,
    misroutes: MisroutesArg = None,
    output_path: OutputPathArg = None,
    registry: RegistryArg = None,
    namespace: NamespaceOption = False,
    max_per_tool: MaxPerToolArg = None,
    min_count: MinCountArg = 1,
    merge: MergeArg = False,
    redact: RedactArg = None,
    max_chars: MaxCharsArg = 2000,  # toolsel.learn.MAX_CHARS (not imported: the CLI starts light)
    include_dangerous: IncludeDangerousArg = False,
    no_cache: NoCacheOption = False,
    jobs: JobsOption = None,
    since: SinceOption = None,
) -> None:
    """Learn example prompts for tools, from labelled cases and from transcripts, and write
    them as an examples overlay (sorted, with each example's source in a comment)."""
    from toolsel.learn import check_output, learn_examples, registry_policy

    if not cases and not transcripts and not misroutes:
        raise UsageError(
            "nothing to learn from",
            hint="give --cases FILE, --transcripts PATH or --misroutes FILE",
        )
    check_output(output_path, merge)
    loaded = load_registry(registry, no_cache=no_cache, namespace=namespace) if registry else None
    known, dangerous = registry_policy(loaded, include_dangerous=include_dangerous)
    import contextlib

    from toolsel.cli.replay import progress_bar_for

    bar = progress_bar_for(transcripts, since_time(since)) if transcripts else None
    with bar or contextlib.nullcontext() as progress:
        learned = learn_examples(
            cases=cases or (),
            transcripts=transcripts or (),
            misroutes=misroutes or (),
            known_tools=known,
            merge=output_path if merge else None,
            max_per_tool=max_per_tool,
            min_count=min_count,
            redact=redact or (),
            max_chars=max_chars,
            leave_out=dangerous,
            registry=loaded,
            replacing=output_path,
            jobs=jobs_wanted(jobs),
            since=since_time(since),
            progress=progress,
        )
    _write(
        learned,
        output_path,
        cases or [],
        transcripts or [],
        with_registry=bool(registry),
        misroutes=misroutes or [],
    )


def _write(
    learned: Learned,
    output_path: Path | None,
    cases: list[Path],
    transcripts: list[str],
    *,
    with_registry: bool,
    misroutes: list[Path],
) -> None:
    """Say what was left out and why, write the overlay (or say why nothing was), and
    exit 1 when a case could not be read or nothing was learned."""
    from toolsel.learn import overlay_text
    from toolsel.render.learn import UNKNOWN_DANGEROUS, flagged_lines, nothing_learned, summary

    for note in learned.notes:
        warn(note)
    for problem in learned.problems:
        warn(f"{problem} (case skipped)")
    for line in flagged_lines(learned):
        warn(line)
    new = learned.count - learned.kept_from_overlay
    if new <= 0 and learned.kept_from_overlay and learned.read:
        warn(f"{output_path}: already has every example learned; nothing written")
        return
    if new <= 0:
        warn(nothing_learned(learned, from_transcripts=bool(transcripts or misroutes)))
        warn(summary(learned))
        raise typer.Exit(int(ExitCode.FINDINGS))
    with output(output_path, inputs=[*cases, *transcripts, *misroutes]) as handle:
        handle.write(overlay_text(learned))
    warn(summary(learned, output_path))
    if (transcripts or misroutes) and not with_registry:
        warn(UNKNOWN_DANGEROUS)
    if learned.problems:
        raise typer.Exit(int(ExitCode.FINDINGS))
