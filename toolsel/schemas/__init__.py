"""The JSON Schemas toolsel publishes: the registry format (`registry.schema.json`) and each
machine output (`<name>.schema.json`, whose documents say `"schema": "toolsel.<name>/vN"`).
`toolsel schema` prints them."""

from __future__ import annotations

from enum import StrEnum
from importlib.resources import files


class Output(StrEnum):
    """Every versioned machine output, by the name in its `schema` field."""

    RANK = "rank"
    RANK_LINE = "rank-line"
    RANK_BATCH = "rank-batch"
    SELECT = "select"
    REPLAY = "replay"
    REPLAY_EVENT = "replay-event"
    STATS = "stats"
    LEDGER = "ledger"  # stats --ledger
    MISROUTES = "misroutes"  # stats --misroutes
    EVAL = "eval"
    TEST = "test"
    PROMPT = "prompt"
    DEPS = "deps"
    LINT = "lint"
    DIFF = "diff"
    LOCK = "lock"  # the toolsel.lock file `toolsel lock` writes
    VALIDATE = "validate"  # toolsel serve: POST /v1/validate
    USAGE = "usage"  # toolsel serve: POST /v1/usage
    TOOLS = "tools"  # toolsel serve: GET /v1/tools


#: Outputs only `toolsel serve` returns (checked by tests/serve, not by a CLI format)
SERVE_OUTPUTS = frozenset({Output.VALIDATE, Output.USAGE, Output.TOOLS})

#: Outputs past their first version (a field changed meaning or type); the rest are v1.
VERSIONS = {
    Output.STATS: 2,
    Output.RANK: 3,  # v3: `why` is an object (how, and the matched terms)
    Output.RANK_LINE: 2,
    Output.RANK_BATCH: 3,
    Output.LOCK: 2,  # v2: every field a model, client or the ranking reads, in groups
}


def schema_name(output: Output) -> str:
    """What the `schema` field of `output`'s documents says, e.g. "toolsel.stats/v2"."""
    return f"toolsel.{output.value}/v{VERSIONS.get(output, 1)}"


def schema_text(name: str) -> str:
    """The JSON Schema `name` (`registry`, or an `Output`), as published."""
    return files("toolsel.schemas").joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
