"""The `toolsel` command line: one thin function per command.

Each command parses its options, calls one core function, hands the result to a renderer
and exits with the result's code. Expected failures (`ToolselError`) become a one-line
message on stderr and their exit code in `_handle_errors`, the only place that does so.
Heavy modules are imported inside commands so `toolsel --help` starts fast.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from toolsel import __version__
from toolsel.errors import ExitCode, ToolselError
from toolsel.ranking.options import Method
from toolsel.registry.model import Permission
from toolsel.render.formats import (
    DepsFormat,
    EmitFormat,
    GraphFormat,
    InputFormat,
    LintFormat,
    RankFormat,
    ReplayFormat,
    TestFormat,
)

app = typer.Typer(
    name="toolsel",
    help="Inspect, lint and test LLM tool registries.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

F = TypeVar("F", bound=Callable[..., Any])

RegistryOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--registry",
        "-r",
        help="Registry file or directory (repeatable). Default: [tool.toolsel] registry, ./registries/, or the bundled example.",
    ),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Do not read or write the parse cache.")
]


def _handle_errors(command: F) -> F:
    """Turn expected failures into one line on stderr plus the documented exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ToolselError as error:
            typer.echo(f"toolsel: error: {error}", err=True)
            raise typer.Exit(int(error.exit_code)) from None
        except BrokenPipeError:
            sys.stderr.close()  # the reader went away (`| head`); nothing left to say
            raise typer.Exit(int(ExitCode.OK)) from None
        except KeyboardInterrupt:
            typer.echo("toolsel: interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        from toolsel.embed.model import INSTALL_HINT, MODEL, missing

        reason = missing()
        embeddings = (
            f"available ({MODEL.name})" if reason is None else f"not installed ({INSTALL_HINT})"
        )
        typer.echo(f"toolsel {__version__}\nembeddings: {embeddings}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Inspect, lint and test LLM tool registries."""


def _write(text: str, output_file: Path | None) -> None:
    if output_file is None:
        sys.stdout.write(text)
        return
    try:
        output_file.write_text(text, encoding="utf-8")
    except OSError as exc:
        from toolsel.errors import UsageError

        raise UsageError(f"{output_file}: cannot write: {exc.strerror or exc}") from None


def _registry(paths: list[Path] | None, no_cache: bool) -> Any:
    from toolsel.registry import load_registry

    return load_registry(paths or None, use_cache=not no_cache)


@app.command()
@_handle_errors
def rank(
    prompt: Annotated[
        str | None,
        typer.Argument(
            help='What the user asked ("read the config file"), or select:NAME,NAME for a direct lookup.'
        ),
    ] = None,
    registry: RegistryOption = None,
    method: Annotated[
        Method, typer.Option("--method", "-m", help="Scoring method.")
    ] = Method.HYBRID,
    top: Annotated[
        int | None,
        typer.Option(
            "--top",
            "-n",
            help="How many tools to offer (default 8; 5 with --method cc, as Claude Code).",
            show_default=False,
        ),
    ] = None,
    permission: Annotated[
        Permission | None,
        typer.Option("--permission", "-p", help="Block tools that need more than this."),
    ] = None,
    category: Annotated[
        list[str] | None,
        typer.Option("--category", "-c", help="Only tools in this category (repeatable)."),
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="Only tools with this tag (repeatable).")
    ] = None,
    include_deprecated: Annotated[
        bool, typer.Option("--include-deprecated", help="Keep deprecated tools.")
    ] = False,
    min_score: Annotated[
        float, typer.Option("--min-score", help="Drop results scoring below this (0-1).")
    ] = 0.0,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain", help="Show which terms matched which fields, and why tools were dropped."
        ),
    ] = False,
    output_format: Annotated[
        RankFormat, typer.Option("--format", "-f", help="Output format.")
    ] = RankFormat.HUMAN,
    emit: Annotated[
        EmitFormat | None,
        typer.Option("--emit", help="Print the selected tools in this provider's request shape."),
    ] = None,
    batch: Annotated[
        Path | None,
        typer.Option("--batch", help='Rank every {"id", "query"} line of a JSONL file.'),
    ] = None,
    tool_use_id: Annotated[
        str | None,
        typer.Option("--tool-use-id", help="tool_use_id for the select: tool_result block."),
    ] = None,
    pending_server: Annotated[
        list[str] | None,
        typer.Option(
            "--pending-server", help="An MCP server still connecting (select: not-found hint)."
        ),
    ] = None,
    with_deps: Annotated[
        bool, typer.Option("--with-deps", help="select: also add each tool's requires closure.")
    ] = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Rank the registry's tools for a prompt: which tools it selects, in what order, and why."""
    from toolsel.ranking import RankOptions
    from toolsel.ranking.store import load_index

    if top is None:
        top = 5 if method is Method.CC else 8
    options = RankOptions(
        method,
        top,
        permission,
        tuple(category or ()),
        tuple(tag or ()),
        include_deprecated,
        min_score,
        explain or output_format is RankFormat.HUMAN,
    )
    if batch is not None:
        from toolsel.commands.rank import run_batch

        raise typer.Exit(run_batch(batch, registry, options, output_format, use_cache=not no_cache))
    if prompt is None:
        from toolsel.errors import UsageError

        raise UsageError(
            "give a prompt, or --batch FILE", hint='e.g. toolsel rank "read the config file"'
        )
    index = load_index(registry or None, use_cache=not no_cache)
    from toolsel.select import is_select

    if is_select(prompt):
        from toolsel.commands.rank import run_select

        raise typer.Exit(
            run_select(
                index,
                prompt,
                registry,
                output_format,
                tool_use_id,
                tuple(pending_server or ()),
                with_deps,
                emit,
                use_cache=not no_cache,
            )
        )
    from toolsel.commands.rank import run_search

    run_search(
        index, prompt, options, registry, output_format, emit, explain, use_cache=not no_cache
    )


@app.command()
@_handle_errors
def deps(
    tools: Annotated[
        list[str] | None, typer.Argument(help="Tools whose requirements to resolve.")
    ] = None,
    registry: RegistryOption = None,
    all_tools: Annotated[bool, typer.Option("--all", help="The whole requires graph.")] = False,
    graph: Annotated[
        GraphFormat | None, typer.Option("--graph", help="Export as Graphviz dot or Mermaid.")
    ] = None,
    output_format: Annotated[
        DepsFormat, typer.Option("--format", "-f", help="Output format.")
    ] = DepsFormat.HUMAN,
    no_cache: NoCacheOption = False,
) -> None:
    """Show the transitive `requires` of tools in load order, with conflicts and cycles."""
    from toolsel.errors import UsageError
    from toolsel.graph import closure, conflicting_pairs
    from toolsel.render.console import make_console
    from toolsel.render.deps import render_deps_human, render_deps_json, render_graph
    from toolsel.suggest import did_you_mean

    loaded = _registry(registry, no_cache)
    if all_tools:
        roots = loaded.names
    elif tools:
        for name in tools:
            if name not in loaded:
                raise UsageError(f"unknown tool {name!r}{did_you_mean(name, loaded.names)}")
        roots = tools
    else:
        raise UsageError("name at least one tool, or pass --all")
    result = closure(loaded, roots)
    if graph is not None:
        _write(render_graph(result, graph, conflicting_pairs(loaded, result.order)), None)
    elif output_format is DepsFormat.JSON:
        _write(render_deps_json(result), None)
    else:
        render_deps_human(result, make_console())
    if result.cycles or result.missing:
        raise typer.Exit(int(ExitCode.FINDINGS))


@app.command()
@_handle_errors
def lint(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Registry files or directories. Default: the project's registry."),
    ] = None,
    output_format: Annotated[
        LintFormat,
        typer.Option(
            "--format", "-f", help="Output format; auto = github under GitHub Actions, else human."
        ),
    ] = LintFormat.HUMAN,
    output_file: Annotated[
        Path | None,
        typer.Option("--output-file", "-o", help="Write the report here instead of stdout."),
    ] = None,
    fail_on: Annotated[
        str | None,
        typer.Option("--fail-on", help="Lowest severity that fails: error, warning, info, never."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail on warnings too (same as --fail-on warning).")
    ] = False,
    exit_zero: Annotated[
        bool, typer.Option("--exit-zero", help="Always exit 0 unless toolsel itself fails.")
    ] = False,
    select: Annotated[
        list[str] | None,
        typer.Option(
            "--select", help="Only these rule ids or prefixes (repeatable, comma-separated)."
        ),
    ] = None,
    extend_select: Annotated[
        list[str] | None,
        typer.Option("--extend-select", help="Add rules, including off-by-default ones."),
    ] = None,
    ignore: Annotated[
        list[str] | None, typer.Option("--ignore", help="Skip these rule ids or prefixes.")
    ] = None,
    target: Annotated[
        list[str] | None,
        typer.Option(
            "--target",
            "-t",
            help="Provider profile: portable, openai, openai-strict, anthropic, anthropic-strict, gemini, mcp.",
        ),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Use this toolsel.toml or pyproject.toml.")
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Hide info findings in human output.")
    ] = False,
    list_rules: Annotated[
        bool, typer.Option("--list-rules", help="List every rule and exit.")
    ] = False,
    explain: Annotated[
        str | None, typer.Option("--explain", help="Explain one rule, e.g. TS504, and exit.")
    ] = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Check registry files for problems that break providers or confuse agents."""
    from toolsel.lint import all_rules
    from toolsel.lint.engine import lint_paths
    from toolsel.render.console import make_console
    from toolsel.render.lint import TEXT_RENDERERS, render_human, render_rule_list, rule_explanation

    if list_rules:
        render_rule_list(list(all_rules().values()), make_console())
        return
    if explain is not None:
        _write(rule_explanation(_find_rule(explain)), None)
        return
    overrides = {
        "select": _split(select),
        "extend-select": _split(extend_select),
        "ignore": _split(ignore),
        "targets": _split(target),
        "fail-on": "warning" if strict else fail_on,
    }
    result = lint_paths(
        [str(p) for p in paths or []] or None,
        config_file=str(config) if config else None,
        overrides=overrides,
        use_cache=not no_cache,
    )
    fmt = output_format.resolve()
    if fmt is LintFormat.HUMAN:
        if output_file is None:
            render_human(result, make_console(), quiet=quiet)
        else:
            with _open_output(output_file) as handle:
                render_human(result, make_console(handle), quiet=quiet)
    else:
        _write(TEXT_RENDERERS[fmt](result), output_file)
    if result.failed and not exit_zero:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _open_output(path: Path) -> Any:
    from toolsel.errors import UsageError

    try:
        return path.open("w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _find_rule(rule_id: str) -> Any:
    from toolsel.errors import UsageError
    from toolsel.lint import all_rules
    from toolsel.suggest import did_you_mean

    rules = all_rules()
    wanted = rule_id.strip().upper()
    for rule in rules.values():
        if wanted in (rule.id, rule.name.upper()):
            return rule
    raise UsageError(
        f"unknown rule {rule_id!r}{did_you_mean(wanted, rules)}",
        hint="`toolsel lint --list-rules` lists them",
    )


def _split(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


@app.command(name="eval")
@_handle_errors
def eval_command(
    cases: Annotated[
        Path, typer.Option("--cases", help='JSONL of {"id", "query", "expected": [tools]}.')
    ],
    registry: RegistryOption = None,
    method: Annotated[
        Method, typer.Option("--method", "-m", help="Scoring method.")
    ] = Method.HYBRID,
    compare: Annotated[bool, typer.Option("--compare", help="Every method side by side.")] = False,
    k: Annotated[str, typer.Option("-k", help="Recall cut-offs, comma-separated.")] = "1,5,10",
    worst: Annotated[int, typer.Option("--worst", help="How many worst queries to list.")] = 5,
    output_format: Annotated[
        RankFormat, typer.Option("--format", "-f", help="human or json.")
    ] = RankFormat.HUMAN,
    no_cache: NoCacheOption = False,
) -> None:
    """Measure selection quality on labelled queries: Recall@k, MRR@10, NDCG@10."""
    from toolsel.errors import UsageError
    from toolsel.evaluate import evaluate, read_cases
    from toolsel.ranking.store import load_index
    from toolsel.render.console import make_console
    from toolsel.render.quality import dumps, eval_payload, render_eval_human

    try:
        ks = tuple(int(part) for part in k.split(",") if part.strip())
    except ValueError:
        raise UsageError(f"-k must be comma-separated positive integers, got {k!r}") from None
    if not ks or min(ks) < 1:
        raise UsageError(f"-k must be comma-separated positive integers, got {k!r}")
    found, bad = read_cases(cases)
    methods = _compared_methods() if compare else [method]
    index = load_index(registry or None, use_cache=not no_cache)
    from toolsel.commands.rank import prepare_methods

    prepare_methods(index, methods, [c.query for c in found], use_cache=not no_cache)
    report = evaluate(
        index,
        found,
        methods,
        ks,
        source=str(cases),
        bad_lines=bad,
    )
    if output_format is RankFormat.HUMAN:
        render_eval_human(report, make_console(), worst=worst)
    else:
        _write(dumps(eval_payload(report)), None)
    if bad:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _compared_methods() -> list[Method]:
    """Every method; `semantic` and `fusion` only where the embedding extra is installed."""
    from toolsel.embed.model import INSTALL_HINT, missing
    from toolsel.ranking.options import EMBEDDING_METHODS

    if missing() is None:
        return list(Method)
    typer.echo(
        f"toolsel: note: semantic and fusion skipped (install them with: {INSTALL_HINT})",
        err=True,
    )
    return [m for m in Method if m not in EMBEDDING_METHODS]


@app.command(name="test")
@_handle_errors
def test_command(
    cases: Annotated[
        Path,
        typer.Argument(help="YAML of golden cases: prompt, expect, forbid, top_k, permission."),
    ],
    registry: RegistryOption = None,
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
    from toolsel.commands.rank import prepare_methods
    from toolsel.golden import read_cases, run_cases
    from toolsel.ranking.store import load_index
    from toolsel.render.console import make_console
    from toolsel.render.quality import dumps, golden_payload, render_test_human, render_test_junit

    golden = read_cases(cases)
    index = load_index(registry or None, use_cache=not no_cache)
    prepare_methods(
        index, {c.method for c in golden}, [c.prompt for c in golden], use_cache=not no_cache
    )
    report = run_cases(index, golden, str(cases))
    if output_format is TestFormat.HUMAN and output_file is None:
        render_test_human(report, make_console())
    elif output_format is TestFormat.JUNIT:
        _write(render_test_junit(report), output_file)
    elif output_format is TestFormat.JSON:
        _write(dumps(golden_payload(report)), output_file)
    else:
        with _open_output(output_file) as handle:  # type: ignore[arg-type]
            render_test_human(report, make_console(handle))
    if report.failed:
        raise typer.Exit(int(ExitCode.FINDINGS))


@app.command()
@_handle_errors
def prompt(
    registry: RegistryOption = None,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget", help="Warn (exit 1) when always-loaded definitions exceed N tokens."
        ),
    ] = None,
    output_format: Annotated[
        RankFormat, typer.Option("--format", "-f", help="human or json.")
    ] = RankFormat.HUMAN,
    no_cache: NoCacheOption = False,
) -> None:
    """Print the deferred-tool listing an agent would see, and the always-loaded tools' cost."""
    from toolsel.listing import build_listing
    from toolsel.render.console import make_console
    from toolsel.render.quality import dumps, prompt_payload, render_prompt_human

    listing = build_listing(_registry(registry, no_cache), budget=budget)
    if output_format is RankFormat.HUMAN:
        render_prompt_human(listing, make_console())
    else:
        _write(dumps(prompt_payload(listing)), None)
    if listing.over_budget:
        typer.echo(
            f"toolsel: warning: always-loaded definitions take about {listing.loaded_tokens} tokens, over the budget of {budget}",
            err=True,
        )
        raise typer.Exit(int(ExitCode.FINDINGS))


@app.command()
@_handle_errors
def replay(
    paths: Annotated[
        list[str],
        typer.Argument(help="Transcript files, directories (recursive), globs, or - for stdin."),
    ],
    registry: RegistryOption = None,
    permission: Annotated[
        Permission | None,
        typer.Option("--permission", "-p", help="Report calls needing more than this (with -r)."),
    ] = None,
    output_format: Annotated[
        ReplayFormat,
        typer.Option(
            "--format",
            "-f",
            help="human, json (toolsel.replay/v1) or jsonl (tool_start/tool_result events).",
        ),
    ] = ReplayFormat.HUMAN,
    fail_on: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-on",
            help="Finding kinds that exit 1 (comma-separated; default orphans,conflicting,unreadable,violations; none).",
        ),
    ] = None,
    input_format: Annotated[
        InputFormat,
        typer.Option("--input-format", help="Transcript format; auto detects it per line."),
    ] = InputFormat.AUTO,
    no_cache: NoCacheOption = False,
) -> None:
    """Pair tool calls with their results by id in agent transcripts, and report what went wrong."""
    from toolsel.commands.replay import parse_fail_on, run_replay

    forced = None if input_format is InputFormat.AUTO else input_format.value
    code = run_replay(
        paths,
        registry,
        permission,
        output_format,
        parse_fail_on(fail_on),
        use_cache=not no_cache,
        input_format=forced,
    )
    raise typer.Exit(code)


@app.command()
@_handle_errors
def stats(
    paths: Annotated[list[str], typer.Argument(help="Transcript files, directories or globs.")],
    registry: RegistryOption = None,
    output_format: Annotated[
        RankFormat, typer.Option("--format", "-f", help="human or json.")
    ] = RankFormat.HUMAN,
    no_cache: NoCacheOption = False,
) -> None:
    """Usage analytics across transcripts: per-tool calls, error rates, latency, co-used pairs."""
    from toolsel.commands.replay import stats_payload
    from toolsel.render.console import make_console
    from toolsel.render.quality import dumps
    from toolsel.replay.core import replay_paths

    loaded = _registry(registry, no_cache) if registry else None
    payload = stats_payload(replay_paths(paths), loaded)
    if output_format is not RankFormat.HUMAN:
        _write(dumps(payload), None)
        return
    from toolsel.render.replay import render_stats_human

    render_stats_human(payload, make_console())


@app.command()
@_handle_errors
def schema() -> None:
    """Print the JSON Schema of the registry format, for editors and check-jsonschema."""
    from importlib.resources import files

    _write(
        files("toolsel.schemas").joinpath("registry.schema.json").read_text(encoding="utf-8"), None
    )


def main() -> None:
    """Console-script entry point."""
    app()
