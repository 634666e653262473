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
    evaluate,
    golden,
    init,
    learn,
    lint,
    prompt,
    rank,
    replay,
    schema,
    serve,
    stats,
)
from toolsel.cli.app import app

#: (command name, function), in the order `toolsel --help` lists them.
COMMANDS = (
    ("init", init.init),
    ("rank", rank.rank),
    ("deps", deps.deps),
    ("lint", lint.lint),
    ("convert", convert.convert),
    ("eval", evaluate.evaluate),
    ("test", golden.test),
    ("prompt", prompt.prompt),
    ("replay", replay.replay),
    ("stats", stats.stats),
    ("learn", learn.learn),
    ("serve", serve.serve),
    ("mcp", serve.mcp),
    ("schema", schema.schema),
)
for _name, _function in COMMANDS:
    app.command(name=_name)(_function)

__all__ = ["COMMANDS", "app", "main"]


def main() -> None:
    """Console-script entry point."""
    app()
