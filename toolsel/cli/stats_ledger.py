"""`toolsel stats PATH... --ledger -r REGISTRY`: the cost and usage ledger and its plan."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from toolsel.cli.common import check_output, output
from toolsel.errors import ExitCode, UsageError
from toolsel.registry.model import Registry
from toolsel.render.formats import StatsFormat
from toolsel.replay.stats import UsageStats

if TYPE_CHECKING:
    from toolsel.learn.mine import Mined


def ledger_of(
    usage: UsageStats,
    mined: Mined,
    paths: list[str],
    registry: Registry | None,
    *,
    target: float,
    top_k: int,
    budget: int | None,
    output_format: StatsFormat,
    output_file: Path | None,
) -> None:
    """Build the ledger from `usage` and the requests `mined` in the same read of the
    transcripts, render it, and exit 1 when the plan fails the gate (`--budget`, `--reach`)."""
    from toolsel.ledger import build_ledger
    from toolsel.render.ledger import LEDGER_RENDERERS

    if registry is None:
        raise UsageError("--ledger compares calls with definitions: give -r REGISTRY")
    check_output(output_file, paths)
    requests: dict[str, dict[str, int]] = {}
    for example in mined.examples:
        prompts = requests.setdefault(example.tool, {})
        prompts[example.text] = prompts.get(example.text, 0) + example.count
    ledger = build_ledger(usage, registry, requests, target=target, top_k=top_k, budget=budget)
    with output(output_file, inputs=paths) as out:
        LEDGER_RENDERERS[output_format](ledger, out)
    if ledger.failed:
        raise typer.Exit(int(ExitCode.FINDINGS))
