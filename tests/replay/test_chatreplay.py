"""VS Code Copilot Chat replay exports (`*.chatreplay.json`): a `toolCall` log entry is a
call holding its outcome; the `request` entries restate calls to the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.replay.records import replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats import detect
from toolsel.replay.formats.chatreplay import is_export, record


def tool_call(call_id: str = "call_1__vscode-1", **fields: Any) -> dict[str, Any]:
    entry = {"id": call_id, "kind": "toolCall", "tool": "read_file", "args": '{"path": "a.py"}'}
    return {**entry, "time": "2025-12-02T23:23:11.787Z", "response": ["12345"], **fields}


#: What the model was sent: it restates the call it answers, and is not a call.
REQUEST = {
    "id": "f4092c41",
    "kind": "request",
    "type": "ChatMLSuccess",
    "requestMessages": {
        "messages": [
            {
                "role": 2,
                "content": [],
                "toolCalls": [
                    {"id": "call_1", "function": {"name": "read_file", "arguments": "{}"}}
                ],
            },
            {"role": 3, "content": [{"type": 1, "text": "12345"}], "toolCallId": "call_1"},
        ]
    },
    "response": {"type": "success", "message": ["done"]},
}


def export(*logs: dict[str, Any], prompt: str = "read it") -> dict[str, Any]:
    entries = [{"id": "e1", "kind": "element", "name": "YC", "tokens": 1}, *logs]
    prompts = [{"prompt": prompt, "hasSeen": False, "logCount": len(entries), "logs": entries}]
    return {"exportedAt": "2025-12-02T23:24:04.686Z", "totalPrompts": 1, "prompts": prompts}


def test_a_tool_call_entry_is_a_call_and_its_result() -> None:
    decoded = detect(export(tool_call(), REQUEST))
    assert decoded is not None and decoded[0] == "vscode-chatreplay"
    human, call, result = decoded[1]
    assert human == Human("read it")
    assert isinstance(call, Call) and (call.id, call.tool) == ("call_1__vscode-1", "read_file")
    assert call.arguments == {"path": "a.py"}
    assert isinstance(result, Result) and (result.is_error, result.size) == (False, 5)


def test_an_entry_with_an_error_failed() -> None:
    decoded = detect(export(tool_call(error="ENOENT: no such file", response=[])))
    assert decoded is not None
    results = [e for e in decoded[1] if isinstance(e, Result)]
    assert [(r.is_error, r.error) for r in results] == [(True, "ENOENT: no such file")]


@pytest.mark.parametrize(
    "record",
    [
        {"prompts": [{"prompt": "x", "logs": []}]},  # no exportedAt
        {"exportedAt": "2025-12-02", "prompts": [{"prompt": "x"}]},  # prompts without logs
        {"exportedAt": "2025-12-02", "prompts": "x"},
    ],
)
def test_near_misses_are_not_a_replay_export(record: dict[str, Any]) -> None:
    decoded = detect(record)
    assert decoded is None or decoded[0] != "vscode-chatreplay"


def test_an_export_file_is_read_whole(cli: Cli, tmp_path: Path) -> None:
    report = replay(tmp_path, export(tool_call(), REQUEST, tool_call("call_2")), name="x.chatreplay.json")  # type: ignore[arg-type]  # fmt: skip
    assert (report.format, report.calls, report.paired, report.notes) == ("vscode-chatreplay", 2, 2, ())  # fmt: skip
    result = cli("replay", str(tmp_path / "x.chatreplay.json"), "--no-registry", "--format", "json")
    assert result.exit_code == 0 and '"format": "vscode-chatreplay"' in result.stdout


@pytest.mark.parametrize(
    ("text", "code", "unreadable"),
    [
        ('{"exportedAt": "x", "totalPrompts": 1, "prompts": [{"prompt": "a", "logs": [', 1, 1),
        ("", 0, 0),
        ('{"exportedAt": "x", "totalPrompts": 1, "prompts": "not a list"}', 1, 1),
        (
            '{"exportedAt": "x", "totalPrompts": 1, "prompts": [{"prompt": 5, "logs": '
            '[1, null, {"kind": "toolCall", "id": 7, "tool": null, "response": 5}, '
            '{"kind": "toolCall", "id": "' + "a" * 200_000 + '", "tool": "t\\u001b[31m"}]}]}',
            None,
            None,
        ),
        ('{"exportedAt": "x", "prompts": [' + '{"prompt": "a", "logs": []}, ' * 3 + '"x"]}', 0, 0),
    ],
    ids=[
        "truncated",
        "empty",
        "prompts-not-a-list",
        "hostile-fields",
        "a-fourth-prompt-not-a-prompt",
    ],
)
def test_a_broken_export_is_told_never_a_traceback(
    cli: Cli, tmp_path: Path, text: str, code: int | None, unreadable: int | None
) -> None:
    """Truncated, empty, wrongly shaped or hostile exports: replay answers with its report
    (the CLI runner raises on any exception), counts what it could not read, and uses the
    documented exit codes (0 clean, 1 findings); a terminal escape in a tool name is never
    passed on."""
    path = tmp_path / "x.chatreplay.json"
    path.write_text(text, encoding="utf-8")
    result = cli("replay", str(path), "--no-registry", "--format", "json")
    assert result.exit_code in ((0, 1) if code is None else (code,)), result.stdout
    summary = json.loads(result.stdout)["summary"]
    if unreadable is not None:
        assert summary["unreadable_lines"] == unreadable
    human = cli("replay", str(path), "--no-registry")
    assert "\x1b" not in human.stdout


def test_a_prompt_past_the_first_three_may_be_anything() -> None:
    """The signature looks at three prompts; a fourth that is not a prompt, or has no
    logs, is skipped (it was an AttributeError or a KeyError), and its calls are not lost."""
    seen = {"prompt": "a", "hasSeen": False, "logs": []}
    prompts = [seen, seen, seen, "x", {"prompt": "b"}, {"prompt": "c", "logs": [tool_call()]}]
    decoded = record({"exportedAt": "x", "prompts": prompts})
    assert decoded is not None
    assert [type(e).__name__ for e in decoded[1]] == ["Human"] * 5 + ["Call", "Result"]
    assert not is_export({"exportedAt": "x", "prompts": [seen, seen, "x"]})


@pytest.mark.parametrize(
    ("prompt", "asked"),
    [
        ({"prompt": "read it", "hasSeen": False}, ["read it"]),
        ({"prompt": "read it"}, ["read it"]),
        ({"prompt": "read it", "hasSeen": True}, []),  # the same request, continued
        ({"prompt": "", "hasSeen": False}, []),
        ({"prompt": ["read it"], "hasSeen": False}, []),
    ],
)
def test_a_prompt_not_seen_before_is_a_request(prompt: dict[str, Any], asked: list[str]) -> None:
    decoded = record({"exportedAt": "x", "prompts": [{**prompt, "logs": []}]})
    assert decoded == ("vscode-chatreplay", [Human(text) for text in asked])


def test_the_call_and_its_result_carry_the_entry_s_time() -> None:
    decoded = record(export(tool_call(args={"path": "a.py"})))
    assert decoded is not None
    stamp = "2025-12-02T23:23:11.787Z"
    assert decoded[1][1:] == [
        Call("call_1__vscode-1", "read_file", {"path": "a.py"}, timestamp=stamp),
        Result("call_1__vscode-1", False, timestamp=stamp, size=5),
    ]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"time": 1733181791787}, (None, "read_file")),  # a time that is not text: none
        ({"tool": 5}, ("2025-12-02T23:23:11.787Z", "")),
        ({"tool": None}, ("2025-12-02T23:23:11.787Z", "")),
    ],
)
def test_an_odd_time_or_tool(fields: dict[str, Any], expected: tuple[Any, str]) -> None:
    decoded = record(export(tool_call(**fields)))
    assert decoded is not None
    call, result = decoded[1][1:]
    assert isinstance(call, Call) and isinstance(result, Result)
    assert (call.timestamp, call.tool) == expected and result.timestamp == expected[0]


@pytest.mark.parametrize(
    ("error", "failed"),
    [("ENOENT", True), ("", False), (None, False), (["ENOENT"], False), (1, False)],
)
def test_only_a_non_empty_text_error_fails(error: Any, failed: bool) -> None:
    decoded = record(export(tool_call(error=error)))
    assert decoded is not None
    result = decoded[1][-1]
    assert isinstance(result, Result)
    assert (result.is_error, result.error) == (failed, error if failed else None)


@pytest.mark.parametrize(
    ("response", "size"),
    [
        ("héllo", 6),
        (["12", "345", 6, None], 5),
        ([], 0),
        (None, -1),  # none recorded
        ({"value": "x"}, -1),
    ],
)
def test_the_result_s_size_is_its_text(response: Any, size: int) -> None:
    decoded = record(export(tool_call(response=response)))
    assert decoded is not None
    result = decoded[1][-1]
    assert isinstance(result, Result) and result.size == size


@pytest.mark.parametrize("obj", [[export()], "x", {"prompts": []}])
def test_not_an_export(obj: Any) -> None:
    assert record(obj) is None
