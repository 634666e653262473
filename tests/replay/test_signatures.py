"""Issue 34: detection never guesses silently. Each format read by its content signature,
and for each a near miss (a record of another format that looks like it) that is not taken
for it; a file no format fits says "format not recognised", in every output, and exits 1;
a file whose records yield only one side of the calls says so."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import ROOT, Cli
from toolsel.replay.formats import detect

CORPUS = ROOT / "tests/corpus/transcripts"

QWEN = {"uuid": "u", "sessionId": "s", "type": "assistant",
        "message": {"role": "model", "parts": [{"functionCall": {"id": "c", "name": "ls", "args": {}}}]}}  # fmt: skip
CLAUDE = {"uuid": "u", "sessionId": "s", "type": "assistant",
          "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "ls", "input": {}}]}}  # fmt: skip
KIMI_RESULT = {"role": "tool", "tool_call_id": "Bash:0",
               "content": [{"type": "text", "text": "<system>ERROR: exit 1</system>"}]}  # fmt: skip
CHAT_RESULT = {"role": "tool", "tool_call_id": "Bash:0", "content": [{"type": "text", "text": "ERROR: exit 1"}]}  # fmt: skip
GOOSE = {"role": "assistant", "created": 1,
         "content": [{"type": "toolRequest", "id": "t", "toolCall": {"status": "success", "value": {"name": "x", "arguments": {}}}}]}  # fmt: skip
ANTHROPIC = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}  # fmt: skip
OPENCODE_ROW = {"type": "message.part.updated.1",
                "data": {"sessionID": "s", "part": {"type": "tool", "tool": "read", "callID": "c", "state": {"status": "completed"}}}}  # fmt: skip
COPILOT = {"type": "tool.execution_complete", "data": {"toolCallId": "c", "success": False}}
CONTINUE = {"sessionId": "s", "history": [{"message": {"role": "assistant", "content": "",
            "toolCalls": [{"id": "t", "function": {"name": "f", "arguments": "{}"}}]}}]}  # fmt: skip
NOT_CONTINUE = {"history": [{"message": {"role": "assistant", "content": "hi"}}]}  # no sessionId


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (QWEN, "qwen-code"),
        (CLAUDE, "claude-code"),  # Claude Code's own envelope: content, not parts
        ({**QWEN, "type": "system", "message": None, "systemPayload": {}}, "qwen-code"),
        ({**CLAUDE, "type": "system", "message": None}, "claude-code"),
        (KIMI_RESULT, "kimi-context"),
        (CHAT_RESULT, "openai-chat"),  # no <system> status: a chat message
        ({"role": "_checkpoint", "id": 3}, "kimi-context"),
        (GOOSE, "goose"),
        (ANTHROPIC, "anthropic"),  # Anthropic blocks, no `created`
        ({**GOOSE, "content_json": "[]", "content": None}, "goose"),
        (OPENCODE_ROW, "opencode"),
        (COPILOT, "copilot-cli"),  # a dotted type with `data`, but no opencode sessionID
        (CONTINUE, "continue"),
    ],
)
def test_each_signature_and_its_near_miss(record: dict[str, Any], expected: str) -> None:
    decoded = detect(record)
    assert decoded is not None and decoded[0] == expected


def test_a_history_without_a_session_is_not_continue() -> None:
    decoded = detect(NOT_CONTINUE)
    assert decoded is None or decoded[0] != "continue"


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("qwen-code/splitrail/qwen_code.jsonl", "qwen-code"),
        ("kimi/kimi-cli/531d195b-6436-426e-b010-4bf723a992de.jsonl", "kimi-context"),
        ("goose/agentscribe/sample_session.jsonl", "goose"),
        ("goose/memrelay/goose_session.jsonl", "goose"),
        ("opencode/memrelay/opencode_session.jsonl", "opencode"),
        ("opencode/ocman/opencode_export.json", "opencode"),
        ("opencode/agent-runner-opencode/opencode_export.json", "opencode"),
        ("opencode/agent-runner-opencode/opencode_launch_events.jsonl", "opencode"),
        ("continue/memrelay/continue_session.jsonl", "continue"),
    ],
)
def test_each_corpus_file_is_read_as_its_format_without_a_note(name: str, fmt: str) -> None:
    from toolsel.replay.file import replay_file

    report = replay_file(str(CORPUS / name))
    assert report.format == fmt and report.notes == () and report.unread_tools == ()


def test_a_banner_before_a_json_document_is_one_unreadable_line() -> None:
    from toolsel.replay.file import replay_file

    report = replay_file(str(CORPUS / "opencode/agent-runner-opencode/opencode_export.json"))
    assert [u.line for u in report.unreadable] == [1] and report.lines == 162


def _outputs(cli: Cli, path: str) -> tuple[int, str, list[str], list[str]]:
    """The exit code, the human report, the JSON notes and the JSONL note events of `path`."""
    human = cli("replay", path, "--no-registry")
    data = json.loads(cli("replay", path, "--no-registry", "-f", "json").stdout)
    lines = cli("replay", path, "--no-registry", "-f", "jsonl").stdout.splitlines()
    events = [json.loads(line) for line in lines]
    notes = [e["note"] for e in events if e["event"] == "note"]
    return human.exit_code, human.stdout, data["files"][0]["notes"], notes


def test_no_format_fits_says_so_everywhere_and_exits_1(cli: Cli, write) -> None:
    path = write("events.jsonl", '{"type": "step_start", "part": {}}\n{"type": "beat"}\n')
    code, human, notes, events = _outputs(cli, str(path))
    assert code == 1 and notes == events and len(notes) == 1
    assert notes[0].startswith("format not recognised: 2 records of types no decoder knows")
    assert " ".join(notes[0].split()) in " ".join(human.split())  # folded to the screen
    assert cli("replay", str(path), "--no-registry", "--fail-on", "orphans").exit_code == 0
    stats = json.loads(cli("stats", str(path), "-f", "json").stdout)
    assert stats["notes"] == notes


def test_an_aider_history_is_named_not_guessed(cli: Cli) -> None:
    code, _, notes, events = _outputs(cli, str(CORPUS / "aider/agentscribe/.aider.chat.history.md"))
    assert code == 1 and notes == events
    assert notes == [
        "format not recognised: an Aider chat history (Markdown), not a tool-call transcript: "
        "Aider edits files through text, so there are no calls to pair"
    ]


def test_an_empty_file_is_not_unrecognised(cli: Cli, write) -> None:
    path = write("empty.jsonl", "\n")
    code, _, notes, _ = _outputs(cli, str(path))
    assert code == 0 and notes == []


def _call(call_id: str) -> str:
    call = {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}
    return json.dumps({"role": "assistant", "tool_calls": [call]}) + "\n"


def _result(call_id: str) -> str:
    return json.dumps({"role": "tool", "tool_call_id": call_id, "content": "ok"}) + "\n"


@pytest.mark.parametrize(
    ("lines", "found"),
    [
        ([_call("a"), _call("b")], "2 calls and no result"),
        ([_result("a"), _result("b")], "2 results and no call"),
        ([_call(c) for c in "abcde"] + [_result("a")], "4 of 5 calls without a result"),
        ([_call("a")] + [_result(c) for c in "abcd"], "3 of 4 results without a call"),
    ],
)
def test_a_file_that_yields_one_side_gets_a_note(
    cli: Cli, write, lines: list[str], found: str
) -> None:
    _, human, notes, events = _outputs(cli, str(write("t.jsonl", "".join(lines))))
    assert notes == events and len(notes) == 1
    assert notes[0].startswith(f"read as openai-chat, this file yields {found}:")
    assert " ".join(notes[0].split()) in " ".join(human.split())  # folded to the screen


@pytest.mark.parametrize(
    "lines",
    [
        [_call("a")],  # one call, interrupted: an ordinary end
        [_call("a"), _result("a"), _call("b")],
        [_call(c) for c in "abcd"] + [_result(c) for c in "ab"],  # half, not most
    ],
)
def test_a_balanced_file_gets_no_note(cli: Cli, write, lines: list[str]) -> None:
    _, _, notes, events = _outputs(cli, str(write("t.jsonl", "".join(lines))))
    assert notes == events == []
