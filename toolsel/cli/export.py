"""`toolsel export PATH... -o DIR`: transcripts as event tables (Parquet), one row per call.

A command of its own rather than `replay --format parquet`: `replay` writes a report to a
stream and exits 1 on findings, where this writes a directory of tables and succeeds
whenever they are written; and its options (an engine, a scheduler) are not replay's."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from toolsel.cli.common import JobsOption, SinceOption, handle_errors, jobs_wanted, since_time
from toolsel.errors import UsageError
from toolsel.render.formats import InputFormat


class Engine(StrEnum):
    LOCAL = "local"
    DASK = "dask"


PathsArgument = Annotated[
    list[str],
    typer.Argument(help="Transcript files, directories, globs, s3:// or gs:// URLs."),
]
OutputDirOption = Annotated[
    Path,
    typer.Option(
        "--output-dir", "-o", metavar="DIR", help="A new (or empty) directory for the tables."
    ),
]
InputFormatOption = Annotated[
    InputFormat,
    typer.Option("--input-format", help="Transcript format; auto detects it per line."),
]
EngineOption = Annotated[
    Engine, typer.Option("--engine", help="local (this process) or dask (a Dask cluster).")
]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="--engine dask: the scheduler (tcp://host:8786); default: a local cluster.",
    ),
]


@handle_errors
def export(
    paths: PathsArgument,
    output_dir: OutputDirOption,
    input_format: InputFormatOption = InputFormat.AUTO,
    engine: EngineOption = Engine.LOCAL,
    scheduler: SchedulerOption = None,
    since: SinceOption = None,
    jobs: JobsOption = None,
) -> None:
    """Write every tool call as a row of Parquet tables (toolsel[events])."""
    from toolsel.events.export import check_target, export_events
    from toolsel.render.events import render_export_summary

    fmt = None if input_format is InputFormat.AUTO else input_format.value
    after = since_time(since)
    if scheduler is not None and engine is not Engine.DASK:
        raise UsageError("--scheduler needs --engine dask")
    if jobs is not None and engine is Engine.DASK:
        raise UsageError("--jobs is for --engine local", hint="the cluster's workers map the files")
    check_target(output_dir)
    if engine is Engine.DASK:
        from toolsel.events.dask import export_on_dask

        summary = export_on_dask(
            paths, str(output_dir), scheduler=scheduler, input_format=fmt, since=after
        )
    else:
        from toolsel.cli.replay import progress_bar_for

        with progress_bar_for(paths, after, "exporting") as progress:
            summary = export_events(
                paths,
                str(output_dir),
                input_format=fmt,
                since=after,
                jobs=jobs_wanted(jobs),
                progress=progress,
            )
    import sys

    render_export_summary(summary, sys.stdout)
