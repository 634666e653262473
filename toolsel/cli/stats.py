"""`toolsel stats PATH...`: usage analytics across transcripts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolsel.cli.common import (
    CheckRegistryOption,
    JobsOption,
    NamespaceOption,
    NoCacheOption,
    NoRegistryOption,
    ReportFileOption,
    check_output,
    check_registry,
    handle_errors,
    jobs_wanted,
    output,
    since_time,
)
from toolsel.errors import UsageError
from toolsel.render.formats import StatsFormat

if TYPE_CHECKING:
    from toolsel.registry.model import Registry
    from toolsel.serve.store import Window

PathsArgument = Annotated[
    list[str] | None, typer.Argument(help="Transcript files, directories or globs.")
]
FormatOption = Annotated[
    StatsFormat, typer.Option("--format", "-f", help="human, json or html (charts).")
]
TopOption = Annotated[
    int, typer.Option("--top", metavar="N", min=0, help="Rows of the human table (0: every tool).")
]
DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        help="Read a usage store (toolsel serve's: sqlite:///PATH or postgresql://...) "
        "instead of transcripts.",
    ),
]
SinceOption = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="TIME",
        help="Count calls (--db: records) at or after TIME: ISO 8601 (UTC unless it "
        "says) or an age (7d, 12h). Transcript files last modified before are skipped.",
    ),
]
UntilOption = Annotated[
    str | None,
    typer.Option("--until", metavar="TIME", help="Count calls (--db: records) before TIME."),
]
SessionOption = Annotated[
    str | None, typer.Option("--session", help="--db: one session's records.")
]
EventsOption = Annotated[
    Path | None,
    typer.Option(
        "--events",
        metavar="DIR",
        help="Read the tables `toolsel export` wrote (SQL in DuckDB) instead of transcripts.",
    ),
]
ExactOption = Annotated[
    bool,
    typer.Option(
        "--exact",
        help="--db: compute from every record (exact percentiles; slower) instead of "
        "the store's hourly and daily sums.",
    ),
]

LedgerOption = Annotated[
    bool,
    typer.Option(
        "--ledger",
        help="Per server and tool: definition tokens beside calls, errors and result sizes, "
        "and a plan of which tools to keep always loaded (needs -r).",
    ),
]
BudgetOption = Annotated[
    int | None,
    typer.Option(
        "--budget",
        metavar="TOKENS",
        min=0,
        help="--ledger: exit 1 when the always-loaded tools cost more than TOKENS.",
    ),
]
ReachOption = Annotated[
    float,
    typer.Option(
        "--reach",
        metavar="SHARE",
        min=0.0,
        max=1.0,
        help="--ledger: the share of calls the plan keeps reachable; exit 1 below it.",
    ),
]
TopKOption = Annotated[
    int,
    typer.Option(
        "--top-k",
        metavar="K",
        min=1,
        help="--ledger: a deferred tool is reachable when rank puts it in the top K.",
    ),
]
MisroutesOption = Annotated[
    bool,
    typer.Option(
        "--misroutes",
        help="Where the agent picked the wrong tool: a call that failed or came back empty, "
        "then a different tool that worked for the same request; with -r, whether rank "
        "would have chosen the one that worked.",
    ),
]
WithinOption = Annotated[
    int,
    typer.Option(
        "--within",
        metavar="N",
        min=1,
        help="--misroutes: the calls after a failure in which a different tool may answer it.",
    ),
]


@handle_errors
def stats(
    paths: PathsArgument = None,
    registry: CheckRegistryOption = None,
    no_registry: NoRegistryOption = False,
    namespace: NamespaceOption = False,
    output_format: FormatOption = StatsFormat.HUMAN,
    output_file: ReportFileOption = None,
    top: TopOption = 50,
    no_cache: NoCacheOption = False,
    db: DbOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    session: SessionOption = None,
    events: EventsOption = None,
    exact: ExactOption = False,
    jobs: JobsOption = None,
    ledger: LedgerOption = False,
    budget: BudgetOption = None,
    reach: ReachOption = 0.99,
    top_k: TopKOption = 5,
    misroutes: MisroutesOption = False,
    within: WithinOption = 3,
) -> None:
    """Usage analytics across transcripts: per-tool calls, error rates, latency, co-used pairs."""
    loaded = check_registry(
        registry, no_registry=no_registry, namespace=namespace, no_cache=no_cache
    )
    plan = _ledger_plan(ledger, budget, top_k, reach, output_format, events, db)
    if within != 3 and not misroutes:
        raise UsageError("--within sets the misroutes' window: add --misroutes")
    if misroutes:
        _check_misroutes(paths, ledger, output_format, events, db, (since, until, session, exact))
        from toolsel.cli.stats_misroutes import misroutes_of

        assert paths  # checked above
        misroutes_of(paths, loaded, jobs=jobs_wanted(jobs), window=within,
                     output_format=output_format, output_file=output_file)  # fmt: skip
    elif events is not None:
        from toolsel.cli.stats_events import stats_from_events

        given = [n for n, v in (("--since", since), ("--until", until), ("--session", session),
                                ("--exact", exact), ("--jobs", jobs)) if v]  # fmt: skip
        if given:  # the tables hold every call exported: nothing would narrow or split them
            raise UsageError(
                f"{', '.join(given)} cannot be used with --events DIR",
                hint="read the transcripts instead: toolsel stats PATH... " + " ".join(given),
            )
        stats_from_events(events, paths, db, loaded, output_format, output_file, top)
    elif db is not None:
        if paths:
            raise UsageError("give transcripts or --db URL, not both")
        window = _store_window(since, until, session)
        _from_store(db, window, loaded, exact, output_format, output_file, top)
    else:
        if not paths:
            raise UsageError("give transcript files, directories or globs, or --db URL")
        if session or exact:
            raise UsageError("--session and --exact read a usage store: add --db URL")
        _from_transcripts(paths, loaded, since, until, jobs, output_format, output_file, top, plan)


def _ledger_plan(
    ledger: bool,
    budget: int | None,
    top_k: int,
    reach: float,
    output_format: StatsFormat,
    events: Path | None,
    db: str | None,
) -> dict[str, Any] | None:
    """`--ledger`'s settings (None without it), checked before any transcript is read."""
    if not ledger:
        if budget is not None:
            raise UsageError("--budget gates the ledger's plan: add --ledger")
        return None
    if events is not None or db is not None:
        raise UsageError("--ledger reads transcripts (it mines the requests behind calls)")
    if output_format is StatsFormat.HTML:
        raise UsageError("--ledger prints human or json, not html")
    return {"budget": budget, "top_k": top_k, "target": reach}


def _check_misroutes(
    paths: list[str] | None,
    ledger: bool,
    output_format: StatsFormat,
    events: Path | None,
    db: str | None,
    narrowing: tuple[str | None, str | None, str | None, bool],
) -> None:
    """`--misroutes` reads whole transcripts, in order: refuse what it cannot honour."""
    if ledger:
        raise UsageError("give --misroutes or --ledger, not both")
    if events is not None or db is not None:
        raise UsageError("--misroutes reads transcripts (it follows each step's calls in order)")
    if output_format is StatsFormat.HTML:
        raise UsageError("--misroutes prints human or json, not html")
    if any(narrowing):
        raise UsageError("--misroutes reads whole transcripts: drop --since, --until, "
                         "--session and --exact")  # fmt: skip
    if not paths:
        raise UsageError("--misroutes: give transcript files, directories or globs")


def _store_window(since: str | None, until: str | None, session: str | None) -> Window:
    from toolsel.serve.store import Window, stored_time

    times = {}
    for name, value in (("--since", since), ("--until", until)):
        try:
            times[name] = stored_time(_absolute(value)) if value else None
        except ValueError as error:
            raise UsageError(f"{name} must be an ISO 8601 time, got {value!r}: {error}") from None
    return Window(times["--since"], times["--until"], session)


def _from_store(
    db: str,
    window: Window,
    registry: Registry | None,
    exact: bool,
    output_format: StatsFormat,
    output_file: Path | None,
    top: int,
) -> None:
    """The statistics of a usage store's window; with charts over it as HTML."""
    from toolsel.render.stats import STATS_RENDERERS, stats_page
    from toolsel.serve.store import open_store, window_series, window_stats

    check_output(output_file, ())
    store = open_store(db)
    try:
        result = window_stats(store, window, registry, exact=exact)
        series = None
        if output_format is StatsFormat.HTML:
            series = window_series(store, window, registry, exact=exact)
    finally:
        store.close()
    with output(output_file) as out:
        if series is not None:
            out.write(stats_page(result, source=f"Tool usage in {store.url}", series=series))
        else:
            STATS_RENDERERS[output_format](result, out, top=top)


def _from_transcripts(
    paths: list[str],
    registry: Registry | None,
    since: str | None,
    until: str | None,
    jobs: int | None,
    output_format: StatsFormat,
    output_file: Path | None,
    top: int,
    plan: dict[str, Any] | None = None,
) -> None:
    """The statistics of transcripts (the calls in `since`..`until`); with charts over
    time as HTML; with `plan`, the ledger."""
    from toolsel.cli.replay import progress_bar_for
    from toolsel.render.stats import STATS_RENDERERS, series_page
    from toolsel.replay.driver import usage_paths
    from toolsel.replay.series import usage_over_time
    from toolsel.replay.window import CallWindow

    start, end = since_time(since), since_time(until, "--until")
    check_output(output_file, paths)
    counted = CallWindow(start, end) if start is not None or end is not None else None
    wanted = jobs_wanted(jobs)
    recorder = miner = None
    if plan is not None:  # the ledger mines the requests behind the calls in the same read
        from toolsel.learn.mine import Miner

        miner = Miner()
    with progress_bar_for(paths, start) as progress:
        if output_format is StatsFormat.HTML:
            totals, recorder = usage_over_time(
                paths, jobs=wanted, since=start, window=counted, progress=progress
            )
        else:
            totals = usage_paths(
                paths, jobs=wanted, since=start, window=counted, progress=progress, mine=miner
            )
    result = totals.stats(registry)
    if plan is not None and miner is not None:
        from toolsel.cli.stats_ledger import ledger_of

        ledger_of(result, miner.mined(), paths, registry, output_format=output_format,
                  output_file=output_file, **plan)  # fmt: skip
        return
    with output(output_file, inputs=paths) as out:
        if recorder is not None:
            out.write(series_page(result, recorder))
        else:
            STATS_RENDERERS[output_format](result, out, top=top)


def _absolute(value: str) -> str:
    """An age (7d) as the ISO 8601 time it names; any other value as it is."""
    from toolsel.timeparse import is_age, iso, parse_time

    return iso(parse_time(value)) if is_age(value) else value
