"""The reference design's four endpoints (`/agent/select-tools`, `/agent/validate`,
`/agent/record-usage`, `/agent/analytics`), with its request and response shapes, served by
toolsel's own selection, checks and store, so a client written for it works unchanged.

| reference | toolsel |
|---|---|
| `select-tools {message, maxTools=8, permissionLevel="write"}` | `/v1/rank` (hybrid), tools as OpenAI function schemas |
| `validate {tool, toolCallHistory, userId}` | the permission (gate: write) and `requires` checks of `/v1/validate` |
| `record-usage {tool, success, latencyMs}` | `/v1/usage` |
| `analytics` | per-tool calls, error rate, mean latency, last use from the store (the most called, then one `(other)` row) |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolsel.registry.model import Permission
from toolsel.serve.service import Service, store_errors

if TYPE_CHECKING:
    from toolsel.serve.models import AgentSelectRequest, AgentUsageRequest, AgentValidateRequest

#: The reference server's gate for /agent/validate (`new PermissionGate("write")`).
REFERENCE_GATE = Permission.WRITE
#: The name of the row that sums the tools /agent/analytics leaves out.
OTHER = "(other)"


def select_tools(service: Service, request: AgentSelectRequest) -> dict[str, Any]:
    from toolsel.emit import EMITTERS
    from toolsel.ranking.core import rank_index, rank_options

    top = request.maxTools
    snap = service.snapshot
    options = rank_options(top=top, permission=request.permissionLevel)
    result = rank_index(snap.index, request.message, options)
    # the ranked tools first; always-include tools fill what is left of maxTools
    names = [r.name for r in result.results] + [r.name for r in result.always]
    tools = [t for name in names if (t := snap.registry.get(name)) is not None][:top]
    return {
        "tools": EMITTERS["openai"](tools)["tools"],
        "method": result.method,
        "scores": [{"name": r.name, "score": r.score} for r in result.results],
    }


def validate(service: Service, request: AgentValidateRequest) -> tuple[int, dict[str, Any]]:
    tool_name = request.tool
    tool = service.snapshot.registry.get(tool_name)
    if tool is None:
        return 403, {"allowed": False, "reason": f"Unknown tool: {tool_name}"}
    if not REFERENCE_GATE.allows(tool.permission):
        return 403, {
            "allowed": False,
            "reason": f"Tool '{tool_name}' requires '{tool.permission}' permission",
        }
    succeeded = {h.name for h in request.toolCallHistory or () if h.success}
    for required in tool.requires:
        if required not in succeeded:
            return 400, {
                "valid": False,
                "reason": f"Tool '{tool_name}' requires '{required}' to succeed first",
            }
    return 200, {"valid": True}


def record_usage(service: Service, request: AgentUsageRequest) -> dict[str, Any]:
    service.usage(
        {"tool": request.tool, "ok": request.success, "latency_ms": request.latencyMs or 0}
    )
    return {"recorded": True}


def analytics(service: Service) -> list[dict[str, Any]]:
    """The most-called tools (`analytics_tools` of them), then, when others were called,
    one row summing them: `{tool: "(other)", ..., "tools": N}`."""
    from toolsel.serve.analytics import within_budget

    store = service.usage_store()
    with store_errors(), within_budget():
        rows, rest = store.top_summary(service.analytics_tools)
    report = [_row(*row) for row in rows]
    report.sort(key=lambda r: (-int(r["calls"]), str(r["tool"])))
    if rest.tools:
        latency = rest.latency_sum / rest.latency_count if rest.latency_count else None
        other = _row(OTHER, rest.calls, rest.errors, latency, rest.last_at or "")
        report.append({**other, "tools": rest.tools})
    return report


def _row(tool: str, calls: int, failures: int, latency: float | None, last: str) -> dict[str, Any]:
    return {
        "tool": tool,
        "calls": calls,
        "errorRate": f"{round(failures / calls * 100) if calls else 0}%",
        "avgLatencyMs": round(latency, 3) if latency is not None else 0,
        "lastUsed": last,
    }
