"""Listing real MCP servers (written with the SDK, started by the test) over stdio and over
streamable HTTP on 127.0.0.1: pages, hangs, crashes, environment and headers."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from toolsel.live.fetch import Failed, Listed, Timeouts, list_servers
from toolsel.live.sources import Server, command_server, url_server

SERVERS = Path(__file__).with_name("mcp_servers.py")


def stdio(mode: str, *args: str, env: dict[str, str] | None = None) -> Server:
    return command_server(f"{sys.executable} {SERVERS} {mode} {' '.join(args)}", mode, env or {})


def test_a_paged_list_is_read_to_its_end_with_annotations_and_output_schema() -> None:
    [listed] = list_servers([stdio("pager")], Timeouts(connect=60, list=30))
    assert isinstance(listed, Listed), listed
    names = [tool["name"] for tool in listed.tools]
    assert names == [
        "create_issue",
        "list_issues",
        "delete_branch",
        "get_file",
        "merge_pull_request",
    ]
    get_file = listed.tools[3]
    assert get_file["outputSchema"]["properties"]["text"] == {"type": "string"}
    assert get_file["annotations"]["readOnlyHint"] is True
    assert listed.server_info["name"] == "test-pager"


def test_a_server_that_crashes_is_one_reason_with_its_stderr() -> None:
    [failed] = list_servers([stdio("crash")], Timeouts(connect=60, list=30))
    assert isinstance(failed, Failed)
    assert "GITHUB_TOKEN is not set" in failed.reason
    assert "\n" not in failed.reason


def test_a_server_that_hangs_is_stopped_at_the_list_deadline() -> None:
    started = time.monotonic()
    [failed] = list_servers([stdio("hang")], Timeouts(connect=60, list=1))
    assert isinstance(failed, Failed)
    assert "took longer than 1 s to answer tools/list" in failed.reason
    assert time.monotonic() - started < 30


def test_a_command_that_does_not_exist() -> None:
    server = command_server("toolsel-no-such-command-xyz --flag", None, {})
    [failed] = list_servers([server], Timeouts(connect=10, list=10))
    assert isinstance(failed, Failed)
    assert "cannot start 'toolsel-no-such-command-xyz': no such command" in failed.reason


def test_one_failure_leaves_the_others_listed_in_order() -> None:
    results = list_servers([stdio("crash"), stdio("pager")], Timeouts(connect=60, list=30))
    assert [type(r) for r in results] == [Failed, Listed]


def test_the_server_gets_the_environment_it_is_given() -> None:
    [listed] = list_servers([stdio("echo-env", env={"GREETING": "hello there"})], Timeouts(60, 30))
    assert isinstance(listed, Listed), listed
    assert listed.tools[0]["description"] == "hello there"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def http_server(mode: str, token: str | None = None) -> Iterator[str]:
    port = free_port()
    env = {"REQUIRE_TOKEN": token} if token else {}
    import os

    process = subprocess.Popen(
        [sys.executable, str(SERVERS), mode, "http", str(port)],
        env={**os.environ, **env},
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        for _ in range(400):
            try:
                urllib.request.urlopen(url, timeout=1)
            except urllib.error.HTTPError:
                break  # it answers (405/406/401 to a bare GET)
            except OSError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_streamable_http_server_with_a_bearer_token() -> None:
    with http_server("pager", token="s3cret") as url:
        good = url_server(url, "gh", {"Authorization": "Bearer s3cret"})
        bad = url_server(url, "gh", {})
        listed, refused = list_servers([good, bad], Timeouts(connect=30, list=30))
    assert isinstance(listed, Listed), listed
    assert len(listed.tools) == 5
    assert isinstance(refused, Failed)
    assert "401" in refused.reason


def test_a_server_listing_too_many_tools_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolsel.live.fetch as fetch

    monkeypatch.setattr(fetch, "MAX_TOOLS", 3)
    [failed] = list_servers([stdio("pager")], Timeouts(connect=60, list=30))
    assert isinstance(failed, Failed)
    assert "tools/list gave more than 3 tools" in failed.reason


def test_a_chatty_servers_stderr_is_a_bounded_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that writes 40 MB to stderr: listed, and only the tail is kept."""
    from toolsel.live import stdio as transport

    kept: list[transport.StderrTail] = []
    original = transport.StderrTail

    class Watched(original):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            kept.append(self)

    monkeypatch.setattr(transport, "StderrTail", Watched)
    [listed] = list_servers([stdio("chatty", "40")], Timeouts(connect=60, list=30))
    assert isinstance(listed, Listed), listed
    [tail] = kept
    assert tail.total > 40 * 1024 * 1024
    assert len(tail.data) <= 2 * transport.TAIL_BYTES
    assert tail.lines(1) == ["the last line of a chatty server"]


def test_the_servers_whole_process_group_is_stopped(tmp_path: Path) -> None:
    import os

    pid_file = tmp_path / "child.pid"
    [listed] = list_servers([stdio("spawner", str(pid_file))], Timeouts(connect=60, list=30))
    assert isinstance(listed, Listed), listed
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        with contextlib.suppress(ChildProcessError):
            os.waitpid(child, os.WNOHANG)
        time.sleep(0.05)
    else:
        os.kill(child, 9)
        pytest.fail("the server's child outlived the listing")


def test_a_line_on_stdout_that_is_not_json_rpc_is_named(capfd: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    [failed] = list_servers([stdio("banner")], Timeouts(connect=30, list=30))
    assert isinstance(failed, Failed)
    assert "not a JSON-RPC message" in failed.reason
    assert '"Server started on stdio, ready!"' in failed.reason
    assert "took longer" not in failed.reason and time.monotonic() - started < 20
    assert "Traceback" not in capfd.readouterr().err


def test_a_reply_the_sdk_cannot_parse_over_http_is_named(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """An HTTP server that answers JSON-RPC with a body that is not one: one line, at once."""
    import http.server
    import threading

    class Broken(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = b'{"jsonrpc": "2.0", "id": 1, "result": '
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Broken)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
        started = time.monotonic()
        [failed] = list_servers([url_server(url, "x", {})], Timeouts(connect=20, list=20))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert isinstance(failed, Failed)
    assert "not a JSON-RPC message the MCP SDK can parse (Invalid JSON: EOF" in failed.reason
    assert "took longer" not in failed.reason
    assert time.monotonic() - started < 15
    assert "Traceback" not in capfd.readouterr().err


def test_what_the_server_says_is_masked_of_what_it_was_handed() -> None:
    secret = "hunter2-very-secret-value"
    [failed] = list_servers(
        [stdio("leaky", env={"SECRET_VALUE": secret})], Timeouts(connect=30, list=30)
    )
    assert isinstance(failed, Failed)
    assert "bad token ***" in failed.reason and secret not in failed.reason


# -- exactly what a listing gives, and exactly why one fails -----------------------------


def test_each_tool_is_kept_by_its_wire_names_without_empty_fields() -> None:
    [listed] = list_servers([stdio("pager")], Timeouts(connect=60, list=30))
    assert isinstance(listed, Listed), listed
    schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    assert listed.tools[:2] == (
        {"name": "create_issue", "description": "Create an issue in a repository.", "inputSchema": schema},
        {"name": "list_issues", "description": "List the issues of a repository.", "inputSchema": schema,
         "annotations": {"readOnlyHint": True}},
    )  # fmt: skip
    assert listed.server_info == {"name": "test-pager", "version": "1.0"}
    assert listed.server == stdio("pager")  # as written, not as started
    assert list_servers([], Timeouts()) == []


def test_a_list_at_the_limit_of_tools_is_listed_and_one_over_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolsel.live.fetch as fetch

    assert (fetch.MAX_TOOLS, fetch.MAX_PAGES) == (50_000, 1000)
    names = tmp_path / "names.txt"
    names.write_text("a\nb\nc\n")
    monkeypatch.setattr(fetch, "MAX_TOOLS", 3)
    at_limit, over = list_servers(
        [stdio("changing", str(names)), stdio("pager")], Timeouts(connect=60, list=30)
    )
    assert isinstance(at_limit, Listed) and len(at_limit.tools) == 3
    assert isinstance(over, Failed)
    assert over.reason == "during tools/list: tools/list gave more than 3 tools"
    monkeypatch.setattr(fetch, "MAX_TOOLS", 1)
    [refused] = list_servers([stdio("pager")], Timeouts(connect=60, list=30))
    assert isinstance(refused, Failed)
    assert refused.reason == "during tools/list: tools/list gave more than 1 tools"


def test_a_cursor_that_never_ends_or_comes_back_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolsel.live.fetch as fetch

    monkeypatch.setattr(fetch, "MAX_PAGES", 3)
    endless, loop = list_servers([stdio("endless"), stdio("loop")], Timeouts(connect=60, list=30))
    assert isinstance(endless, Failed) and isinstance(loop, Failed)
    assert endless.reason == "during tools/list: tools/list had more than 3 pages"
    assert loop.reason == "during tools/list: tools/list repeated its cursor 'again' (a loop)"
    monkeypatch.setattr(fetch, "MAX_PAGES", 4)
    [pager] = list_servers([stdio("pager")], Timeouts(connect=60, list=30))
    assert isinstance(pager, Listed) and len(pager.tools) == 5  # three pages: within 4


def test_each_step_has_its_own_deadline_and_the_message_names_the_step() -> None:
    mute = command_server(f"{sys.executable} {SERVERS} mute", "mute", {})
    hang = stdio("hang")  # answers initialize, never tools/list
    [slow_start] = list_servers([mute], Timeouts(connect=1.5, list=60))
    [slow_list] = list_servers([hang], Timeouts(connect=60, list=1))
    assert isinstance(slow_start, Failed) and isinstance(slow_list, Failed)
    assert slow_start.reason == "took longer than 1.5 s to answer initialize (--mcp-timeout)"
    assert slow_list.reason == "took longer than 1 s to answer tools/list (--mcp-timeout)"


def test_a_command_that_cannot_be_run_says_so(tmp_path: Path) -> None:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o644)
    missing, denied = list_servers(
        [command_server("toolsel-no-such-command-xyz --flag", None, {}),
         command_server(f"{script} --stdio", None, {})],
        Timeouts(connect=10, list=10),
    )  # fmt: skip
    assert isinstance(missing, Failed) and isinstance(denied, Failed)
    assert missing.reason == "cannot start 'toolsel-no-such-command-xyz': no such command"
    assert denied.reason == f"cannot start '{script}': permission denied"


def test_a_crash_is_one_line_with_the_last_lines_of_its_stderr() -> None:
    crash, chatty = list_servers(
        [stdio("crash"), stdio("stderr", "5")], Timeouts(connect=60, list=30)
    )
    assert isinstance(crash, Failed) and isinstance(chatty, Listed)
    assert crash.reason == (
        'during initialize: the server exited; its stderr: "fatal: GITHUB_TOKEN is not set"'
    )


def test_a_401_over_http_is_named_with_its_status() -> None:
    with http_server("pager", token="s3cret") as url:
        [refused] = list_servers([url_server(url, "gh", {})], Timeouts(connect=30, list=30))
    assert isinstance(refused, Failed)
    # the status toolsel saw, then what the SDK said of it
    assert refused.reason == (
        "during initialize: HTTP 401 Unauthorized (Server returned an error response)"
    )


def test_the_sdks_logger_is_quieted_once() -> None:
    import logging

    logger = logging.getLogger("mcp")
    for _ in range(2):
        list_servers([stdio("crash")], Timeouts(connect=60, list=30))
    assert logger.propagate is False
    assert sum(isinstance(h, logging.NullHandler) for h in logger.handlers) == 1


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("Failed to parse\n  Invalid JSON: EOF while parsing [type=json_invalid, input=x]", "Invalid JSON: EOF while parsing"),
        ("1 validation error\nresult.tools.0.name\n  Field required [type=missing, input={}]", "Field required"),
        ("x\n  Input should be a valid string [type=string_type]\n", "Input should be a valid string"),
        ("x\n  something [type=value_error]", "something"),
        ("x\n  Input should be a valid string\n", "Input should be a valid string"),
        ("  Failed to parse the reply  \nmore", "Failed to parse the reply"),
        ("", ""),
    ],
)  # fmt: skip
def test_the_line_of_a_parse_error_that_says_what_is_wrong(text: str, line: str) -> None:
    from toolsel.live.fetch import _parse_error

    assert _parse_error(text) == line


def test_an_error_is_one_line_of_at_most_300_characters() -> None:
    from toolsel.live.fetch import _one_line

    assert _one_line("  a\n\tb  c \n") == "a b c"
    assert _one_line("x" * 301) == "x" * 300


def test_the_step_a_failure_happened_in_is_named() -> None:
    from toolsel.live.fetch import _step

    assert [_step([p]) for p in ("start", "initialize", "list", "HTTP 500")] == [
        "starting", "during initialize", "during tools/list", "HTTP 500",
    ]  # fmt: skip


def test_the_reason_of_errors_nested_in_groups_is_each_leaf_once() -> None:
    from toolsel.live.fetch import _reason
    from toolsel.live.stdio import StderrTail

    server = command_server("npx -y x", "x", {})
    two = ExceptionGroup("g", [ValueError("b"), ExceptionGroup("h", [ValueError("a")])])
    assert _reason(two, ["list"], StderrTail(), server) == "during tools/list: a; b"
    missing = ExceptionGroup("g", [ExceptionGroup("h", [FileNotFoundError("npx")])])
    assert _reason(missing, ["start"], StderrTail(), server) == (
        "cannot start 'npx': no such command"
    )


def test_without_the_mcp_sdk_each_server_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "mcp.client.session", None)
    [failed] = list_servers([command_server("npx x", "x", {})], Timeouts(connect=5, list=5))
    assert failed == Failed(
        failed.server, "listing a live MCP server needs the MCP SDK: pip install 'toolsel[mcp]'"
    )


def test_a_message_the_sdk_cannot_parse_on_the_servers_own_stream_is_named(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """An HTTP server whose stream of its own messages (the GET after `initialize`) sends an
    event that is not JSON-RPC, while tools/list is pending: the listing ends at once, with
    the step and the first line the SDK could not parse."""
    import http.server
    import json
    import threading

    done = threading.Event()

    class Garbled(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            if "id" not in request:  # a notification
                self.send_response(202)
                self.end_headers()
                return
            if request["method"] == "tools/list":
                done.wait(20)  # never answered before the listing ends
                return
            result = {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "garbled", "version": "1"},
            }
            body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Mcp-Session-Id", "s1")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b"event: message\ndata: this is not json\n\n")
            self.wfile.flush()
            done.wait(20)  # one event only: the stream stays open, so no reconnection

        def do_DELETE(self) -> None:
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Garbled)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
        started = time.monotonic()
        [failed] = list_servers([url_server(url, "x", {})], Timeouts(connect=20, list=20))
    finally:
        done.set()
        httpd.shutdown()
        httpd.server_close()
    assert isinstance(failed, Failed), failed
    assert failed.server == url_server(url, "x", {})
    prefix = (
        "during tools/list: the server's reply is not a JSON-RPC message the MCP SDK can "
        "parse (Invalid JSON: "
    )
    assert failed.reason.startswith(prefix), failed.reason
    assert failed.reason.endswith("(Invalid JSON: expected ident at line 1 column 2)")
    assert failed.reason.count("not a JSON-RPC message") == 1
    assert "took longer" not in failed.reason and time.monotonic() - started < 15
    assert "Traceback" not in capfd.readouterr().err


def test_a_server_slow_to_start_is_stopped_at_the_connect_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The start (spawning the process) counts against `connect`, not `list`: a spawn that
    never ends (as a command on a hung network drive) is stopped and said so."""
    import anyio

    async def never_started(*args: object, **kwargs: object) -> None:
        await anyio.sleep_forever()

    monkeypatch.setattr(anyio, "open_process", never_started)
    started = time.monotonic()
    [failed] = list_servers([stdio("pager")], Timeouts(connect=0.5, list=60))
    assert failed == Failed(stdio("pager"), "took longer than 0.5 s to start (--mcp-timeout)")
    assert time.monotonic() - started < 30


def test_without_anyio_each_server_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """anyio comes with the MCP SDK: without it, no server is started."""
    monkeypatch.setitem(sys.modules, "anyio", None)
    servers = [command_server("npx x", "x", {}), command_server("npx y", "y", {})]
    assert list_servers(servers, Timeouts(connect=5, list=5)) == [
        Failed(server, "listing a live MCP server needs the MCP SDK: pip install 'toolsel[mcp]'")
        for server in servers
    ]
