"""`toolsel replay PATH...`: pair tool calls with their results in agent transcripts."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import (
    CheckRegistryOption,
    JobsOption,
    NamespaceOption,
    NoCacheOption,
    NoRegistryOption,
    ReportFileOption,
    SinceOption,
    check_output,
    check_registry,
    handle_errors,
    jobs_wanted,
    output,
    since_time,
    split_values,
    warn,
)
from toolsel.errors import ExitCode, UsageError
from toolsel.registry.permission import Permission
from toolsel.render.formats import InputFormat, ReplayFormat

if TYPE_CHECKING:
    from toolsel.registry.model import Registry
    from toolsel.replay.post import EventPoster
    from toolsel.replay.report import FailOn, ToolEvent
    from toolsel.replay.timeline import TimelineRecorder

#: A byte-progress bar is drawn (on a terminal's stderr) for inputs larger than this.
PROGRESS_MIN_BYTES = 50 * 1024 * 1024


PathsArgument = Annotated[
    list[str],
    typer.Argument(help="Transcript files, directories (recursive), globs, or - for stdin."),
]
PermissionOption = Annotated[
    Permission | None,
    typer.Option("--permission", "-p", help="Report calls needing more than this (with -r)."),
]
FormatOption = Annotated[
    ReplayFormat,
    typer.Option(
        "--format",
        "-f",
        help="human, json (toolsel.replay), jsonl (tool_start/tool_result events) or "
        "html (a self-contained report page).",
    ),
]
FailOnOption = Annotated[
    list[str] | None,
    typer.Option(
        "--fail-on",
        help="Finding kinds that exit 1 (comma-separated; default orphans,conflicting,unreadable,violations,unread-tools,unrecognised; none).",
    ),
]
InputFormatOption = Annotated[
    InputFormat,
    typer.Option("--input-format", help="Transcript format; auto detects it per line."),
]
PerFileOption = Annotated[
    bool,
    typer.Option(
        "--per-file",
        help="human: every file's counts, findings and sub-agents, not only the files "
        "with findings.",
    ),
]
AllowUnknownOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-unknown",
        metavar="PATTERN",
        help="Tools the registry need not declare: names or globs (repeatable, "
        "comma-separated; e.g. 'mcp__*'). Also [tool.toolsel] allow-unknown.",
    ),
]
PostOption = Annotated[
    str | None,
    typer.Option(
        "--post",
        metavar="URL",
        help="Also send the calls to toolsel serve's /v1/usage at URL (e.g. "
        "http://localhost:8765/v1/usage), in batches; posting again never counts a call "
        "twice. The token, if any, from TOOLSEL_TOKEN.",
    ),
]


@handle_errors
def replay(
    paths: PathsArgument,
    registry: CheckRegistryOption = None,
    no_registry: NoRegistryOption = False,
    namespace: NamespaceOption = False,
    permission: PermissionOption = None,
    output_format: FormatOption = ReplayFormat.HUMAN,
    output_file: ReportFileOption = None,
    fail_on: FailOnOption = None,
    input_format: InputFormatOption = InputFormat.AUTO,
    allow_unknown: AllowUnknownOption = None,
    no_cache: NoCacheOption = False,
    jobs: JobsOption = None,
    since: SinceOption = None,
    per_file: PerFileOption = False,
    post: PostOption = None,
) -> None:
    """Pair tool calls with their results by id in agent transcripts, and report what went wrong.

    Human output leads with the totals, then the files with findings, worst first
    (--per-file: every file). The report keeps every file, so its memory grows with the number of files (about
    0.5 kB each); `toolsel stats` keeps none."""
    from toolsel.render.replay import REPLAY_RENDERERS, render_replay_html
    from toolsel.render.replay_human import render_replay_human
    from toolsel.replay.driver import replay_paths

    kinds = parse_fail_on(fail_on)
    loaded = check_registry(
        registry, no_registry=no_registry, namespace=namespace, no_cache=no_cache
    )
    poster = poster_for(post)
    check_output(output_file, paths)
    with output(output_file, inputs=paths) as out:
        events, timeline = event_sinks(output_format, out, loaded, poster)
        with progress_bar_for(paths, since_time(since)) as progress:
            result = replay_paths(
                paths,
                registry=loaded,
                permission=permission,
                on_event=events,
                input_format=None if input_format is InputFormat.AUTO else input_format.value,
                progress=progress,
                allow_unknown=allowed_unknown(allow_unknown),
                jobs=jobs_wanted(jobs),
                since=since_time(since),
                keep="compact",
                usage=output_format in (ReplayFormat.HUMAN, ReplayFormat.HTML),
            )
        if timeline is not None:
            render_replay_html(result, out, timeline.finish())
        elif output_format is ReplayFormat.HUMAN:
            render_replay_human(result, out, per_file=per_file)
        else:
            REPLAY_RENDERERS[output_format](result, out)
    if poster is not None:
        from toolsel.render.replay import posted_note

        warn(posted_note(poster.finish()))
    raise typer.Exit(int(ExitCode.FINDINGS) if result.fails(kinds) else int(ExitCode.OK))


def event_sinks(
    output_format: ReplayFormat, out: IO[str], loaded: Registry | None, poster: EventPoster | None
) -> tuple[Callable[[ToolEvent], None] | None, TimelineRecorder | None]:
    """Where the events go: the JSONL report, the HTML timeline, and --post's batches."""
    events: Callable[[ToolEvent], None] | None = None
    timeline = None
    if output_format is ReplayFormat.JSONL:
        from toolsel.render.replay import event_writer

        events = event_writer(out, loaded)
    elif output_format is ReplayFormat.HTML:
        from toolsel.replay.timeline import TimelineRecorder

        events = timeline = TimelineRecorder()
    if poster is not None:
        events = poster if events is None else both(events, poster)
    return events, timeline


def poster_for(url: str | None) -> EventPoster | None:
    """--post's sink, once its URL is one it can send to."""
    if url is None:
        return None
    from toolsel.replay.post import EventPoster

    if not url.startswith(("http://", "https://")):
        raise UsageError(
            f"--post: expected an http:// or https:// URL, got {url!r}",
            hint="for example --post http://localhost:8765/v1/usage",
        )
    return EventPoster(url)


def both(
    first: Callable[[ToolEvent], None], second: Callable[[ToolEvent], None]
) -> Callable[[ToolEvent], None]:
    def sink(event: ToolEvent) -> None:
        first(event)
        second(event)

    return sink


def allowed_unknown(values: list[str] | None) -> tuple[str, ...]:
    """--allow-unknown's globs, then the project's `allow-unknown`."""
    from toolsel.sources.project import find_config

    return tuple(dict.fromkeys([*split_values(values), *find_config().allow_unknown]))


def parse_fail_on(values: list[str] | None) -> tuple[FailOn, ...]:
    from toolsel.replay.report import DEFAULT_FAIL_ON, FailOn

    chosen = split_values(values)
    if not chosen:
        return DEFAULT_FAIL_ON
    if chosen == ["none"]:
        return ()
    kinds = [kind.value for kind in FailOn]
    for item in chosen:
        if item not in kinds:
            from toolsel.suggest import did_you_mean

            raise UsageError(
                f"--fail-on: unknown finding kind {item!r}{did_you_mean(item, kinds)}",
                hint=f"kinds: {', '.join(kinds)}, or none",
            )
    return tuple(FailOn(item) for item in chosen)


@contextlib.contextmanager
def progress_bar_for(
    paths: list[str], since: float | None = None, label: str = "replaying"
) -> Iterator[Callable[[int], None] | None]:
    """A byte-progress bar on stderr, only when stderr is a terminal and the input (the
    files `since` keeps) is large."""
    from toolsel.render.progress import progress_bar, wants_progress
    from toolsel.replay.lines import expand_inputs, modified_before

    if not wants_progress():
        yield None
        return
    from toolsel.replay.remote import is_remote

    # URLs are not listed here: their sizes are not counted, and the command lists them
    local = [p for p in paths if p != "-" and not is_remote(p)]
    total = sum(
        Path(p).stat().st_size
        for p in (expand_inputs(local) if local else [])
        if not (since is not None and modified_before(p, since))
    )
    if total < PROGRESS_MIN_BYTES:
        yield None
        return
    with progress_bar(label, total, unit="bytes") as advance:
        yield advance
