"""Cline and Roo Code task histories (`tasks/<id>/api_conversation_history.json`: a JSON list
of Anthropic messages).

Their models call tools in XML-style tags inside the assistant's text
(`<read_file><path>x</path></read_file>`), and the extension answers in the next user message
with text blocks: a header naming the tool (`[read_file for 'x'] Result:`) and what it
returned. Neither carries an id, so a call and its result pair by position (the extension
runs one tool per message, in order). A result that opens "The tool execution failed",
`[ERROR]` or "The user denied this operation" is an error; a tool the extension skipped
("Tool [x] was not executed because ...") is answered by that refusal, an error too. With
native tool calling, the assistant's calls are `tool_use` blocks with ids, and Cline still
answers them with the same id-less text (so they too pair by position), or with
`tool_result` blocks (by id).

Told from other Anthropic messages by that signature: the `ts` the extension stamps on each
message it keeps, a known tool's tag in an assistant text block, or a user text block that
is a tool result header, a `<task>` or the `<environment_details>` the extension appends.
The task's `ui_messages.json` (`say`/`ask` records), `task_metadata.json` and
`context_history.json` (the edits Cline made to the history to fit the context window,
`[[message, [edit, [[block, [[ts, kind, text, meta]]]]]]]`) hold no calls of their own: the
UI messages restate the history's calls without ids or outcomes, and the context edits only
replace texts. In a folder they are known and read as nothing; named on their own, they are
refused, naming the file to give instead (`COMPANION_FILES`).
"""

from __future__ import annotations

import re
from typing import Any

from toolsel.replay.events import NOTHING, UNSET, Call, Decoded, Event, Human, Result
from toolsel.replay.formats.claude import add_blocks
from toolsel.replay.sizes import text_bytes

CLINE = "cline"
#: The tools of Cline (`src/shared/tools.ts`, `ClineDefaultTool`) and Roo Code
#: (`packages/types/src/tool.ts`, `toolNames`): only these tags are calls, as only these
#: are run by the extension's parser.
TOOL_NAMES = frozenset(
    {"execute_command", "read_file", "read_file_range", "write_to_file", "replace_in_file",
     "search_files", "list_files", "list_code_definition_names", "browser_action",
     "use_mcp_tool", "access_mcp_resource", "ask_followup_question", "attempt_completion",
     "plan_mode_respond", "act_mode_respond", "generate_plan_output", "load_mcp_documentation",
     "new_task", "focus_chain", "web_fetch", "web_search", "condense", "summarize_task",
     "report_bug", "new_rule", "apply_patch", "generate_explanation", "use_skill",
     "send_user_message", "apply_diff", "insert_content", "search_and_replace", "switch_mode",
     "fetch_instructions", "codebase_search", "update_todo_list", "run_slash_command",
     "generate_image", "edit_file", "search_replace", "simple_read_file", "list_directory"}
)  # fmt: skip
_TOOL_TAG = re.compile(r"<(" + "|".join(sorted(TOOL_NAMES, key=len, reverse=True)) + r")>")
_PARAMETER = re.compile(r"<([A-Za-z_][\w-]*)>(.*?)</\1>", re.DOTALL)
#: `[read_file for 'x'] Result:`, `[attempt_completion] Result:` (the description may run
#: on: "[read_file for 'x'. Reading multiple files at once ...] Result:").
_RESULT_HEADER = re.compile(r"\[([a-z_][a-z0-9_]*)(?:\]| for | )")
RESULT_MARK = "] Result:"
#: "Tool [read_file] was not executed because a tool has already been used in this message."
_SKIPPED = re.compile(r"Tool \[([a-z_][a-z0-9_]*)\] was not executed because")
FAILURE_PREFIXES = ("The tool execution failed", "[ERROR]", "The user denied this operation")
_ERROR = re.compile(r"<error>\s*(.*?)\s*</error>", re.DOTALL)
ENVIRONMENT = "<environment_details>"
TASK = re.compile(r"<task>\s*(.*?)\s*</task>", re.DOTALL)
#: `ui_messages.json` records: what the extension showed, never a call of its own.
UI_RECORD_TYPES = frozenset({"say", "ask"})


#: The files beside a task's history that hold no calls, and what each holds instead.
COMPANION_FILES = {
    "ui_messages.json": "what the extension showed: the calls restated without ids or outcomes",
    "context_history.json": "the edits Cline made to fit the context window, no calls",
    "task_metadata.json": "the files in context and the models used, no calls",
}
HISTORY_FILE = "api_conversation_history.json"


def companion_refusal(path: str) -> str | None:
    """Why a file named on its own is not a Cline transcript, naming the one to give (None:
    not a task's companion file)."""
    from pathlib import PurePath

    held = COMPANION_FILES.get(PurePath(path).name)
    if held is None:
        return None
    return f"{path}: a Cline task's {PurePath(path).name} holds {held}; replay {HISTORY_FILE} from the same task folder"


def record(obj: Any) -> Decoded | None:
    """`--input-format cline`: a message with a role, a `ui_messages.json` record, or an
    entry of `context_history.json`."""
    if type(obj) is list:
        return (CLINE, NOTHING) if is_context_update(obj) else None
    if type(obj) is not dict:
        return None
    if is_ui_record(obj) or is_task_metadata(obj):
        return CLINE, NOTHING
    if "role" not in obj:
        return None
    return CLINE, message_events(obj)


def is_ui_record(obj: dict[str, Any]) -> bool:
    kind = obj.get("type")
    return type(kind) is str and kind in UI_RECORD_TYPES and type(obj.get("ts")) is int


def is_context_update(obj: list[Any]) -> bool:
    """An entry of a task's `context_history.json`: `[message index, [edit type, [[block
    index, updates], ...]]]`."""
    if len(obj) != 2 or type(obj[0]) is not int or type(obj[1]) is not list:
        return False
    edit = obj[1]
    return len(edit) == 2 and type(edit[0]) is int and type(edit[1]) is list


def is_task_metadata(obj: dict[str, Any]) -> bool:
    """A task's `task_metadata.json`: the files in context and the models used, no calls."""
    return type(obj.get("files_in_context")) is list and "role" not in obj


def is_message(obj: dict[str, Any]) -> bool:
    """Whether a message with a role has Cline's signature (see the module's docstring).
    On the path of every Anthropic message: the first character of a text gates each
    test."""
    content = obj.get("content")
    if type(content) is not list:
        return False
    role = obj.get("role")
    assistant = role == "assistant"
    if not assistant and role != "user":
        return False
    if type(obj.get("ts")) is int:
        return True  # the time Cline and Roo Code stamp on each message they keep
    for block in content:
        if type(block) is not dict or block.get("type") != "text":
            continue
        text = block.get("text")
        if type(text) is not str:
            continue
        if assistant:
            if "<" in text and _TOOL_TAG.search(text):
                return True
        elif text[:1] in _USER_OPENERS and _user_signature(text):
            return True
    return False


#: The first characters of the user texts Cline writes: `[x] Result:`, `<task>`,
#: `<environment_details>`, `Tool [x] was not executed`.
_USER_OPENERS = frozenset("[<T")


def _user_signature(text: str) -> bool:
    return (
        _result_header(text) is not None
        or text.startswith(("<task>", ENVIRONMENT))
        or _SKIPPED.match(text) is not None
    )


def message_events(obj: dict[str, Any]) -> list[Event]:
    """The calls in an assistant message's text, the results in a user message's, and any
    native `tool_use`/`tool_result` blocks."""
    content = obj.get("content")
    if type(content) is not list:
        return []
    events: list[Event] = []
    if obj.get("role") == "assistant":
        for text in _texts(content):
            events.extend(_calls(text))
    else:
        events.extend(_results(content))
    if any(type(b) is dict and b.get("type") in ("tool_use", "tool_result") for b in content):
        add_blocks(events, content, None, UNSET, None, False, None)
    stamp = obj.get("ts")
    turn = str(stamp) if type(stamp) is int else None
    for event in events:
        if isinstance(event, Call):
            event.by_position = True  # answered by a `[tool] Result:` text (or by id)
            event.message_id = turn
    return events


def _texts(content: list[Any]) -> list[str]:
    return [
        b["text"]
        for b in content
        if type(b) is dict and b.get("type") == "text" and type(b.get("text")) is str
    ]


def _calls(text: str) -> list[Call]:
    """Each tool tag in the text, in order, with its parameters (a tag never closed, where a
    response was cut off, runs to the end of the text)."""
    calls: list[Call] = []
    position = 0
    while (opening := _TOOL_TAG.search(text, position)) is not None:
        tool = opening.group(1)
        closing = text.find(f"</{tool}>", opening.end())
        end = len(text) if closing < 0 else closing
        body = text[opening.end() : end]
        parameters = {name: value.strip("\n") for name, value in _PARAMETER.findall(body)}
        calls.append(Call("", tool, parameters))
        position = end if closing < 0 else closing + len(tool) + 3
    return calls


def _result_header(text: str) -> tuple[str, int] | None:
    """The tool a result header names, and where its result text starts; None when the
    text is not one."""
    if not text.startswith("["):
        return None
    named = _RESULT_HEADER.match(text)
    mark = text.find(RESULT_MARK)
    if named is None or mark < 0:
        return None
    return named.group(1), mark + len(RESULT_MARK)


def _results(content: list[Any]) -> list[Event]:
    """A user message's results: each header with the text blocks up to the next header
    (or the environment details the extension appends), and each skipped tool."""
    events: list[Event] = []
    answer: list[str] | None = None
    for text in _texts(content):
        header = _result_header(text)
        if header is not None or _SKIPPED.match(text) or text.startswith(ENVIRONMENT):
            if answer is not None:
                events.append(_result(answer))
            answer = None
        if header is not None:
            answer = [text[header[1] :].lstrip()]
        elif _SKIPPED.match(text):
            events.append(Result("", True, error=text, size=text_bytes(text)))
        elif answer is not None:
            answer.append(text)
        elif text.startswith("<task>"):
            task = TASK.match(text)
            if task is not None and task.group(1):
                events.append(Human(task.group(1)))
    if answer is not None:
        events.append(_result(answer))
    return events


def _result(parts: list[str]) -> Result:
    text = "\n".join(part for part in parts if part)
    if not text.lstrip().startswith(FAILURE_PREFIXES):
        return Result("", False, size=text_bytes(text))
    wrapped = _ERROR.search(text)  # what failed, inside the extension's own wording
    return Result("", True, error=wrapped.group(1) if wrapped else text, size=text_bytes(text))
