"""Issue 34: Cline and Roo Code task histories. Calls are XML tags in the assistant's text,
results are the next user message's text blocks under a header naming the tool; no ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.replay.records import replay
from toolsel.replay.events import Call, Human, Result
from toolsel.replay.file import replay_file
from toolsel.replay.formats import detect
from toolsel.replay.formats.cline import message_events

ENV = "<environment_details>\n# Current Mode\nACT MODE\n</environment_details>"


def user(*texts: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": t} for t in texts]}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


READ = assistant("<thinking>look</thinking>\n<read_file>\n<path>src/a.py</path>\n</read_file>")


def test_a_tool_tag_is_a_call_with_its_parameters() -> None:
    text = "<execute_command>\n<command>ls -la</command>\n<requires_approval>false</requires_approval>\n</execute_command>"  # fmt: skip
    assert message_events(assistant(text)) == [
        Call(
            "",
            "execute_command",
            {"command": "ls -la", "requires_approval": "false"},
            by_position=True,
        )
    ]


def test_two_tags_in_one_message_are_two_calls_and_a_cut_off_tag_is_one() -> None:
    text = "<read_file><path>a</path></read_file>\n<write_to_file>\n<path>b</path>\n<content>x"
    calls = message_events(assistant(text))
    assert [(c.tool, c.input) for c in calls] == [  # type: ignore[union-attr]
        ("read_file", {"path": "a"}),
        ("write_to_file", {"path": "b"}),
    ]


def test_tags_that_are_not_tools_are_not_calls() -> None:
    assert message_events(assistant("<thinking>\n<path>x</path>\n</thinking>")) == []


@pytest.mark.parametrize(
    ("texts", "failed"),
    [
        (("[read_file for 'a'] Result:", "print(1)"), [False]),
        (
            (
                "[read_file for 'a'] Result:",
                "The tool execution failed with the following error:\n<error>\nENOENT\n</error>",
            ),
            [True],
        ),
        (("[execute_command for 'rm x'] Result:", "The user denied this operation."), [True]),
        (
            (
                "[list_files for 'undefined'] Result:",
                "[ERROR] Missing value for required parameter 'path'.",
            ),
            [True],
        ),
        # Roo Code: the description runs on, and the result may share the header's block
        (
            ("[read_file for 'a'. Reading multiple files at once is more efficient.] Result:\nok",),
            [False],
        ),
        (("[attempt_completion] Result:", "The user has provided feedback", ENV), [False]),
        (
            (
                "[write_to_file for 'a'] Result:",
                "saved",
                "Tool [execute_command] was not executed because a tool has already been used in this message.",
            ),
            [False, True],
        ),
    ],
)
def test_each_result_header_is_a_result(texts: tuple[str, ...], failed: list[bool]) -> None:
    events = message_events(user(*texts))
    assert [e.is_error for e in events if isinstance(e, Result)] == failed
    assert all(e.id == "" for e in events if isinstance(e, Result))


def test_the_result_text_is_measured_without_the_environment_details() -> None:
    (result,) = message_events(user("[read_file for 'a'] Result:", "12345", ENV))
    assert isinstance(result, Result) and result.size == 5


def test_the_task_is_the_request() -> None:
    assert message_events(user("<task>\nFix the typo\n</task>", ENV)) == [Human("Fix the typo")]


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (READ, "cline"),
        (user("[read_file for 'a'] Result:", "x"), "cline"),
        (user("<task>\nhi\n</task>"), "cline"),
        (user(ENV), "cline"),
        # near misses: Anthropic messages that only look like it
        (assistant("I will use <thinking> and <path>x</path>"), "anthropic"),
        (user("[read_file for 'a'] was fine"), "anthropic"),
        ({"role": "assistant", "content": "<read_file><path>a</path></read_file>"}, "openai-chat"),
        (
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "read_file", "input": {}}],
            },
            "anthropic",
        ),
        ({"type": "say", "say": "tool", "ts": 1, "text": "{}"}, "cline"),  # ui_messages.json
    ],
)
def test_the_signature_and_its_near_misses(record: dict[str, Any], expected: str) -> None:
    decoded = detect(record)
    assert decoded is not None and decoded[0] == expected


def test_native_tool_blocks_are_read_too(tmp_path: Path) -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}}
    answer = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}
    records = [
        user("<task>\nread a\n</task>", ENV),
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [answer, {"type": "text", "text": ENV}]},
    ]
    report = replay(tmp_path, records, name="api_conversation_history.json")
    assert (report.format, report.calls, report.paired, report.calls_without_id) == (
        "cline",
        1,
        1,
        0,
    )


def test_a_history_pairs_by_position_and_says_so(cli: Cli, tmp_path: Path) -> None:
    records = [
        user("<task>\nread two files\n</task>", ENV),
        READ,
        user("[read_file for 'src/a.py'] Result:", "a", ENV),
        assistant("<read_file>\n<path>src/b.py</path>\n</read_file>"),
        user(
            "[read_file for 'src/b.py'] Result:",
            "The tool execution failed with the following error:\n<error>\nENOENT\n</error>",
            ENV,
        ),
        assistant("<attempt_completion>\n<result>done</result>\n</attempt_completion>"),
    ]
    report = replay(tmp_path, records, name="api_conversation_history.json")
    assert (report.format, report.calls, report.paired, report.error_results) == ("cline", 3, 2, 1)
    assert [u.tool for u in report.unanswered] == ["attempt_completion"]
    assert [f.message for f in report.failures] == ["ENOENT"]
    result = cli("replay", str(tmp_path / "api_conversation_history.json"), "--no-registry")
    assert result.exit_code == 0 and "paired by position" in result.stdout


def _native(ts: int, *calls: tuple[str, str]) -> dict[str, Any]:
    blocks = [{"type": "tool_use", "id": i, "name": n, "input": {}, "call_id": i} for i, n in calls]
    return {"role": "assistant", "content": blocks, "ts": ts}


@pytest.mark.parametrize("one_line", [True, False])
def test_native_calls_answered_by_text_pair_by_turn(tmp_path: Path, one_line: bool) -> None:
    """Cline's native tool calls keep their ids, but their results are `[tool] Result:`
    texts: each result answers the newest turn's calls in order, and a call an interruption
    left open stays open (whether the document is on one line or many)."""
    resumed = "[TASK RESUMPTION] This task was interrupted 3 days ago."
    records = [
        {**user("<task>\nfix it\n</task>", ENV), "ts": 1},
        _native(2, ("t_ask", "ask_followup_question")),
        {**user(resumed, ENV), "ts": 3},
        _native(4, ("t_read", "read_file"), ("t_run", "execute_command")),
        {
            **user(
                "[read_file for 'a'] Result:",
                "a",
                "[execute_command for 'ls'] Result:",
                "The user denied this operation.",
                ENV,
            ),
            "ts": 5,
        },
    ]
    path = tmp_path / "api_conversation_history.json"
    path.write_text(json.dumps(records, indent=None if one_line else 2))
    report = replay_file(str(path))
    assert (report.format, report.calls, report.paired, report.error_results) == ("cline", 3, 2, 1)
    assert [u.id for u in report.unanswered] == ["t_ask"]
    assert [(f.id, f.tool) for f in report.failures] == [("t_run", "execute_command")]


#: A task's context_history.json (Cline's `ContextManager`): the first assistant message's
#: text replaced to say the history was truncated.
CONTEXT_HISTORY = [[1, [0, [[0, [[1769064500000, "text", ["[NOTE] Some previous conversation history with the user has been removed"], []]]]]]]]  # fmt: skip


@pytest.mark.parametrize(
    ("value", "known"),
    [
        (CONTEXT_HISTORY[0], True),
        ([2, [1, []]], True),
        ([1, 2], False),
        (["1", [0, []]], False),
        ([1, [0, []], 3], False),
    ],
)
def test_a_context_history_entry_is_known_and_holds_no_call(value: list[Any], known: bool) -> None:
    assert detect(value) == (("cline", ()) if known else None)


@pytest.mark.parametrize("name", ["ui_messages.json", "context_history.json", "task_metadata.json"])
def test_a_companion_file_named_alone_is_refused_naming_the_history(
    cli: Cli, tmp_path: Path, name: str
) -> None:
    """They restate the history or hold none of it: replaying one alone would be a clean
    report of nothing, so it is refused with the file to give instead."""
    path = tmp_path / name
    path.write_text(json.dumps(CONTEXT_HISTORY))
    for command in ("replay", "stats"):
        run = cli(command, str(path), "--no-registry")
        assert run.exit_code == 2, run.output
        assert run.stderr.count("\n") == 1 and "replay api_conversation_history.json from the same task folder" in run.stderr  # fmt: skip
        assert f"{path}: a Cline task's {name} holds" in run.stderr


def test_a_task_folder_is_read_without_a_false_alarm(cli: Cli, tmp_path: Path) -> None:
    """A task folder holds the history beside `ui_messages.json` and `task_metadata.json`,
    which hold no calls: known, not "format not recognised"."""
    (tmp_path / "api_conversation_history.json").write_text(
        json.dumps([READ, user("[read_file for 'src/a.py'] Result:", "a", ENV)])
    )
    ui = [{"ts": 1, "type": "say", "say": "task", "text": "read a"}, {"ts": 2, "type": "ask", "ask": "tool", "text": "{}"}]  # fmt: skip
    (tmp_path / "ui_messages.json").write_text(json.dumps(ui))
    (tmp_path / "task_metadata.json").write_text(json.dumps({"files_in_context": [], "model_usage": []}))  # fmt: skip
    (tmp_path / "context_history.json").write_text(json.dumps(CONTEXT_HISTORY))
    run = cli("replay", str(tmp_path), "--no-registry", "-f", "json")
    files = {f["path"].split("/")[-1]: f for f in json.loads(run.stdout)["files"]}
    assert run.exit_code == 0 and set(files) == {"api_conversation_history.json", "ui_messages.json", "task_metadata.json", "context_history.json"}  # fmt: skip
    assert all(f["notes"] == [] and f["format"] == "cline" for f in files.values())
    assert files["api_conversation_history.json"]["paired"] == 1


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (CONTEXT_HISTORY[0], ("cline", ())),
        ([1, ["a", []]], None),  # an edit whose type is not a number
        ([1, [0, [], 3]], None),
        ([1, [0, {}]], None),
        ({"type": "say", "say": "task", "ts": 1, "text": "x"}, ("cline", ())),
        ({"type": "ask", "ask": "tool", "ts": 1}, ("cline", ())),
        ({"type": "say", "ts": "1"}, None),  # no time the extension stamps: no UI record
        ({"type": "note", "ts": 1}, None),
        ({"type": ["say"], "ts": 1}, None),
        ({"files_in_context": [], "model_usage": []}, ("cline", ())),
        ({"files_in_context": {}}, None),
        ({"content": [{"type": "text", "text": "<read_file><path>a</path></read_file>"}]}, None),
        ("<read_file>", None),
        (
            {**assistant("<read_file><path>a</path></read_file>"), "files_in_context": []},
            ("cline", [Call("", "read_file", {"path": "a"}, by_position=True)]),
        ),
        (READ, ("cline", [Call("", "read_file", {"path": "src/a.py"}, by_position=True)])),
    ],
)
def test_what_the_forced_format_reads(obj: Any, expected: Any) -> None:
    from toolsel.replay.formats.cline import record

    assert record(obj) == expected


@pytest.mark.parametrize(
    ("message", "cline"),
    [
        ({"role": "system", "content": [{"type": "text", "text": "[read_file] Result:"}]}, False),
        ({"role": "system", "content": [], "ts": 1}, False),
        ({"role": "user", "content": [], "ts": 1}, True),
        ({"role": "user", "content": "x", "ts": 1}, False),
        # a block that is not text, or text that is not a string, before the signature
        ({**user("[read_file for 'a'] Result:"), "content": ["x", {"type": "image"}, {"type": "text", "text": None}, *user("[read_file for 'a'] Result:")["content"]]}, True),
        ({**READ, "content": [{"type": "text", "text": 3}, *READ["content"]]}, True),
        (assistant("[read_file for 'a'] Result:"), False),  # a user's signature, in the model's text
        (user("<read_file><path>a</path></read_file>"), False),
    ],
)  # fmt: skip
def test_the_message_signature(message: dict[str, Any], cline: bool) -> None:
    from toolsel.replay.formats.cline import is_message

    assert is_message(message) is cline


def test_a_native_call_is_a_call_of_the_main_thread_answered_by_position() -> None:
    content = ["x", {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}]
    assert message_events({"role": "assistant", "content": content, "ts": 7}) == [
        Call("t1", "read_file", {"path": "a"}, message_id="7", by_position=True)
    ]


def test_only_text_blocks_hold_calls() -> None:
    content = [
        {"type": "image", "text": "<read_file><path>a</path></read_file>"},
        {"type": "text", "text": ["<read_file>"]},
        {"type": "text", "text": "<list_files><path>b</path></list_files>"},
    ]
    assert message_events({"role": "assistant", "content": content}) == [
        Call("", "list_files", {"path": "b"}, by_position=True)
    ]


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        # the same tool twice, back to back: two calls, each with its own parameters
        (
            "<read_file><path>a</path></read_file><read_file><path>b</path></read_file>",
            [("read_file", {"path": "a"}), ("read_file", {"path": "b"})],
        ),
        # a tool's tag inside another call's text is that call's text, not a call
        ("<attempt_completion>see <read_file></attempt_completion>", [("attempt_completion", {})]),
        # a closing tag before the opening one closes nothing
        (
            "</read_file> then <read_file><path>a</path></read_file>",
            [("read_file", {"path": "a"})],
        ),
        # only line breaks are trimmed: indentation and other characters are the value
        (
            "<write_to_file><path>X.md</path><content>\n  def f():\n    pass  \n</content></write_to_file>",
            [("write_to_file", {"path": "X.md", "content": "  def f():\n    pass  "})],
        ),
    ],
)
def test_each_tag_is_one_call(text: str, calls: list[tuple[str, dict[str, str]]]) -> None:
    events = message_events(assistant(text))
    assert [(c.tool, c.input) for c in events if isinstance(c, Call)] == calls


SKIPPED = "Tool [read_file] was not executed because a tool has already been used."


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        # the result starts after the first header mark, without the spaces before it
        (("[read_file for 'a'] Result:\n  x] Result: y",), Result("", False, size=len("x] Result: y"))),
        (("[read_file for 'a'] Result:", "ab", "", "cd"), Result("", False, size=5)),
        (
            ("[read_file for 'a'] Result:", "  [ERROR] Missing value"),
            Result("", True, error="  [ERROR] Missing value", size=23),
        ),
        (
            ("[read_file for 'a'] Result:", "The tool execution failed:\n<error> ENOENT </error>"),
            Result("", True, error="ENOENT", size=50),
        ),
        (
            (SKIPPED,),
            Result("", True, error=SKIPPED, size=len(SKIPPED)),
        ),
    ],
)  # fmt: skip
def test_a_result_s_words_and_size(texts: tuple[str, ...], expected: Result) -> None:
    assert message_events(user(*texts)) == [expected]


def test_blocks_that_are_not_text_do_not_end_a_result() -> None:
    content = [
        "x",
        {"type": "image"},
        {"type": "text", "text": None},
        {"type": "text", "text": "[read_file for 'a'] Result:"},
        {"type": "image"},
        {"type": "text", "text": 5},
        {"type": "text", "text": "abc"},
    ]
    assert message_events({"role": "user", "content": content}) == [Result("", False, size=3)]


@pytest.mark.parametrize("text", ["<task>\nFix it", "<task></task>", "<task>\n \n</task>"])
def test_a_task_never_closed_or_empty_is_no_request(text: str) -> None:
    assert message_events(user(text, ENV)) == []
