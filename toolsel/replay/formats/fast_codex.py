"""The fast path's Codex rollout lines (`codex.rollout` on the structs of `fast_shapes`),
for the common lines; the others take the full path."""

from __future__ import annotations

from typing import Any

import msgspec
import orjson
from msgspec import Raw, Struct, UnsetType

from toolsel.replay.events import NOTHING, Human, Result, Session
from toolsel.replay.formats import codex
from toolsel.replay.formats.fast_claude import struct_human_text
from toolsel.replay.formats.fast_shapes import ABSENT, DECODE_ERRORS, FALLBACK, Line, Payload
from toolsel.replay.formats.shared import arguments_call
from toolsel.replay.sizes import text_bytes


def rollout(line: Line, payload: Payload) -> Any:
    """`codex.rollout` on the struct, for the common lines (FALLBACK for the others)."""
    line_type = line.type
    kind = payload.type
    if line_type == "response_item":
        if type(kind) is not str:
            return FALLBACK
        timestamp = line.timestamp if type(line.timestamp) is str else None
        if kind == "function_call" or kind == "custom_tool_call":
            call_id = payload.call_id
            if type(call_id) is not str:
                return FALLBACK
            raw: Any = payload.arguments
            if raw is ABSENT:
                raw = payload.input
                if raw is ABSENT and payload.action is not ABSENT:
                    return FALLBACK  # an action as the arguments
            name = payload.name
            tool = name if type(name) is str and name else kind
            return codex.ROLLOUT, [
                arguments_call(call_id, tool, None if raw is ABSENT else raw, timestamp, kind=kind)
            ]
        if kind == "function_call_output" or kind == "custom_tool_call_output":
            call_id, output = payload.call_id, payload.output
            if (
                type(call_id) is not str
                or type(output) is not str
                or payload.status is not ABSENT
                or payload.success is not ABSENT
            ):
                return FALLBACK
            failed = output_failed(output)
            error = output if failed else None
            size = text_bytes(output)
            return codex.ROLLOUT, [
                Result(call_id, failed, timestamp=timestamp, error=error, size=size)
            ]
        if kind == "message" and payload.role == "user":
            text = struct_human_text(payload.content)
            return codex.ROLLOUT, [Human(text)] if text is not None else []
        if kind in codex.RESPONSES_OTHER:
            return codex.ROLLOUT, NOTHING
        return FALLBACK
    if line_type == "event_msg":
        if type(kind) is str and kind in codex.END_EVENTS:
            return FALLBACK
        return codex.ROLLOUT, NOTHING
    if line_type == "session_meta" and type(payload.id) is str:
        return codex.ROLLOUT, [Session(payload.id)]
    if type(line_type) is str and line_type in codex.ROLLOUT_LINES:
        return codex.ROLLOUT, NOTHING
    return FALLBACK


class _Metadata(Struct, gc=False):
    metadata: Raw | UnsetType = ABSENT


_decode_output = msgspec.json.Decoder(_Metadata).decode


def output_failed(output: str) -> bool:
    """`codex.output_failed`, reading only `metadata` of a JSON output (its text is skipped)."""
    if output.startswith("{"):
        try:
            metadata = _decode_output(output).metadata
        except DECODE_ERRORS:
            return codex.output_failed(output)
        if metadata is ABSENT:
            return False
        try:
            parsed = orjson.loads(memoryview(metadata))
        except orjson.JSONDecodeError:
            return codex.output_failed(output)
        code = parsed.get("exit_code") if type(parsed) is dict else None
        return type(code) is int and code != 0
    return codex.output_failed(output)
