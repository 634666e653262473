"""`toolsel learn`: an examples overlay from labelled cases and from transcripts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import NamespaceOption, NoCacheOption, handle_errors, output, warn
from toolsel.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from toolsel.learn import Learned


@handle_errors
def learn(
    cases: Annotated[
        list[Path] | None,
        typer.Option(
            "--cases",
            help="eval cases (JSONL) or test golden files whose queries become examples "
            "of their expected tools. Repeatable.",
        ),
    ] = None,
    transcripts: Annotated[
        list[str] | None,
        typer.Option(
            "--transcripts",
            help="Transcript files, directories or globs (any format replay reads): each "
            "successful call learns the user's request that led to it. Repeatable.",
        ),
    ] = None,
    output_path: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="The overlay to write (atomically); only an overlay is ever overwritten. "
            "Default: standard output.",
        ),
    ] = None,
    registry: Annotated[
        list[Path] | None,
        typer.Option(
            "--registry",
            "-r",
            help="Registry whose tools may receive examples; others are reported and dropped.",
        ),
    ] = None,
    namespace: NamespaceOption = False,
    max_per_tool: Annotated[
        int,
        typer.Option(
            "--max-per-tool",
            min=0,
            help="Keep N representative, diverse examples per tool (0: all).",
        ),
    ] = 0,
    min_count: Annotated[
        int, typer.Option("--min-count", min=1, help="Drop tools seen fewer than N times.")
    ] = 1,
    merge: Annotated[
        bool,
        typer.Option("--merge", help="Add to the existing overlay at -o, without duplicates."),
    ] = False,
    redact: Annotated[
        list[str] | None,
        typer.Option(
            "--redact",
            metavar="REGEX",
            help="Also drop prompts matching REGEX (secrets and personal data are always "
            "replaced by placeholders such as <email>). Repeatable.",
        ),
    ] = None,
    max_chars: Annotated[
        int,
        typer.Option(
            "--max-chars",
            min=0,
            help="Leave out prompts longer than N characters (pasted files and logs), "
            "and count them (0: no limit).",
        ),
    ] = 2000,  # toolsel.learn.MAX_CHARS (not imported: the CLI starts light)
    include_dangerous: Annotated[
        bool,
        typer.Option(
            "--include-dangerous",
            help="Also learn from transcripts for tools whose permission is `dangerous` "
            "(needs -r to know them; left out by default, and counted).",
        ),
    ] = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Learn example prompts for tools, from labelled cases and from transcripts, and write
    them as an examples overlay (sorted, with each example's source in a comment)."""
    from toolsel.learn import is_overlay_file, learn_examples, overlay_text

    if not cases and not transcripts:
        raise UsageError("nothing to learn from", hint="give --cases FILE or --transcripts PATH")
    if merge and output_path is None:
        raise UsageError("--merge needs -o OVERLAY (the overlay to add to)")
    if output_path is not None and output_path.exists() and not is_overlay_file(output_path):
        raise UsageError(
            f"{output_path}: exists and is not an examples overlay; refusing to overwrite it",
            hint="pass another -o, or remove the file",
        )
    known = None
    dangerous: list[str] = []
    if registry:
        from toolsel.cli.common import load_registry
        from toolsel.registry.permission import Permission

        tools = load_registry(registry, no_cache=no_cache, namespace=namespace).tools
        known = [tool.name for tool in tools]
        if not include_dangerous:
            dangerous = [t.name for t in tools if t.permission is Permission.DANGEROUS]
    learned = learn_examples(
        cases=cases or (),
        transcripts=transcripts or (),
        known_tools=known,
        merge=output_path if merge else None,
        max_per_tool=max_per_tool,
        min_count=min_count,
        redact=redact or (),
        max_chars=max_chars,
        leave_out=dangerous,
    )
    for problem in learned.problems:
        warn(f"{problem} (line skipped)")
    new = learned.count - learned.kept_from_overlay
    if new <= 0 and learned.kept_from_overlay and learned.read:
        warn(f"{output_path}: already has every example learned; nothing written")
        return
    if new <= 0:
        if learned.read:  # found, then every one left out: the summary says why
            warn(
                f"no examples learned: all {learned.read} found were left out "
                "(see below); nothing written"
            )
        else:
            what = "human prompts before successful calls" if transcripts else "usable cases"
            warn(f"no examples learned: no {what} in the input; nothing written")
        _summary(learned)
        raise typer.Exit(int(ExitCode.FINDINGS))
    with output(output_path, inputs=[*(cases or ()), *(transcripts or ())]) as handle:
        handle.write(overlay_text(learned))
    _summary(learned, output_path)
    if transcripts and not registry:
        warn(
            "without -r, learn cannot tell which tools are dangerous: examples for all of "
            "them were learned (see the README's `toolsel learn`)"
        )
    if learned.problems:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _summary(learned: Learned, path: Path | None = None) -> None:
    parts = [
        f"{learned.count} examples for {len(learned.examples)} tools"
        + (
            f" ({learned.kept_from_overlay} kept from the overlay)"
            if learned.kept_from_overlay
            else ""
        )
    ]
    if learned.calls_seen:
        parts.append(
            f"{learned.calls_seen} successful calls read, "
            f"{learned.calls_without_prompt} with no human prompt before them"
        )
    if learned.redacted:
        used = ", ".join(f"{p} x{n}" for p, n in learned.placeholders[:5])
        more = ", ..." if len(learned.placeholders) > 5 else ""
        parts.append(
            f"{learned.redacted} prompts kept with secrets or personal data replaced ({used}{more})"
        )
    if learned.only_secret:
        parts.append(
            f"{learned.only_secret} prompts that were only a secret or personal data dropped"
        )
    if learned.dropped:
        parts.append(f"{learned.dropped} prompts matching --redact dropped")
    if learned.dangerous_left_out:
        parts.append(
            f"{learned.dangerous_left_out} transcript examples for dangerous tools left out "
            f"({_some(learned.dangerous_tools)}; --include-dangerous learns them)"
        )
    if learned.too_long:
        parts.append(f"{learned.too_long} prompts over --max-chars left out")
    if learned.unknown_tools:
        parts.append(
            f"{len(learned.unknown_tools)} tools not in the registry dropped "
            f"({_some(learned.unknown_tools)})"
        )
    if learned.below_min_count:
        parts.append(f"{len(learned.below_min_count)} tools below --min-count dropped")
    if learned.problems:
        parts.append(f"{len(learned.problems)} unreadable case lines skipped")
    where = f"; wrote {path}" if path is not None else ""
    warn("learned " + "; ".join(parts) + where)


def _some(names: tuple[str, ...], shown: int = 5) -> str:
    """The first few names: "a, b, c, d, e and 2 more"."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
