"""Chat message lists: OpenAI Chat Completions (`tool_calls`, `role: tool`, the older
`function_call` / `role: function`) and the Anthropic Messages API (`tool_use` /
`tool_result` blocks), told apart per message by their tool-calling keys."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import ANY

from tests.replay.records import replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.formats.chat import anthropic, arguments_call, message, openai_chat


def test_an_assistant_messages_tool_calls_are_calls_with_encoded_arguments() -> None:
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "run_tests", "arguments": "{}"},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "deploy", "arguments": {"env": "staging"}},
            },
            {"id": 3, "type": "function", "function": {"name": 4}},
            {"type": "function", "function": "deploy"},
            "call_5",
        ],
    }
    assert message(assistant) == (
        "openai-chat",
        [
            Call("call_1", "run_tests", "{}", encoded=True),
            Call("call_2", "deploy", {"env": "staging"}),
            Call("", "4", {}),
            Call("", "", {}),
        ],
    )
    assert message({"role": "assistant", "content": "", "tool_calls": []}) == ("openai-chat", [])


def test_a_tool_message_answers_its_call_id_or_ids() -> None:
    assert message({"role": "tool", "tool_call_id": "call_1", "content": "ok"}) == (
        "openai-chat",
        [Result("call_1", False, size=2)],
    )
    assert message(
        {"role": "tool", "content": "opened", "tool_call_ids": ["call_x", "call_y", 3]}
    ) == (
        "openai-chat",
        [Result("call_x", False), Result("call_y", False), Result("", False)],
    )
    assert message({"role": "tool", "content": "opened", "tool_call_ids": ["call_x"]}) == (
        "openai-chat",
        [Result("call_x", False, size=6)],  # SWE-agent's list of one: the text is its
    )
    assert message({"role": "tool", "tool_call_ids": "call_x", "tool_call_id": "call_z"}) == (
        "openai-chat",
        [Result("call_z", False, size=0)],
    )
    assert message({"role": "tool", "content": "ok"}) == (
        "openai-chat",
        [Result("", False, size=2)],
    )


def test_the_older_function_calling_has_no_ids() -> None:
    legacy = {"role": "assistant", "content": None, "function_call": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}  # fmt: skip
    assert message(legacy) == ("openai-chat", [Call("", "get_weather", '{"city": "Oslo"}', encoded=True)])  # fmt: skip
    assert message({"role": "assistant", "function_call": {}}) == ("openai-chat", [Call("", "", {})])  # fmt: skip
    assert message({"role": "function", "name": "get_weather", "content": "sunny"}) == (
        "openai-chat",
        [Result("", False, size=5)],
    )
    assert message({"role": "assistant", "content": "x", "function_call": "get_weather"}) == ("openai-chat", ())  # fmt: skip


def test_anthropic_content_blocks_are_calls_and_results_of_their_message() -> None:
    assistant = {
        "role": "assistant",
        "id": "msg_1",
        "content": [
            {"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "toolu_a", "name": "db_query", "input": {"sql": "select 1"}},
        ],
    }
    assert message(assistant) == (
        "anthropic",
        [Call("toolu_a", "db_query", {"sql": "select 1"}, message_id="msg_1")],
    )
    server = {"role": "assistant", "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}]}  # fmt: skip
    assert message(server) == ("anthropic", [Call("srvtoolu_1", "web_search", {})])
    user = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "1"},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "?", "is_error": True},
        ],
    }
    assert message(user) == (
        "anthropic",
        [Result("toolu_a", False, size=1), Result("toolu_b", True, error=ANY, size=1)],
    )


def test_messages_without_tool_content_and_a_persons_text() -> None:
    assert message({"role": "user", "content": "deploy"}) == ("openai-chat", [Human("deploy")])
    assert message({"role": "user", "content": [{"type": "text", "text": "hi"}]}) == (
        "anthropic",
        [Human("hi")],
    )
    assert message({"role": "user", "content": "  "}) == ("openai-chat", ())
    assert message({"role": "user", "content": [{"type": "image"}]}) == ("anthropic", ())
    assert message({"role": "system", "content": "You are an agent."}) == ("openai-chat", ())
    assert message({"role": "assistant", "content": None}) == ("openai-chat", ())
    assert message({"role": "assistant", "content": [{"type": "text", "text": "ok"}, "x", {"type": 1}]}) == ("anthropic", ())  # fmt: skip
    assert message({"role": "user", "content": {"text": "hi"}}) == ("anthropic", ())


def test_a_forced_format_names_every_message_with_a_role() -> None:
    chat = {"role": "tool", "tool_call_id": "call_1", "content": "ok"}
    blocks = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a"}]}
    assert anthropic(chat) == ("anthropic", [Result("call_1", False, size=2)])
    assert openai_chat(blocks) == ("openai-chat", [Result("toolu_a", False, size=0)])
    assert openai_chat({"role": "user", "content": "hi"}) == ("openai-chat", [Human("hi")])
    assert anthropic({"content": "hi"}) is None and openai_chat({"content": "hi"}) is None
    assert anthropic(["role"]) is None and openai_chat("role") is None


def test_arguments_kept_encoded_or_as_given() -> None:
    at = "2026-01-01T00:00:00Z"
    assert arguments_call("c", "f", '{"a": 1}', at) == Call("c", "f", '{"a": 1}', timestamp=at, encoded=True)  # fmt: skip
    assert arguments_call("c", "f", '{"a": 1}', at).arguments == {"a": 1}
    assert arguments_call("c", "f", [1], at) == Call("c", "f", [1], timestamp=at)
    assert arguments_call("c", "f", None) == Call("c", "f", {})
    assert arguments_call("c", "f", 0) == Call("c", "f", 0)


def test_a_chat_log_pairs_by_id_and_by_position(tmp_path: Path) -> None:
    r = replay(
        tmp_path,
        [
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": "deploy"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "run_tests", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "get_weather", "arguments": "{}"},
            },
            {"role": "function", "name": "get_weather", "content": "sunny"},
            {"role": "tool", "tool_call_id": "call_9", "content": "?"},
        ],
    )
    assert (r.format, r.calls, r.results, r.paired) == ("openai-chat", 2, 3, 2)
    assert [(o.id, o.line) for o in r.orphans] == [("call_9", 7)]
    assert set(r.tools) == {"run_tests", "get_weather"}
    assert (r.calls_without_id, r.results_without_id) == (1, 1)
