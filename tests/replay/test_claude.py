"""Claude Code records without ids: old flat `tool_use`/`tool_result` lines and blocks
without `id`/`tool_use_id`, counted and paired by position."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import ANY

from tests.replay.records import replay
from toolsel.replay.events import UNSET, AgentFile, Call, Human, Result, Session, SidechainStart
from toolsel.replay.formats.claude import claude_code, stream_json

BASE = {"sessionId": "s", "timestamp": "2025-12-16T01:00:00.000Z"}


def test_old_flat_records_are_calls_and_results(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {
                "type": "user",
                "uuid": "u1",
                **BASE,
                "message": {"role": "user", "content": "Open README"},
            },
            {
                "type": "tool_use",
                "uuid": "t1",
                **BASE,
                "name": "bash",
                "input": {"command": "cat README.md"},
            },
            {
                "type": "tool_result",
                "uuid": "r1",
                **BASE,
                "name": "bash",
                "output": "# Title",
                "is_error": True,
            },
        ],
    )
    assert (r.format, r.calls, r.paired, r.error_results) == ("claude-code", 1, 1, 1)
    assert (r.calls_without_id, r.results_without_id) == (1, 1)


def test_blocks_without_ids_pair_by_position(tmp_path: Path) -> None:
    def line(kind: str, block: dict) -> dict:
        return {"type": kind, "uuid": kind[0], "isSidechain": True, "agentId": "a0", **BASE,
                "message": {"role": kind, "content": [block]}}  # fmt: skip

    r = replay(
        tmp_path,
        [
            line("assistant", {"type": "tool_use", "name": "bash", "input": {"command": "ls"}}),
            line("assistant", {"type": "tool_use", "name": "grep", "input": {"pattern": "x"}}),
            line("user", {"type": "tool_result", "content": "a.txt"}),
        ],
    )
    assert (r.calls, r.paired, r.calls_without_id, r.results_without_id) == (2, 1, 2, 1)
    assert [(u.id, u.tool) for u in r.unanswered] == [("noid:2:0", "grep")]


def test_a_task_call_without_id_is_still_a_parent(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {
                "type": "assistant",
                "uuid": "a",
                **BASE,
                "message": {
                    "content": [{"type": "tool_use", "name": "Task", "input": {"prompt": "p"}}]
                },
            }
        ],
    )
    assert [(u.tool, u.interrupted) for u in r.unanswered] == [("Task", True)]


# -- the decoders, line by line ----------------------------------------------------------

AT = "2025-12-16T01:00:00.000Z"


def test_an_assistant_lines_tool_use_blocks_are_calls_of_its_message() -> None:
    line = {
        "type": "assistant",
        "uuid": "a1",
        **BASE,
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}},
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_2",
                    "name": "web_search",
                    "input": None,
                },
                "tool_use",
                {"type": "mcp_tool_use", "id": 3, "name": 4},
                {"type": "tool_use", "id": "toolu_5"},
            ],
        },
    }
    assert claude_code(line) == (
        "claude-code",
        [
            Call("toolu_1", "Read", {"file_path": "/a"}, message_id="msg_1", timestamp=AT),
            Call("srvtoolu_2", "web_search", None, message_id="msg_1", timestamp=AT),
            Call("3", "4", {}, message_id="msg_1", timestamp=AT),
            Call("toolu_5", "", {}, message_id="msg_1", timestamp=AT),
        ],
    )
    (call,) = claude_code({**line, "timestamp": 5, "message": {"id": 6, "content": line["message"]["content"][1:2]}})[1]  # fmt: skip
    assert (call.message_id, call.timestamp, call.parent) == (None, None, UNSET)


def test_a_user_lines_tool_result_blocks_are_results() -> None:
    def results(blocks: list, **extra: object) -> list:
        line = {"type": "user", "uuid": "u1", **BASE, "message": {"role": "user", "content": blocks}, **extra}  # fmt: skip
        decoded = claude_code(line)
        assert decoded is not None and decoded[0] == "claude-code"
        return decoded[1]

    ok = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}
    assert results([ok, {**ok, "tool_use_id": "toolu_2", "is_error": True}]) == [
        Result("toolu_1", False, timestamp=AT, size=1),
        Result("toolu_2", True, error=ANY, timestamp=AT, size=1),
    ]
    assert results([{"type": "web_search_tool_result", "tool_use_id": 7}]) == [Result("7", False, timestamp=AT, size=0)]  # fmt: skip
    # the block says nothing: Claude Code's toolUseResult text does
    assert results([ok], toolUseResult="Error: File does not exist.") == [Result("toolu_1", True, error=ANY, timestamp=AT, size=1)]  # fmt: skip
    assert results([ok], toolUseResult="User rejected tool use") == [Result("toolu_1", True, error=ANY, timestamp=AT, size=1)]  # fmt: skip
    assert results([ok], toolUseResult="Done. Error: none") == [Result("toolu_1", False, timestamp=AT, size=1)]  # fmt: skip
    assert results([{**ok, "is_error": False}], toolUseResult="Error: x") == [Result("toolu_1", False, timestamp=AT, size=1)]  # fmt: skip
    assert results([{**ok, "is_error": "true"}], toolUseResult={"stdout": ""}) == [Result("toolu_1", False, timestamp=AT, size=1)]  # fmt: skip
    # a Task's result names the sub-agent it launched
    assert results([ok], toolUseResult={"agentId": "a0", "status": "completed"}) == [
        Result("toolu_1", False, timestamp=AT, agent_id="a0", size=1)
    ]
    assert results([ok], toolUseResult={"agentId": 5}) == [
        Result("toolu_1", False, timestamp=AT, size=1)
    ]
    assert results([ok], tool_use_result={"agentId": "a1"}) == [
        Result("toolu_1", False, timestamp=AT, agent_id="a1", size=1)
    ]
    assert results([ok], toolUseResult={"agentId": "a0"}, tool_use_result={"agentId": "a1"}) == [
        Result("toolu_1", False, timestamp=AT, agent_id="a0", size=1)
    ]


def test_a_persons_message_is_human_text_and_a_sidechains_first_prompt_starts_it() -> None:
    def user(content: object, **extra: object) -> list:
        line = {"type": "user", "uuid": "u1", **BASE, "parentUuid": None, "message": {"role": "user", "content": content}, **extra}  # fmt: skip
        decoded = claude_code(line)
        assert decoded is not None and decoded[0] == "claude-code"
        return decoded[1]

    assert user("Open README") == [Human("Open README")]
    assert user([{"type": "text", "text": "Open README"}]) == [Human("Open README")]
    assert user("Open README", isMeta=True) == []
    assert user("<command-name>/clear</command-name>") == []
    assert user("Explore the repo", isSidechain=True) == [SidechainStart("Explore the repo")]
    assert user("Explore the repo", isSidechain=True, parentUuid="u0") == []
    assert user([{"type": "text", "text": "Explore"}], isSidechain=True) == []
    assert user("Explore", isSidechain=True, agentId="a0") == [AgentFile("a0"), SidechainStart("Explore")]  # fmt: skip
    assistant = {"type": "assistant", "uuid": "a1", "isSidechain": True, "parentUuid": None, "message": {"content": "Sure"}}  # fmt: skip
    assert claude_code(assistant) == ("claude-code", [])


def test_a_line_of_a_sub_agent_file_names_its_agent() -> None:
    assert claude_code({"type": "assistant", "uuid": "a1", "agentId": "a0", "message": "x"}) == (
        "claude-code",
        [AgentFile("a0")],
    )
    assert claude_code({"type": "progress", "uuid": "p1", "agentId": "a0", "data": {}}) == (
        "claude-code",
        [AgentFile("a0")],
    )
    for agent in ("", 5, None):
        line = {"type": "system", "uuid": "s1", "agentId": agent, "content": "x"}
        assert claude_code(line) == ("claude-code", ())
        assert claude_code({"type": "user", "uuid": "u1", "agentId": agent}) == ("claude-code", [])


def test_old_flat_records_with_ids_and_timestamps() -> None:
    call = {"type": "tool_use", "uuid": "t1", **BASE, "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}  # fmt: skip
    assert claude_code(call) == ("claude-code", [Call("toolu_1", "bash", {"command": "ls"}, timestamp=AT)])  # fmt: skip
    assert claude_code({"type": "tool_use", "id": 12, "name": 7, "timestamp": 1}) == ("claude-code", [Call("12", "7", {})])  # fmt: skip
    for odd in (True, None, {"id": "x"}, ["x"]):
        assert claude_code({"type": "tool_use", "id": odd}) == ("claude-code", [Call("", "", {})])
    result = {"type": "tool_result", "uuid": "r1", **BASE, "tool_use_id": "toolu_1", "output": "x"}
    assert claude_code(result) == ("claude-code", [Result("toolu_1", False, timestamp=AT, size=1)])
    assert claude_code({**result, "is_error": True}) == ("claude-code", [Result("toolu_1", True, timestamp=AT, size=1, error="x")])  # fmt: skip
    assert claude_code({**result, "is_error": "yes", "tool_use_id": 2.5}) == ("claude-code", [Result("2.5", False, timestamp=AT, size=1)])  # fmt: skip


def test_lines_that_are_not_claude_code_lines() -> None:
    assert claude_code({"type": "response_item", "payload": {}}) is None
    assert claude_code({"type": ["user"], "uuid": "u"}) is None
    assert claude_code("user") is None


def test_stream_json_messages_name_their_parent_call() -> None:
    def stream(kind: str, content: object, parent: object = None, **extra: object) -> tuple | None:
        return stream_json({"type": kind, "message": {"id": "msg_1", "content": content}, "parent_tool_use_id": parent, "session_id": "s", **extra})  # fmt: skip

    use = {"type": "tool_use", "id": "toolu_2", "name": "Grep", "input": {"pattern": "x"}}
    assert stream("assistant", [use], "toolu_T", timestamp=AT, isSidechain=True) == (
        "stream-json",
        [
            Call(
                "toolu_2",
                "Grep",
                {"pattern": "x"},
                message_id="msg_1",
                parent="toolu_T",
                timestamp=AT,
                sidechain=True,
            )
        ],
    )
    assert stream("assistant", [use], 7, timestamp=1) == (
        "stream-json",
        [Call("toolu_2", "Grep", {"pattern": "x"}, message_id="msg_1", parent=None)],
    )
    answer = {"type": "tool_result", "tool_use_id": "toolu_2", "content": "x"}
    assert stream("user", [answer], "toolu_T", tool_use_result="Error: no match") == (
        "stream-json",
        [Result("toolu_2", True, error=ANY, parent="toolu_T", size=1)],
    )
    assert stream(
        "user", [answer], None, toolUseResult={"agentId": "a1"}, tool_use_result="Error"
    ) == (
        "stream-json",
        [Result("toolu_2", False, parent=None, agent_id="a1", size=1)],
    )


def test_stream_json_prompts_are_human_text_at_the_top_level_only() -> None:
    def stream(kind: str, content: object, parent: object = None) -> tuple | None:
        return stream_json({"type": kind, "message": {"content": content}, "parent_tool_use_id": parent})  # fmt: skip

    assert stream("user", "fix the bug") == ("stream-json", [Human("fix the bug")])
    assert stream("user", "fix the bug", "toolu_T") == ("stream-json", ())
    assert stream("assistant", "fix the bug") == ("stream-json", ())
    assert stream("user", " ") == ("stream-json", ())
    text = [{"type": "text", "text": "fix it"}]
    assert stream("user", text) == ("stream-json", [Human("fix it")])
    assert stream("user", text, "toolu_T") == ("stream-json", [])
    assert stream("assistant", text) == ("stream-json", [])


def test_stream_json_lines_without_content_blocks() -> None:
    init = {"type": "system", "subtype": "init", "session_id": "s1", "tools": []}
    assert stream_json(init) == ("stream-json", [Session("s1")])
    assert stream_json({**init, "session_id": 1}) == ("stream-json", ())
    assert stream_json({"type": "result", "session_id": "s1", "message": None}) == ("stream-json", ())  # fmt: skip
    assert stream_json({"type": "assistant", "message": {"content": None}}) == ("stream-json", ())
    assert stream_json({"parent_tool_use_id": None, "message": {"content": []}}) == ("stream-json", [])  # fmt: skip
    assert stream_json({"type": 1, "message": {"content": []}}) is None
    assert stream_json(["system"]) is None
