"""toolsel/live/stdio.py: a server in a process group of its own, given only the safe part of
toolsel's environment; a bounded tail of its stderr; lines on stdout that are not JSON-RPC
named; the whole group stopped, by SIGKILL if it must."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from tests.conftest import Cli
from tests.live.mcp_servers import __file__ as SERVERS_FILE
from toolsel.live import stdio as transport
from toolsel.live.fetch import Failed, Listed, Timeouts, list_servers
from toolsel.live.sources import command_server, config_servers
from toolsel.live.stdio import StderrTail

SERVERS = Path(SERVERS_FILE)


def stdio(mode: str, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return command_server(" ".join([sys.executable, str(SERVERS), mode, *args]), mode, env or {})


def test_a_tail_keeps_the_last_bytes_and_counts_them_all() -> None:
    tail = StderrTail(limit=10)
    assert (tail.limit, tail.total, bytes(tail.data)) == (10, 0, b"")
    assert StderrTail().limit == transport.TAIL_BYTES == 64 * 1024
    tail.feed(b"0123456789")
    tail.feed(b"abcdefghij")
    assert (tail.total, bytes(tail.data)) == (20, b"0123456789abcdefghij")  # 2 x limit: kept
    tail.feed(b"K")
    assert (tail.total, bytes(tail.data)) == (21, b"bcdefghijK")
    assert tail.lines() == ["bcdefghijK"]


def test_the_lines_shown_are_the_last_non_blank_ones_stripped() -> None:
    tail = StderrTail(limit=40)
    tail.feed(b"first\n  second  \n\n   \nthird\nfourth\xff\n")
    assert tail.lines() == ["second", "third", "fourth\ufffd"]
    assert tail.lines(1) == ["fourth\ufffd"]
    assert tail.shown() == '; its stderr: "second | third | fourth\ufffd"'
    assert tail.shown(count=2, width=10) == '; its stderr: "... | fourth\ufffd"'
    assert tail.shown(count=2, width=15) == '; its stderr: "third | fourth\ufffd"'
    long = StderrTail(limit=30)
    long.feed(b"x" * 25 + b"\n" + b"y" * 25 + b"\n")
    assert long.lines() == ["xxx", "y" * 25]  # the last 30 bytes, a cut line's end first
    assert StderrTail().shown() == ""
    wide = StderrTail()
    wide.feed(b"a" * 100 + b"b" * 300 + b"\n")
    assert wide.shown() == f'; its stderr: "...{"b" * 300}"'
    blank = StderrTail()
    blank.feed(b"\n  \n")
    assert blank.shown() == ""


def test_the_tail_is_what_a_failure_shows(tmp_path: Path) -> None:
    secret = "hunter2-very-secret-value"
    [failed] = list_servers([stdio("leaky", env={"SECRET_VALUE": secret})], Timeouts(60, 30))
    assert isinstance(failed, Failed)
    assert (
        failed.reason == 'during initialize: the server exited; its stderr: "fatal: bad token ***"'
    )


def test_the_server_gets_the_safe_environment_and_its_own_variables_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GREETING", "from toolsel's own environment")
    [inherited] = list_servers([stdio("echo-env")], Timeouts(connect=60, list=30))
    assert isinstance(inherited, Listed), inherited
    assert inherited.tools[0]["description"] == "none"
    server = stdio("echo-env", env={"GREETING": "given", "PATH": "/only/this"})
    assert transport.environment(server)["GREETING"] == "given"
    assert transport.environment(server)["PATH"] == "/only/this"
    assert "GREETING" not in transport.environment(stdio("echo-env"))
    assert transport.environment(stdio("echo-env"))["PATH"] == os.environ["PATH"]


def test_the_server_runs_in_the_folder_its_entry_names(tmp_path: Path) -> None:
    config = tmp_path / ".mcp.json"
    folder = tmp_path / "work"
    folder.mkdir()
    entry = {"command": sys.executable, "args": [str(SERVERS), "where"], "cwd": str(folder)}
    config.write_text(json.dumps({"mcpServers": {"w": entry}}))
    [server] = config_servers(config)
    [listed] = list_servers([server], Timeouts(connect=60, list=30))
    assert isinstance(listed, Listed), listed
    assert listed.tools[0]["description"] == str(folder)


def test_blank_lines_on_stdout_are_skipped() -> None:
    [listed] = list_servers([stdio("blank")], Timeouts(connect=20, list=10))
    assert isinstance(listed, Listed), listed
    assert len(listed.tools) == 5


def test_a_line_that_is_not_json_rpc_is_named_in_its_first_120_characters() -> None:
    short, long = list_servers(
        [stdio("banner"), stdio("long-banner")], Timeouts(connect=60, list=30)
    )
    assert isinstance(short, Failed) and isinstance(long, Failed)
    rest = "(an MCP server over stdio writes only JSON-RPC there; logs go to stderr)"
    assert short.reason == (
        "during initialize: the server wrote a line on stdout that is not a JSON-RPC message: "
        f'"Server started on stdio, ready!" {rest}'
    )
    expected = (
        "during initialize: the server wrote a line on stdout that is not a JSON-RPC message: "
        f'"{"a" * 119}b..." {rest}'
    )
    assert long.reason == expected


def test_a_line_over_the_limit_ends_the_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert transport.MAX_LINE_BYTES == 64 * 1024 * 1024
    monkeypatch.setattr(transport, "MAX_LINE_BYTES", 400)
    [failed] = list_servers([stdio("pager")], Timeouts(connect=60, list=30))
    assert isinstance(failed, Failed)
    assert failed.reason == ("during tools/list: the server wrote a line of over 400 bytes")


def test_an_error_of_the_transport_is_said_once() -> None:
    [failed] = list_servers([stdio("banner")], Timeouts(connect=60, list=30))
    assert isinstance(failed, Failed) and "TaskGroup" not in failed.reason


def test_a_server_that_ignores_sigterm_is_killed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Once listed, the server ignores the end of its stdin and SIGTERM: it gets EXIT_WAIT
    for each, then SIGKILL; the listing ends, and no process of its group is left."""
    assert transport.EXIT_WAIT == 2.0
    monkeypatch.setattr(transport, "EXIT_WAIT", 0.5)
    seen: list[int] = []
    original = transport.stop_group

    async def watched(process):  # type: ignore[no-untyped-def]
        seen.append(process.pid)
        await original(process)

    monkeypatch.setattr(transport, "stop_group", watched)
    started = time.monotonic()
    [listed] = list_servers([stdio("stubborn")], Timeouts(connect=60, list=30))
    assert isinstance(listed, Listed), listed
    assert time.monotonic() - started < 30
    [pgid] = seen
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)


def test_signalling_a_group_that_is_gone() -> None:
    import signal
    import subprocess

    child = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    child.wait()
    assert transport._signal_group(child.pid, signal.SIGTERM) is False
    assert transport._group_alive(child.pid) is False
    alive = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    try:
        assert transport._group_alive(alive.pid) is True
        assert transport._signal_group(alive.pid, signal.SIGKILL) is True
        alive.wait(timeout=10)
        assert transport._group_alive(alive.pid) is False
    finally:
        alive.kill()
        alive.wait()


def test_a_server_writing_a_banner_on_stdout_is_one_line_through_the_cli(cli: Cli) -> None:
    command = f"{sys.executable} {SERVERS} banner"
    run = cli("rank", "x", "-r", f"mcp:{command}", "--mcp-timeout", "60")
    assert (run.exit_code, run.stderr) == (
        2,
        "toolsel: error: server 'mcp_servers': during initialize: the server wrote a line on stdout "
        'that is not a JSON-RPC message: "Server started on stdio, ready!" (an MCP server over '
        "stdio writes only JSON-RPC there; logs go to stderr)\n",
    )


def test_each_request_is_one_compact_json_line_without_unset_fields(tmp_path: Path) -> None:
    """What the server reads on its stdin, copied by `tee`: the SDK's messages as they are
    set, one a line (a field left unset is not sent as null)."""
    recorded = tmp_path / "stdin.jsonl"
    server = command_server(
        f"sh -c 'tee {recorded} | {sys.executable} {SERVERS} pager'", "recorded", {}
    )
    [listed] = list_servers([server], Timeouts(connect=60, list=30))
    assert isinstance(listed, Listed), listed
    lines = recorded.read_text(encoding="utf-8").splitlines()
    messages = [json.loads(line) for line in lines]
    assert [m.get("method") for m in messages] == [
        "initialize", "notifications/initialized", *["tools/list"] * (len(lines) - 2),
    ]  # fmt: skip
    assert lines == [json.dumps(m, separators=(",", ":")) for m in messages]
    assert "null" not in recorded.read_text(encoding="utf-8")
    assert messages[1] == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert messages[2] == {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def test_a_process_left_in_the_group_is_waited_for_only_until_it_is_gone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The server exits at the end of its stdin, but leaves a process in its group that takes
    0.1 s to exit on SIGTERM (and is reaped at once): the stop waits for the group in short
    polls, ending soon after it is gone (timed from the child's last step, so that a loaded
    machine's slow start or signal does not count), well before `EXIT_WAIT` (2 s) or a poll
    of a second."""
    marker = tmp_path / "lingering.txt"
    sent: dict[int, float] = {}
    stopped: list[tuple[int, float]] = []
    signal_group, stop_group = transport._signal_group, transport.stop_group

    def noted(pgid: int, sig: int) -> bool:
        sent.setdefault(sig, time.monotonic())
        return signal_group(pgid, sig)

    async def timed(process):  # type: ignore[no-untyped-def]
        await stop_group(process)
        stopped.append((process.pid, time.monotonic()))

    monkeypatch.setattr(transport, "_signal_group", noted)
    monkeypatch.setattr(transport, "stop_group", timed)
    [listed] = list_servers([stdio("lingering", str(marker))], Timeouts(connect=60, list=30))
    assert isinstance(listed, Listed), listed
    *steps, exiting = marker.read_text().splitlines()
    assert steps == ["started", "ready", "terminated"] and exiting.startswith("exiting ")
    import signal

    [(pgid, end)] = stopped
    assert list(sent) == [signal.SIGTERM]  # gone after SIGTERM: no SIGKILL
    assert end - float(exiting.removeprefix("exiting ")) < 0.5  # polls of 0.02 s, not 1 s
    assert end - sent[signal.SIGTERM] < transport.EXIT_WAIT
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)


class _UnreadableStderr:
    """A server's stderr whose reading fails at once with `error` (closed under the reader,
    or a read error); closing it closes the real one."""

    def __init__(self, real: object, error: Exception) -> None:
        self.real, self.error = real, error

    def __aiter__(self) -> _UnreadableStderr:
        return self

    async def __anext__(self) -> bytes:
        raise self.error

    async def aclose(self) -> None:
        await self.real.aclose()  # type: ignore[attr-defined]


class _WithStderr:
    """A started process, but for its stderr."""

    def __init__(self, process: object, stderr: _UnreadableStderr) -> None:
        self.process, self.stderr = process, stderr

    def __getattr__(self, name: str) -> object:
        return getattr(self.process, name)


@pytest.mark.parametrize("error", ["closed", "os"])
def test_a_stderr_that_cannot_be_read_does_not_end_the_listing(
    monkeypatch: pytest.MonkeyPatch, error: str
) -> None:
    import anyio

    failure = anyio.ClosedResourceError() if error == "closed" else OSError(5, "read failed")
    open_process = anyio.open_process

    async def unreadable(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        process = await open_process(*args, **kwargs)  # type: ignore[arg-type]
        return _WithStderr(process, _UnreadableStderr(process.stderr, failure))

    monkeypatch.setattr(anyio, "open_process", unreadable)
    [listed] = list_servers([stdio("crash")], Timeouts(connect=60, list=30))
    assert isinstance(listed, Failed) and listed.reason == "during initialize: the server exited"
    [listed] = list_servers([stdio("pager")], Timeouts(connect=60, list=30))
    assert isinstance(listed, Listed), listed
    assert len(listed.tools) == 5
