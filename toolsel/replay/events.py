"""What a decoder turns one transcript line into, and what the matcher consumes.

A line yields a short sequence of events: a tool call, a tool result, or a sub-agent link
(a sidechain's first prompt, or the agent a sub-agent file belongs to). A line that a
format knows but that carries none of these (a summary, a token count) yields nothing
(`NOTHING`); a record of a type the format's decoder does not know yields `UNKNOWN`, and the
driver then checks it for tool content it would otherwise lose.

Events are msgspec structs, whose constructor is written in C: a transcript makes one per
call and one per result, and a dataclass's costs three times as much to build.

A call or result whose record carries no id has the id "" (the matcher names it and pairs it
by position). A format that logs one action twice marks the echo `implicit`.
"""

from __future__ import annotations

from typing import Any, Final

import orjson
from msgspec import Struct


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"

    def __reduce__(self) -> str:
        return "UNSET"  # unpickled as the one module-level UNSET, which is compared by identity


#: The format does not say who the parent is (as opposed to `None`: it says there is none).
UNSET: Final[Any] = _Unset()


class Call(Struct, gc=False):
    id: str
    tool: str
    input: Any
    message_id: str | None = None
    parent: str | None = UNSET  # explicit parent call id when the format says
    timestamp: str | None = None
    sidechain: bool = False
    encoded: bool = False  # `input` is a JSON-encoded string (OpenAI arguments), decoded on use
    #: an echo of an action the format may log elsewhere too (`codex exec` items reported
    #: only as `item.completed`, a Copilot `tool.execution_start` beside its
    #: `toolRequests`, a Codex `*_end` event beside its response item): a call when its id
    #: is new, merged into the call when the id is open, nothing once it was answered
    implicit: bool = False
    #: the input is text under the tool's grammar, not JSON (a Responses `custom_tool_call`,
    #: such as Codex's freeform `apply_patch`): never decoded, never checked against a schema
    freeform: bool = False
    #: a call with an id that its format may answer without one, by position (Cline's
    #: native `tool_use` answered by a `[tool] Result:` text): an id-less result takes it
    #: as it takes a call without an id; a result with its id still answers it by id
    by_position: bool = False

    @property
    def arguments(self) -> Any:
        """The call's input, with JSON-encoded arguments decoded (text that is not JSON stays)."""
        if not self.encoded:
            return self.input
        try:
            return orjson.loads(self.input)
        except orjson.JSONDecodeError:
            return self.input

    def arguments_problem(self) -> str | None:
        """Why JSON-encoded arguments cannot be read ("not JSON", "nested too deep"), or None."""
        if not self.encoded:
            return None
        try:
            orjson.loads(self.input)
        except orjson.JSONDecodeError as error:
            reason = str(error).split(":")[0]
            if "recursion" in reason.lower() or "depth" in reason.lower():
                return "nested too deep to read (over 1,024 levels)"
            return f"not JSON ({reason})"
        return None


class Result(Struct, gc=False):
    id: str
    is_error: bool
    parent: str | None = UNSET
    timestamp: str | None = None
    agent_id: str | None = None  # Claude Code: the sub-agent a Task result launched
    #: an outcome restated beside an implicit call (a Codex `*_end` event, a Gemini
    #: snapshot rewritten with its result): counted only when it answers an open call that
    #: was itself implicit, so an action logged twice is answered once
    implicit: bool = False
    #: what the result said, as the format holds it (text, blocks, an object, raw JSON):
    #: read (`replay.failures.error_message`) only when the result is an error
    error: Any = None
    #: UTF-8 bytes of the result's text (see `replay.sizes`); -1: the format's reader does
    #: not measure it
    size: int = -1


class SidechainStart(Struct, gc=False):
    """A Claude Code 1.0.x sidechain root: its prompt text names the Task that started it."""

    prompt: str


class Human(Struct, gc=False):
    """A person's message (not a tool result, not system text): the request the next
    calls answer. Read only by `toolsel learn`, which mines example prompts."""

    text: str


def human_text(content: Any) -> str | None:
    """The text of a user message's content, when a person wrote it: a string, or text
    blocks with no tool results among them; None for tool results, and for the text
    Claude Code and Codex insert themselves (command output, environment context)."""
    if type(content) is str:
        text = content
    elif type(content) is list:
        parts = []
        for block in content:
            if type(block) is not dict:
                continue
            kind = block.get("type")
            if type(kind) is str and kind.endswith("tool_result"):
                return None
            if kind in ("text", "input_text") and type(block.get("text")) is str:
                parts.append(block["text"])
        text = "\n".join(parts)
    else:
        return None
    stripped = text.strip()
    if not stripped or stripped.startswith(INSERTED):
        return None
    marker = stripped.find(CODEX_REQUEST)
    if marker != -1:  # Codex's IDE context: the request follows its marker
        stripped = stripped[marker + len(CODEX_REQUEST) :].strip()
    return stripped or None


#: Openings of text a client inserts in the user's turn: Claude Code's command tags and
#: caveats, Codex's environment and instructions blocks.
INSERTED = (
    "<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>",
    "Caveat:", "<environment_context>", "<user_instructions>", "<system-reminder>",
    "[Request interrupted",
)  # fmt: skip
CODEX_REQUEST = "## My request for Codex:"


class Session(Struct, gc=False):
    """The session or thread a file belongs to (a Codex rollout's `session_meta.id`, a
    `codex exec` thread, a stream-json session): files that share one are one lineage."""

    id: str


class AgentFile(Struct, gc=False):
    """The line belongs to a Claude Code sub-agent file (2.x writes one file per agent)."""

    agent_id: str


Event = Call | Result | SidechainStart | AgentFile | Session | Human

#: (format name, events) for a line of a known shape; None for valid JSON of no known shape.
Decoded = tuple[str, "tuple[Event, ...] | list[Event]"]
NOTHING: tuple[Event, ...] = ()


class _UnknownRecord(tuple):  # type: ignore[type-arg]
    """No events, and a record type the decoder does not know (an empty tuple subclass: the
    shared empty tuple `NOTHING` could not be told apart by identity). It equals only
    itself, so that `decoded == (fmt, ())` tells a known record with nothing to count from
    an unknown one, and it stays the one instance when pickled."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return other is self

    def __ne__(self, other: object) -> bool:
        return other is not self

    __hash__ = tuple.__hash__

    def __reduce__(self) -> str:
        return "UNKNOWN"


#: A record of the format whose type its decoder does not know (compared by identity).
UNKNOWN: tuple[Event, ...] = _UnknownRecord()
