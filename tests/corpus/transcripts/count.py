"""Independent ground-truth counter for the transcript corpus (standard library only).

Usage: python tests/corpus/transcripts/count.py [FILE ...]   (default: every file listed in
labels.yaml's directory tree). Prints one JSON object per file with the label fields.

This script does NOT import toolsel: it is the second, independent reading of each file,
written format by format from the raw lines. The counting rules are in README.md; in short:

* a *call* is one tool invocation, counted once even when the format logs it twice
  (Codex `function_call` + `exec_command_end`, `codex exec` item.started + item.completed,
  Copilot `toolRequests` + `tool.execution_start`, Cursor started + completed ...);
* a *result* is one reported outcome of a call; formats that carry the outcome inside the
  call record (Gemini `toolCalls[].result`, Responses `web_search_call`/`mcp_call`, event-only
  Codex `*_end` records, opencode `tool` parts with a finished `state`, ...) count a call
  and a result;
* *error_results* are results the format itself marks as failed (`is_error`/`isError` true,
  `status` "error"/"failed", `success` false, a non-zero `exit_code`/`exitCode` field of the
  result record); failures visible only in free text are not counted -- except a format's
  own failure marker: Kimi CLI's context.jsonl writes a failed tool's result as
  `<system>ERROR: ...</system>` (its only error field), Qwen Code's `toolCallResult.status`;
* *unanswered* calls have an id and no result with that id anywhere in the file;
  *orphans* are results whose id matches no call; ids are compared as strings;
* *duplicate_ids* counts ids used by more than one call (or by more than one result);
* calls or results without an id are counted in calls_without_id / results_without_id
  and are never unanswered or orphans.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class Tally:
    def __init__(self) -> None:
        self.calls: list[tuple[str | None, str]] = []  # (id, tool name)
        self.results: list[tuple[str | None, bool]] = []  # (id, is_error)
        self.subagent_links = 0
        self.unreadable_lines = 0
        self.format = "unknown"

    def call(self, cid: Any, name: Any) -> None:
        self.calls.append((None if cid in (None, "") else str(cid), str(name or "?")))

    def result(self, cid: Any, error: bool = False) -> None:
        self.results.append((None if cid in (None, "") else str(cid), bool(error)))

    def summary(self) -> dict[str, Any]:
        call_ids = [c for c, _ in self.calls if c is not None]
        result_ids = [r for r, _ in self.results if r is not None]
        cset, rset = set(call_ids), set(result_ids)
        # Calls without an id are answered by position: each takes one result that has no id
        # or an id that matches no call (Cursor transcripts answer id-less calls with t1, t2).
        idless_calls = sum(1 for c, _ in self.calls if c is None)
        idless_results = sum(1 for r, _ in self.results if r is None)
        loose_ids = [r for r in result_ids if r not in cset]
        paired = min(idless_calls, idless_results + len(loose_ids))
        orphan_count = len(loose_ids) - max(0, paired - idless_results)
        unanswered = sorted(cset - rset)
        dup = {i for i, n in Counter(call_ids).items() if n > 1}
        dup |= {i for i, n in Counter(result_ids).items() if n > 1}
        return {
            "format": self.format,
            "calls": len(self.calls),
            "results": len(self.results),
            "error_results": sum(1 for _, e in self.results if e),
            "unanswered": len(unanswered) + idless_calls - paired,
            "unanswered_ids": unanswered,
            "orphans": orphan_count,
            "orphan_ids": sorted(set(loose_ids)) if orphan_count else [],
            "duplicate_ids": len(dup),
            "calls_without_id": idless_calls,
            "results_without_id": idless_results,
            "subagent_links": self.subagent_links,
            "tools": dict(sorted(Counter(n for _, n in self.calls).items())),
            "unreadable_lines": self.unreadable_lines,
        }


def read_records(path: Path, t: Tally) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            return [json.loads(text)]
        except json.JSONDecodeError:
            # `opencode export` prints a banner line ("Exporting session: ...") before the
            # JSON document: each leading line that does not open a JSON value is unreadable.
            lines = text.splitlines(keepends=True)
            while lines and not lines[0].lstrip().startswith(("{", "[")):
                if lines.pop(0).strip():
                    t.unreadable_lines += 1
            return [json.loads("".join(lines))]
    if path.name.endswith(".chat.history.md"):  # Aider's Markdown history: no JSON at all
        t.unreadable_lines += sum(1 for line in text.splitlines() if line.strip())
        return []
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            t.unreadable_lines += 1
    return out


def _nonzero(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value != 0


# --- Anthropic-style messages: Claude Code sessions, stream-json, Amp, Cursor transcripts ---
def server_error(block: dict[str, Any]) -> bool:
    """`is_error` true, or (server tools) a content object `*_error`, or a code run whose
    `return_code` is not 0."""
    content = block.get("content")
    if block.get("is_error") is True:
        return True
    if isinstance(content, dict):
        return str(content.get("type") or "").endswith("_error") or _nonzero(
            content.get("return_code")
        )
    return False


def anthropic_blocks(t: Tally, recs: list[Any], subagent_files: set[str]) -> None:
    agent_calls: dict[str, str] = {}
    for r in recs:
        if not isinstance(r, dict):
            continue
        rtype = r.get("type")
        if rtype == "tool_use" and "message" not in r:  # old flat record (schema drift)
            t.call(r.get("id"), r.get("name"))
            continue
        if rtype == "tool_result" and "message" not in r:
            t.result(r.get("tool_use_id"), r.get("is_error") is True)
            continue
        msg = r.get("message")
        if not isinstance(msg, dict) and isinstance(r.get("content"), list) and "role" in r:
            msg = r  # an Anthropic Messages API message itself (a response object)
        if not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
            continue
        for b in msg["content"]:
            if not isinstance(b, dict):
                continue
            btype = str(b.get("type") or "")
            if btype in ("tool_use", "server_tool_use", "mcp_tool_use"):
                t.call(b.get("id"), b.get("name"))
                if b.get("name") in ("Task", "Agent") and b.get("id"):
                    agent_calls[str(b["id"])] = ""
            elif btype == "tool_result" or btype.endswith("_tool_result"):
                # server tools answer in the same message: web_search_tool_result, ...
                t.result(b.get("tool_use_id"), server_error(b))
                tur = r.get("toolUseResult") or r.get("tool_use_result")
                tid = b.get("tool_use_id")
                agent = (tur.get("agentId") if isinstance(tur, dict) else None) or r.get("agentId")
                if agent and tid in agent_calls:
                    agent_calls[tid] = str(agent)
    # a Task/Agent call is linked when its sub-agent's messages are in this file
    # (stream-json parent_tool_use_id) or in a sub-agent file next to it.
    parents = {
        str(r.get("parent_tool_use_id"))
        for r in recs
        if isinstance(r, dict) and r.get("parent_tool_use_id")
    }
    sidechain_agents = {
        str(r.get("agentId"))
        for r in recs
        if isinstance(r, dict) and r.get("isSidechain") and r.get("agentId")
    }
    for cid, agent in agent_calls.items():
        if cid in parents or (
            agent and (f"agent-{agent}" in subagent_files or agent in sidechain_agents)
        ):
            t.subagent_links += 1


# --- Codex rollout (~/.codex/sessions/.../rollout-*.jsonl) ---
CODEX_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"}
CODEX_OUTPUTS = {
    "function_call_output",
    "custom_tool_call_output",
    "tool_search_output",
    "local_shell_call_output",
}
CODEX_INLINE = {"web_search_call", "image_generation_call"}  # no call_id; outcome in the item
CODEX_END_EVENTS = {"exec_command_end", "mcp_tool_call_end", "patch_apply_end", "web_search_end"}


def codex_rollout(t: Tally, recs: list[Any]) -> None:
    item_ids: set[str] = set()
    inline_searches: list[dict[str, Any]] = []
    ends: list[dict[str, Any]] = []
    for r in recs:
        if not isinstance(r, dict) or not isinstance(r.get("payload"), dict):
            continue
        p = r["payload"]
        kind = p.get("type")
        if r.get("type") == "response_item":
            if kind in CODEX_CALLS:
                t.call(p.get("call_id"), p.get("name") or kind)
                if p.get("call_id"):
                    item_ids.add(str(p["call_id"]))
            elif kind in CODEX_OUTPUTS:
                out = p.get("output")
                err = isinstance(out, dict) and (out.get("success") is False)
                t.result(p.get("call_id"), err)
            elif kind in CODEX_INLINE:
                # no call_id: counted as a call and, when completed/failed, a result, by item id
                t.call(None, kind)
                if p.get("status") in ("completed", "failed"):
                    t.result(None, p.get("status") == "failed")
                if kind == "web_search_call":
                    inline_searches.append(p)
        elif r.get("type") == "event_msg" and kind in CODEX_END_EVENTS:
            ends.append(p)
        elif r.get("type") == "event_msg" and kind == "collab_tool_call" and p.get("new_thread_id"):
            t.subagent_links += 1  # spawn_agent names the thread (rollout) of the sub-agent
    for p in ends:
        cid = p.get("call_id")
        if cid and str(cid) in item_ids:
            continue  # same action as a response_item call: counted once
        if p.get("type") == "web_search_end" and inline_searches:
            inline_searches.pop(0)  # the web_search_call item already counted this search
            continue
        name = {
            "exec_command_end": "exec_command",
            "mcp_tool_call_end": "mcp_tool_call",
            "patch_apply_end": "apply_patch",
            "web_search_end": "web_search",
        }[p["type"]]
        if p["type"] == "mcp_tool_call_end":
            inv = p.get("invocation") or {}
            name = f"mcp:{inv.get('server')}/{inv.get('tool')}"
        res = p.get("result")
        err = (
            (p.get("success") is False)
            or _nonzero(p.get("exit_code"))
            or (
                isinstance(res, dict)
                and (
                    "Err" in res
                    or (isinstance(res.get("Ok"), dict) and res["Ok"].get("isError") is True)
                )
            )
        )
        t.call(cid, name)  # reported only on completion: a call and a result
        t.result(cid, bool(err))


# --- codex exec --json ---
EXEC_TOOL_ITEMS = {"command_execution", "file_change", "mcp_tool_call", "web_search"}


def codex_exec(t: Tally, recs: list[Any]) -> None:
    seen: dict[str, str] = {}
    done: set[str] = set()
    for r in recs:
        if not isinstance(r, dict) or not isinstance(r.get("item"), dict):
            continue
        it = r["item"]
        if it.get("type") not in EXEC_TOOL_ITEMS:
            continue
        iid = str(it.get("id"))
        if iid not in seen:
            seen[iid] = it["type"]
            t.call(iid, it["type"])
        if r.get("type") == "item.completed" and iid not in done:
            done.add(iid)
            err = it.get("status") == "failed" or _nonzero(it.get("exit_code"))
            t.result(iid, err)


# --- Gemini CLI chat recording (.json or .jsonl) ---
def gemini_recording(t: Tally, recs: list[Any]) -> None:
    msgs: list[Any] = []
    for r in recs:
        if isinstance(r, dict) and isinstance(r.get("messages"), list):
            msgs.extend(r["messages"])
        else:
            msgs.append(r)
    latest: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for m in msgs:  # a .jsonl recording may re-write a message with the same id: keep the last
        if isinstance(m, dict) and m.get("type") == "gemini" and m.get("id"):
            if m["id"] not in latest:
                order.append(m["id"])
            latest[m["id"]] = m
    for mid in order:
        for tc in latest[mid].get("toolCalls") or []:
            t.call(tc.get("id"), tc.get("name"))
            if "result" in tc or tc.get("status") in ("success", "error", "cancelled"):
                t.result(tc.get("id"), tc.get("status") in ("error", "cancelled"))


def gemini_stream(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        if r.get("type") == "tool_use":
            t.call(r.get("tool_id"), r.get("tool_name"))
        elif r.get("type") == "tool_result":
            t.result(r.get("tool_id"), r.get("status") == "error")


# --- GitHub Copilot CLI events.jsonl ---
def copilot(t: Tally, recs: list[Any]) -> None:
    seen: set[Any] = set()
    for r in recs:
        d = r.get("data") or {}
        if r.get("type") == "assistant.message":
            for tr in d.get("toolRequests") or []:
                if tr.get("toolCallId") not in seen:
                    seen.add(tr.get("toolCallId"))
                    t.call(tr.get("toolCallId"), tr.get("name"))
        elif r.get("type") == "tool.execution_start":
            if d.get("toolCallId") not in seen:
                seen.add(d.get("toolCallId"))
                t.call(d.get("toolCallId"), d.get("toolName"))
        elif r.get("type") == "tool.execution_complete":
            t.result(d.get("toolCallId"), d.get("success") is False)


# --- Cursor agent --output-format stream-json ---
def cursor_stream(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        if r.get("type") != "tool_call":
            continue
        tc = r.get("tool_call") or {}
        name = next(iter(tc), "?")
        if r.get("subtype") == "started":
            t.call(r.get("call_id"), name)
        elif r.get("subtype") == "completed":
            res = (tc.get(name) or {}).get("result") or {}
            err = (
                "error" in res
                or "rejected" in res
                or _nonzero((res.get("success") or {}).get("exitCode"))
            )
            t.result(r.get("call_id"), err)


# --- OpenHands trajectory (list of events) ---
def openhands(t: Tally, recs: list[Any]) -> None:
    events = recs[0] if len(recs) == 1 and isinstance(recs[0], list) else recs
    for e in events:
        meta = e.get("tool_call_metadata")
        if not isinstance(meta, dict):
            continue
        if "action" in e:
            t.call(meta.get("tool_call_id"), meta.get("function_name"))
        elif "observation" in e:
            extras = e.get("extras") or {}
            err = (
                e["observation"] == "error"
                or _nonzero(extras.get("exit_code"))
                or _nonzero((extras.get("metadata") or {}).get("exit_code"))
            )
            t.result(meta.get("tool_call_id"), err)


# --- OpenAI Responses object ---
def responses(t: Tally, recs: list[Any]) -> None:
    for it in recs[0].get("output") or []:
        kind = it.get("type")
        if kind in (
            "function_call",
            "custom_tool_call",
            "local_shell_call",
            "tool_search_call",
            "shell_call",
        ):
            t.call(it.get("call_id"), it.get("name") or kind)
        elif kind in (
            "function_call_output",
            "custom_tool_call_output",
            "tool_search_output",
            "local_shell_call_output",
            "shell_call_output",
        ):
            t.result(it.get("call_id"), False)
        elif kind in (  # hosted tools: the call and its outcome in one item
            "web_search_call",
            "file_search_call",
            "mcp_call",
            "image_generation_call",
            "code_interpreter_call",
        ):
            t.call(it.get("id"), it.get("name") or kind)
            t.result(it.get("id"), it.get("status") == "failed" or bool(it.get("error")))


# --- pi / OpenClaw session JSONL (toolCall / toolResult messages) ---
def pi_like(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        m = r.get("message") if isinstance(r, dict) else None
        if not isinstance(m, dict):
            continue
        if m.get("role") == "assistant" and isinstance(m.get("content"), list):
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "toolCall":
                    t.call(b.get("id"), b.get("name"))
        elif m.get("role") == "toolResult":
            t.result(m.get("toolCallId"), m.get("isError") is True)


# --- Kimi Code CLI wire log ---
def kimi(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        ev = r.get("event") if r.get("type") == "context.append_loop_event" else None
        if not isinstance(ev, dict):
            continue
        if ev.get("type") == "tool.call":
            t.call(ev.get("toolCallId"), ev.get("name"))
        elif ev.get("type") == "tool.result":
            t.result(ev.get("toolCallId"), (ev.get("result") or {}).get("isError") is True)


# --- Factory Droid stream-json, CodeBuddy, Grok CLI, Antigravity, chat lists ---
def droid(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        if r.get("type") == "tool_call":
            t.call(r.get("id"), r.get("toolName"))
        elif r.get("type") == "tool_result":
            t.result(r.get("id"), r.get("isError") is True)


def codebuddy(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        if r.get("type") == "function_call":
            t.call(r.get("call_id") or r.get("id"), r.get("name"))
        elif r.get("type") == "function_call_result":
            t.result(r.get("call_id") or r.get("id"), r.get("is_error") is True)


def grok(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        if r.get("type") == "assistant":
            for tc in r.get("tool_calls") or []:
                t.call(tc.get("id"), tc.get("name"))
        elif r.get("type") == "tool_result":
            t.result(r.get("tool_call_id"), r.get("is_error") is True)
        elif (
            r.get("type") == "backend_tool_call"
        ):  # server-side tool: call and outcome in one record
            k = r.get("kind") or {}
            t.call(k.get("id"), k.get("tool_type"))
            t.result(k.get("id"), k.get("status") == "failed")


def antigravity(t: Tally, recs: list[Any]) -> None:
    started: set[Any] = set()
    for r in recs:
        su = r.get("step_update") or {}
        if not su.get("tool_name"):
            continue
        idx = su.get("step_index")
        if idx not in started:
            started.add(idx)
            t.call(f"step-{idx}", su["tool_name"])
        if su.get("state") in ("DONE", "ERROR", "FAILED"):
            t.result(f"step-{idx}", su.get("state") != "DONE")
            if any(
                s.get("conversation_id")
                for s in (su.get("subagent_info") or {}).get("subagents") or []
            ):
                t.subagent_links += 1


def chat_list(t: Tally, recs: list[Any]) -> None:
    msgs = recs[0] if len(recs) == 1 and isinstance(recs[0], list) else recs
    for m in msgs:
        for tc in m.get("tool_calls") or []:
            t.call(tc.get("id"), (tc.get("function") or {}).get("name"))
        if m.get("role") == "tool":
            t.result(m.get("tool_call_id"), False)


# --- Qwen Code session recording (Claude Code's envelope, Gemini's `parts`) ---
def qwen(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        m = r.get("message") if isinstance(r, dict) else None
        if not isinstance(m, dict):
            continue
        for part in m.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("functionCall"), dict):
                fc = part["functionCall"]
                t.call(fc.get("id"), fc.get("name"))
            elif isinstance(part.get("functionResponse"), dict):
                fr = part["functionResponse"]
                tcr = r.get("toolCallResult") or {}
                err = tcr.get("status") in ("error", "cancelled") or (
                    isinstance(fr.get("response"), dict) and "error" in fr["response"]
                )
                t.result(fr.get("id"), err)


# --- Kimi CLI context.jsonl (chat messages plus `_checkpoint` / `_usage` records) ---
def kimi_context(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        if not isinstance(r, dict):
            continue
        for tc in r.get("tool_calls") or []:
            t.call(tc.get("id"), (tc.get("function") or {}).get("name"))
        if r.get("role") == "tool":
            content = r.get("content")
            first = content[0] if isinstance(content, list) and content else content
            text = first.get("text") if isinstance(first, dict) else first
            # kimi-cli writes a failed tool's result as `<system>ERROR: ...</system>`
            err = isinstance(text, str) and text.startswith("<system>ERROR")
            t.result(r.get("tool_call_id"), err)


# --- Goose: session JSONL (`content` blocks) or `messages`-table rows (`content_json`) ---
def _goose_blocks(r: dict[str, Any]) -> list[Any]:
    blocks = r.get("content")
    if isinstance(r.get("content_json"), str):
        try:
            blocks = json.loads(r["content_json"])
        except json.JSONDecodeError:
            blocks = None
    return blocks if isinstance(blocks, list) else []


def goose(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        if not isinstance(r, dict):
            continue
        for b in _goose_blocks(r):
            if not isinstance(b, dict):
                continue
            if b.get("type") == "toolRequest":
                call = b.get("toolCall") or {}
                t.call(b.get("id"), (call.get("value") or {}).get("name"))
            elif b.get("type") == "toolResponse":
                res = b.get("toolResult") or {}
                t.result(b.get("id"), res.get("status") == "error")


# --- Continue session file (one JSON object with `history[]`) ---
def continue_session(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        answered: set[Any] = set()
        items = (r.get("history") or []) if isinstance(r, dict) else []
        for item in items:
            m = item.get("message") or {}
            if m.get("role") == "tool":
                answered.add(m.get("toolCallId"))
                t.result(m.get("toolCallId"), False)
        for item in items:
            m = item.get("message") or {}
            for tc in m.get("toolCalls") or []:
                t.call(tc.get("id"), (tc.get("function") or {}).get("name"))
            for st in item.get("toolCallStates") or []:  # outcome kept on the call's item
                if st.get("toolCallId") not in answered and st.get("status") in (
                    "done",
                    "errored",
                    "canceled",
                ):
                    t.result(st.get("toolCallId"), st.get("status") != "done")


# --- opencode: `opencode export` JSON, or event rows / `run --format json` events ---
def _opencode_parts(recs: list[Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for r in recs:
        if not isinstance(r, dict):
            continue
        for msg in r.get("messages") or []:  # export: {info, messages: [{info, parts}]}
            parts.extend(p for p in msg.get("parts") or [] if isinstance(p, dict))
        for holder in (r, r.get("data") or {}):  # event rows: {part} or {data: {part}}
            if isinstance(holder, dict) and isinstance(holder.get("part"), dict):
                parts.append(holder["part"])
    return parts


def opencode(t: Tally, recs: list[Any]) -> None:
    for part in _opencode_parts(recs):
        if part.get("type") != "tool":
            continue
        state = part.get("state") or {}
        t.call(part.get("callID"), part.get("tool"))  # outcome inside the call's part
        if state.get("status") in ("completed", "error") or "output" in state or "error" in state:
            t.result(part.get("callID"), state.get("status") == "error" or "error" in state)


# --- VS Code Copilot Chat: a session / "Export Chat" file, or a `.chatreplay.json` export ---
def vscode_chat(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        for req in r.get("requests") or []:
            for part in req.get("response") or []:
                if not isinstance(part, dict) or part.get("kind") != "toolInvocationSerialized":
                    continue  # a `prepareToolInvocation` only announces a call being written
                t.call(part.get("toolCallId"), part.get("toolId"))
                if part.get("isComplete") is True:
                    confirmed = part.get("isConfirmed")
                    details = part.get("resultDetails")
                    err = (
                        confirmed is False
                        or (isinstance(confirmed, dict) and confirmed.get("type") in (0, 5))
                        or (isinstance(details, dict) and details.get("isError") is True)
                    )
                    t.result(part.get("toolCallId"), err)


def vscode_chatreplay(t: Tally, recs: list[Any]) -> None:
    for r in recs:
        for prompt in r.get("prompts") or []:
            for log in prompt.get("logs") or []:
                if log.get("kind") == "toolCall":  # the call and what the tool returned
                    t.call(log.get("id"), log.get("tool"))
                    t.result(log.get("id"), bool(log.get("error")))


def aider_markdown(t: Tally, recs: list[Any]) -> None:
    """Aider's `.aider.chat.history.md` logs no tool calls: edits are text blocks."""


def detect(recs: list[Any]) -> str:
    first = recs[0] if recs else {}
    if isinstance(first, list):
        if first and isinstance(first[0], dict) and "role" in first[0]:
            return "openai-chat"
        return "openhands"
    if isinstance(first, dict) and first.get("object") == "response":
        return "openai-responses"
    if not recs:
        return "aider-markdown"
    dicts = [r for r in recs if isinstance(r, dict)]
    if any(isinstance(r.get("message"), dict) and "parts" in r["message"] for r in dicts):
        return "qwen"
    if any(r.get("role") in ("_checkpoint", "_usage", "_system_prompt") for r in dicts):
        return "kimi-context"
    if any(
        isinstance(b, dict) and b.get("type") in ("toolRequest", "toolResponse")
        for r in dicts
        for b in _goose_blocks(r)
    ):
        return "goose"
    if any(isinstance(r.get("requests"), list) for r in dicts):
        return "vscode-chat"
    if any(isinstance(r.get("prompts"), list) and "exportedAt" in r for r in dicts):
        return "vscode-chatreplay"
    if any(isinstance(r.get("history"), list) and "sessionId" in r for r in dicts):
        return "continue"
    if _opencode_parts(recs) and not any("payload" in r for r in dicts):
        return "opencode"
    types = {r.get("type") for r in recs if isinstance(r, dict)}
    if types & {"session_meta", "response_item", "event_msg", "turn_context"}:
        return "codex"
    if "thread.started" in types or any(isinstance(r, dict) and "item" in r for r in recs):
        return "codex-exec"
    if types & {"session.start", "tool.execution_complete", "assistant.message"}:
        return "copilot"
    if "tool_call" in types and any(
        r.get("subtype") == "started" for r in recs if isinstance(r, dict)
    ):
        return "cursor-stream"
    if "tool_call" in types:
        return "droid"
    if any(isinstance(r, dict) and r.get("event") == "init" for r in recs):
        return "antigravity"
    if types & {"context.append_loop_event", "metadata"}:
        return "kimi"
    if "session" in types or any(
        isinstance(r, dict) and (r.get("message") or {}).get("role") == "toolResult" for r in recs
    ):
        return "pi"
    if types & {"function_call", "session_start"}:
        return "codebuddy"
    if "backend_tool_call" in types or any(
        isinstance(r, dict) and r.get("type") == "assistant" and "tool_calls" in r for r in recs
    ):
        return "grok"
    if any(isinstance(r, dict) and ("projectHash" in r or r.get("type") == "gemini") for r in recs):
        return "gemini"
    if "init" in types and "tool_use" in types:
        return "gemini-stream"
    return "anthropic"


DECODERS = {
    "codex": codex_rollout,
    "codex-exec": codex_exec,
    "copilot": copilot,
    "cursor-stream": cursor_stream,
    "droid": droid,
    "antigravity": antigravity,
    "kimi": kimi,
    "pi": pi_like,
    "codebuddy": codebuddy,
    "grok": grok,
    "gemini": gemini_recording,
    "gemini-stream": gemini_stream,
    "openai-responses": responses,
    "openhands": openhands,
    "openai-chat": chat_list,
    "qwen": qwen,
    "kimi-context": kimi_context,
    "goose": goose,
    "continue": continue_session,
    "opencode": opencode,
    "vscode-chat": vscode_chat,
    "vscode-chatreplay": vscode_chatreplay,
    "aider-markdown": aider_markdown,
}


def count(path: Path) -> dict[str, Any]:
    t = Tally()
    recs = read_records(path, t)
    t.format = detect(recs)
    if t.format == "anthropic":
        sub_dir = path.with_suffix("") / "subagents"
        files = {p.stem for p in sub_dir.rglob("agent-*.jsonl")} if sub_dir.is_dir() else set()
        anthropic_blocks(t, recs, files)
    else:
        DECODERS[t.format](t, recs)
    return t.summary()


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(
        p
        for p in HERE.rglob("*")
        if p.is_file() and (p.suffix in (".jsonl", ".json") or p.name.endswith(".chat.history.md"))
    )
    for p in paths:
        rel = (
            p.resolve().relative_to(HERE).as_posix() if p.resolve().is_relative_to(HERE) else str(p)
        )
        print(json.dumps({"file": rel, **count(p)}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
