"""The `toolsel` command line: one module per command.

Each command parses its options, builds one request (keyword arguments), calls one core
function and hands the result to its renderer table (`toolsel.render.<command>`). Expected
failures (`ToolselError`) become one line on stderr and their exit code in
`common.handle_errors`, the only place that does so. Heavy modules are imported inside
commands, so `toolsel --help` starts fast.
"""

from __future__ import annotations

from toolsel.cli import (
    convert,
    deps,
    diff,
    evaluate,
    export,
    golden,
    init,
    learn,
    lint,
    lock,
    prompt,
    rank,
    replay,
    schema,
    serve,
    stats,
    trust,
)
from toolsel.cli.app import app

#: (command name, function, its line in `toolsel --help`), in the order the help lists them.
#: The line is written out, not cut from the docstring: a cut line ends in "...".
COMMANDS = (
    ("init", init.init, "Start a project: config, registry skeleton, golden tests."),
    ("rank", rank.rank, "Rank the registry's tools for a prompt, and say why."),
    ("deps", deps.deps, "Show what tools require, in load order."),
    ("lint", lint.lint, "Check registry files for provider and selection problems."),
    ("diff", diff.diff, "Class registry changes as breaking, risky or safe."),
    ("lock", lock.lock, "Pin tool definitions by hash; --check catches drift."),
    ("convert", convert.convert, "Convert a whole registry to another shape."),
    ("eval", evaluate.evaluate, "Measure selection quality on labelled cases."),
    ("test", golden.test, "Run golden selection tests (exit 1 on a failure)."),
    ("prompt", prompt.prompt, "Print the tool listing an agent would see."),
    ("replay", replay.replay, "Pair tool calls with their results in transcripts."),
    ("stats", stats.stats, "Usage analytics across transcripts or a store."),
    ("export", export.export, "Write every tool call as a row of Parquet tables."),
    ("learn", learn.learn, "Learn example prompts for tools."),
    ("serve", serve.serve, "Serve selection over HTTP (and MCP)."),
    ("mcp", serve.mcp, "Serve the registry to MCP clients over stdio."),
    ("trust", trust.trust, "Trust a config file to start the MCP servers it names."),
    ("schema", schema.schema, "Print a JSON Schema toolsel publishes."),
)
for _name, _function, _short in COMMANDS:
    app.command(name=_name, short_help=_short)(_function)

__all__ = ["COMMANDS", "app", "main", "requested"]


def main() -> None:
    """Console-script entry point. When the command line names a command, only that one is
    built: Typer builds every registered command's parameters from its signature first,
    47 ms of a command's 0.17 s start-up for all 17. Help, completion and an unknown name
    see them all."""
    import os
    import sys

    name = requested(sys.argv[1:])
    if name is not None and not any(key.endswith("_COMPLETE") for key in os.environ):
        app.registered_commands = [c for c in app.registered_commands if c.name == name]
    import atexit
    import gc

    # as the process ends, the interpreter's last collection would look through every
    # object still alive for cycles that the exit frees anyway (12 ms of a 5,000-session
    # `replay`): they are frozen first (only at the exit, so a caller that goes on is left
    # as it was)
    atexit.register(gc.freeze)
    app()


def requested(args: list[str]) -> str | None:
    """The command `args` name, if they name one after no top-level option but -v (`-h`,
    `--version` and anything unknown: None, all commands are built)."""
    for arg in args:
        if arg not in ("-v", "--verbose"):
            return arg if arg in _NAMES else None
    return None


_NAMES = frozenset(name for name, _, _ in COMMANDS)
