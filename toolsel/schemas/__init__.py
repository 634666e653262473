"""The JSON Schemas toolsel publishes: the registry format (`registry.schema.json`) and each
machine output (`<name>.schema.json`, whose documents say `"schema": "toolsel.<name>/v1"`).
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
    EVAL = "eval"
    TEST = "test"
    PROMPT = "prompt"
    DEPS = "deps"
    LINT = "lint"


def schema_text(name: str) -> str:
    """The JSON Schema `name` (`registry`, or an `Output`), as published."""
    return files("toolsel.schemas").joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
