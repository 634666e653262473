"""The event tables' columns: the one definition the Parquet schema, the SQL and
docs/events.md follow. A change that is not additive bumps SCHEMA_VERSION."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from toolsel.errors import UsageError
from toolsel.schemas.events import EVENTS_SCHEMA

if TYPE_CHECKING:
    import pyarrow as pa

#: Written in every Parquet file's key-value metadata under SCHEMA_KEY.
SCHEMA_VERSION = EVENTS_SCHEMA
SCHEMA_KEY = b"toolsel.schema"
EVENTS_INSTALL = "pip install 'toolsel[events]'"
REMOTE_INSTALL = "pip install 'toolsel[remote]'"


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str  # int32 | int64 | string | bool | float64 | list<string>
    nullable: bool
    doc: str


#: `calls/`: one row per tool call (a call id seen again in the same message is one call; a
#: reused id is a new call).
CALL_COLUMNS = (
    Column("file_no", "int32", False, "the file's place in path order (0 first): the order copies are judged in"),
    Column("file", "string", False, "the transcript, as toolsel names it"),
    Column("session", "string", True, "the first session or thread id the file named before the call (Codex, stream-json, Gemini, ...)"),
    Column("turn", "string", True, "the message (turn) id the call came in, when the format has one"),
    Column("seq", "int32", False, "the call's place among the file's calls (0 first)"),
    Column("line", "int32", False, "the line (record) the call started on"),
    Column("call_id", "string", False, "the call id (an id-less call is named noid:LINE:N)"),
    Column("result_id", "string", True, "the id of the result that answered it; null when unanswered"),
    Column("result_line", "int32", True, "the line of that result"),
    Column("tool", "string", False, "the tool called"),
    Column("started_at", "string", True, "the call's timestamp as the transcript wrote it"),
    Column("answered", "bool", False, "a result arrived"),
    Column("is_error", "bool", True, "the result was an error; null when unanswered"),
    Column("latency_s", "float64", True, "seconds from call to result (never negative), when both carry a time"),
    Column("parent_call_id", "string", True, "the sub-agent (Task) call this call ran under"),
    Column("parent_rule", "string", True, "how the parent was found: parent_tool_use_id, sidechain-prompt or single-active-parent"),
    Column("agent_id", "string", True, "Claude Code 2.x: the sub-agent this call's result launched (files.agent_id names its file)"),
    Column("duplicate", "string", True, "the id was seen again: identical, enriched, conflicting or reused"),
    Column("duplicate_results", "int32", False, "further results for the same id"),
    Column("sessions_seen", "int32", False, "how many of files.sessions the file had named when the call started (the copy rule's lineage)"),
    Column("copied", "bool", True, "the call repeats one of an earlier file (a resumed session); null when files were mapped apart (the reduce derives it)"),
    Column("error_text", "string", True, "an error result's first line: at most 200 characters, terminal escapes removed, secrets masked (\"\" when it said nothing); null unless is_error (added to v1: absent from older tables)"),
    Column("result_bytes", "int64", True, "UTF-8 bytes of the result's text (docs/commands.md#context-cost); null when unanswered or the format's reader does not measure it"),
    Column("input_bytes", "int64", True, "bytes of the call's input as JSON text; null when unanswered"),
)  # fmt: skip

#: `files/`: one row per transcript file, calls or not.
FILE_COLUMNS = (
    Column("file_no", "int32", False, "the file's place in path order"),
    Column("file", "string", False, "the transcript, as toolsel names it"),
    Column("format", "string", False, "the format most of its records were read as"),
    Column("lines", "int64", False, "lines (records) read"),
    Column("calls", "int64", False, "tool calls (rows in calls/)"),
    Column("agent_id", "string", True, "set for a Claude Code sub-agent file"),
    Column("sessions", "list<string>", False, "session or thread ids the file names, in the order it names them"),
    Column("unreadable_lines", "int64", False, "lines that could not be read"),
    Column("first_unreadable_line", "int64", True, "the first of them"),
    Column("notes", "list<string>", False, "what the reader could not count, said once"),
    Column("orphan_results", "int64", False, "results whose call is in no transcript (additive: absent from exports before it)"),
    Column("orphan_errors", "int64", False, "how many of them are errors"),
)  # fmt: skip


def require(module: str, install: str = EVENTS_INSTALL) -> ModuleType:
    """Import an optional extra's module, or say (exit 2) how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(
            f"this needs {module}, which is not installed", hint=f"install it with: {install}"
        ) from None


def arrow_schema(columns: tuple[Column, ...]) -> pa.Schema:
    """The Parquet schema of a table, its version in the metadata."""
    pa = require("pyarrow")
    types = {
        "int32": pa.int32(),
        "int64": pa.int64(),
        "string": pa.string(),
        "bool": pa.bool_(),
        "float64": pa.float64(),
        "list<string>": pa.list_(pa.string()),
    }
    fields = [
        pa.field(c.name, types[c.type], nullable=c.nullable, metadata={"doc": c.doc})
        for c in columns
    ]
    return pa.schema(fields, metadata={SCHEMA_KEY: SCHEMA_VERSION.encode()})
