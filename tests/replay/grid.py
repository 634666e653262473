"""One scenario with every kind of replay finding, written in every transcript format.

    python tests/replay/grid.py          # rewrite transcripts/grid/
    python tests/replay/grid.py --check  # exit 1 if the committed files are stale

The scenario, in order (ids are the same in every format):
  T  Task (a sub-agent) opens; S runs inside it and is answered; then T is answered
  A  read_file, answered                                   -> paired
  B  run_tests, answered with an error                     -> error result (where expressible)
  G  a result whose call never existed                     -> orphan
  D  check_health, repeated verbatim in another message;
     answered twice                                        -> identical duplicate, duplicate result
  E  read_file, repeated as write_file                     -> conflicting duplicate
  F  search_documents with {}, repeated with a query       -> enriched duplicate
  A  read_file again after A was answered; answered        -> reused
  U  a tool no registry declares; answered                 -> violation (with --registry)
  a line that is not JSON                                  -> unreadable (line formats only)
  C  deploy_service, never answered                        -> unanswered, interrupted
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[2] / "transcripts" / "grid"

# (kind, id, tool, input, message, error): kind is call | result | garbage
Step = tuple[str, str, str, dict[str, Any], str, bool]
SCENARIO: list[Step] = [
    ("call", "id_T", "Task", {"prompt": "count the files"}, "m1", False),
    ("call", "id_S", "list_directory", {"directory": "."}, "m2", False),
    ("result", "id_S", "", {}, "", False),
    ("result", "id_T", "", {}, "", False),
    ("call", "id_A", "read_file", {"path": "a.txt"}, "m3", False),
    ("result", "id_A", "", {}, "", False),
    ("call", "id_B", "run_tests", {}, "m4", False),
    ("result", "id_B", "", {}, "", True),
    ("result", "id_G", "", {}, "", False),
    ("call", "id_D", "check_health", {"service": "api"}, "m5", False),
    ("call", "id_D", "check_health", {"service": "api"}, "m6", False),
    ("result", "id_D", "", {}, "", False),
    ("result", "id_D", "", {}, "", False),
    ("call", "id_E", "read_file", {"path": "e.txt"}, "m7", False),
    ("call", "id_E", "write_file", {"path": "e.txt"}, "m8", False),
    ("result", "id_E", "", {}, "", False),
    ("call", "id_F", "search_documents", {}, "m9", False),
    ("call", "id_F", "search_documents", {"query": "runbook"}, "m10", False),
    ("result", "id_F", "", {}, "", False),
    ("call", "id_A", "read_file", {"path": "b.txt"}, "m11", False),
    ("result", "id_A", "", {}, "", False),
    ("call", "id_U", "not_a_registry_tool", {}, "m12", False),
    ("result", "id_U", "", {}, "", False),
    ("garbage", "", "", {}, "", False),
    ("call", "id_C", "deploy_service", {"service": "api", "environment": "prod"}, "m13", False),
]
INSIDE_TASK = {"id_S"}  # calls made by the sub-agent
TIME = "2026-01-01T00:00:{:02d}Z"


def _lines(render: Callable[[int, Step], dict[str, Any] | None]) -> str:
    out = []
    for n, step in enumerate(SCENARIO):
        if step[0] == "garbage":
            out.append("{this line is not json")
            continue
        obj = render(n, step)
        if obj is not None:
            out.append(json.dumps(obj))
    return "\n".join(out) + "\n"


def claude_code(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, msg, error = step
    base = {"uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None, "sessionId": "s",
            "timestamp": TIME.format(n), "isSidechain": False}  # fmt: skip
    if kind == "call":
        block = {"type": "tool_use", "id": cid, "name": tool, "input": args}
        return {**base, "type": "assistant", "message": {"id": msg, "role": "assistant", "content": [block]}}  # fmt: skip
    block = {"type": "tool_result", "tool_use_id": cid, "content": "failed" if error else "ok", "is_error": error}  # fmt: skip
    return {**base, "type": "user", "message": {"role": "user", "content": [block]}}


def stream_json(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, msg, error = step
    parent = "id_T" if cid in INSIDE_TASK else None
    if kind == "call":
        block = {"type": "tool_use", "id": cid, "name": tool, "input": args}
        return {"type": "assistant", "session_id": "s", "parent_tool_use_id": parent,
                "message": {"id": msg, "role": "assistant", "content": [block]}}  # fmt: skip
    block = {"type": "tool_result", "tool_use_id": cid, "content": "ok", "is_error": error}
    return {"type": "user", "session_id": "s", "parent_tool_use_id": parent,
            "message": {"role": "user", "content": [block]}}  # fmt: skip


def anthropic(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, msg, error = step
    if kind == "call":
        return {"role": "assistant", "id": msg, "content": [{"type": "tool_use", "id": cid, "name": tool, "input": args}]}  # fmt: skip
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": "ok", "is_error": error}]}  # fmt: skip


def openai_chat(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, _msg, error = step
    if kind == "call":
        call = {"id": cid, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}  # fmt: skip
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"role": "tool", "tool_call_id": cid, "content": "error: failed" if error else "ok"}


def openai_responses(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, _msg, _error = step
    if kind == "call":
        return {"type": "function_call", "id": f"fc_{n}", "call_id": cid, "name": tool, "arguments": json.dumps(args)}  # fmt: skip
    return {"type": "function_call_output", "call_id": cid, "output": "ok"}


def codex_rollout(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, _msg, error = step
    if kind == "call":
        payload = {"type": "function_call", "name": tool, "arguments": json.dumps(args), "call_id": cid}  # fmt: skip
    else:
        output = json.dumps({"output": "x", "metadata": {"exit_code": 1 if error else 0}})
        payload = {"type": "function_call_output", "call_id": cid, "output": output}
    return {"timestamp": TIME.format(n), "type": "response_item", "payload": payload}


def codex_exec(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, _msg, error = step
    if kind == "call":
        item = {
            "id": cid,
            "type": "mcp_tool_call",
            "server": "s",
            "tool": tool,
            "status": "in_progress",
        }
        if args:
            item["arguments"] = args
        return {"type": "item.started", "item": item}
    status = "failed" if error else "completed"
    return {
        "type": "item.completed",
        "item": {"id": cid, "type": "mcp_tool_call", "status": status},
    }


def copilot_cli(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, msg, error = step
    base = {"id": f"e{n}", "timestamp": TIME.format(n), "parentId": f"e{n - 1}" if n else None}
    parent = {"parentToolCallId": "id_T"} if cid in INSIDE_TASK else {}
    if kind == "call":
        request = {"toolCallId": cid, "name": tool, "arguments": args, "type": "function"}
        data = {"messageId": msg, "content": "", "toolRequests": [request], **parent}
        return {"type": "assistant.message", "data": data, **base}
    result = {"content": "failed" if error else "ok"}
    data = {"toolCallId": cid, "success": not error, "result": result, **parent}
    return {"type": "tool.execution_complete", "data": data, **base}


def droid(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, msg, error = step
    base = {"session_id": "s", "timestamp": 1767812640000 + n * 1000, "id": cid}
    if kind == "call":
        return {"type": "tool_call", "messageId": msg, "toolId": tool, "toolName": tool, "parameters": args, **base}  # fmt: skip
    return {"type": "tool_result", "messageId": f"r{n}", "toolId": "tool", "isError": error, "value": "ok", **base}  # fmt: skip


def gemini_stream_json(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, _msg, error = step
    if kind == "call":
        return {"type": "tool_use", "tool_name": tool, "tool_id": cid, "parameters": args, "timestamp": TIME.format(n)}  # fmt: skip
    status = "error" if error else "success"
    return {"type": "tool_result", "tool_id": cid, "status": status, "output": "ok", "timestamp": TIME.format(n)}  # fmt: skip


def grok_cli(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, _msg, _error = step
    if kind == "call":
        call = {"id": cid, "name": tool, "arguments": json.dumps(args)}
        return {"type": "assistant", "content": "", "tool_calls": [call], "model_id": "grok-x"}
    return {"type": "tool_result", "tool_call_id": cid, "content": "ok"}


def pi(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, _msg, error = step
    base = {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}" if n else None, "timestamp": TIME.format(n)}  # fmt: skip
    if kind == "call":
        block = {"type": "toolCall", "id": cid, "name": tool, "arguments": args}
        return {**base, "message": {"role": "assistant", "content": [block]}}
    text = [{"type": "text", "text": "failed" if error else "ok"}]
    result = {"role": "toolResult", "toolCallId": cid, "toolName": "tool", "content": text, "isError": error}  # fmt: skip
    return {**base, "message": result}


def openhands(n: int, step: Step) -> dict[str, Any]:
    kind, cid, tool, args, _msg, error = step
    base = {"id": n, "timestamp": TIME.format(n), "source": "agent", "message": ""}
    if kind == "call":
        metadata = {"function_name": tool, "tool_call_id": cid}
        return {**base, "action": "run", "args": args, "tool_call_metadata": metadata}
    metadata = {"function_name": "tool", "tool_call_id": cid}
    observation = "error" if error else "run"
    return {**base, "cause": n - 1, "observation": observation, "content": "ok", "extras": {}, "tool_call_metadata": metadata}  # fmt: skip


def openhands_document() -> str:
    events = [openhands(n, s) for n, s in enumerate(SCENARIO) if s[0] != "garbage"]
    return json.dumps(events, indent=1) + "\n"


def swe_agent() -> str:
    history = [openai_chat(n, s) for n, s in enumerate(SCENARIO) if s[0] != "garbage"]
    return json.dumps({"history": history, "info": {}}, indent=1) + "\n"


def openai_chat_document() -> str:
    messages = [openai_chat(n, s) for n, s in enumerate(SCENARIO) if s[0] != "garbage"]
    return json.dumps({"model": "gpt-x", "messages": messages}, indent=1) + "\n"


def anthropic_document() -> str:
    messages = [anthropic(n, s) for n, s in enumerate(SCENARIO) if s[0] != "garbage"]
    return json.dumps(messages, indent=1) + "\n"


FILES: dict[str, Callable[[], str]] = {
    "claude-code.jsonl": lambda: _lines(claude_code),
    "stream-json.jsonl": lambda: _lines(stream_json),
    "anthropic-messages.jsonl": lambda: _lines(anthropic),
    "anthropic-messages.json": anthropic_document,
    "openai-chat.jsonl": lambda: _lines(openai_chat),
    "openai-chat.json": openai_chat_document,
    "openai-responses.jsonl": lambda: _lines(openai_responses),
    "codex-rollout.jsonl": lambda: _lines(codex_rollout),
    "codex-exec.jsonl": lambda: _lines(codex_exec),
    "swe-agent.traj": swe_agent,
    "copilot-cli.jsonl": lambda: _lines(copilot_cli),
    "droid.jsonl": lambda: _lines(droid),
    "gemini-stream-json.jsonl": lambda: _lines(gemini_stream_json),
    "grok-cli.jsonl": lambda: _lines(grok_cli),
    "pi.jsonl": lambda: _lines(pi),
    "openhands.json": openhands_document,
}


def main(argv: list[str]) -> int:
    stale = []
    for name, make in FILES.items():
        path = OUT / name
        text = make()
        if "--check" in argv:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    for name in stale:
        print(f"transcripts/grid/{name} is stale: run python tests/replay/grid.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
