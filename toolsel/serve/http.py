"""The HTTP API of `toolsel serve` (FastAPI): `/v1/...`, the reference design's `/agent/...`
paths, `/healthz` and `/readyz`; OpenAPI at `/openapi.json`, docs at `/docs`; the read-only
dashboard at `/` (`toolsel.serve.dashboard`).

Every handler reads its body itself (so a malformed body gets one clear 4xx, in the same
`{"error": ...}` shape everywhere) and runs one `Service` method on the work pool
(`toolsel.serve.work`), never on the event loop. `toolsel.serve.guard` refuses foreign
hosts and origins, a missing token, non-JSON bodies and oversized ones before any handler.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response

from toolsel import __version__
from toolsel.serve.guard import Guard, HostPolicy
from toolsel.serve.limits import ANALYTICS_BUDGET, BODY_TIMEOUT, MAX_BODY
from toolsel.serve.responses import error_response, json_response
from toolsel.serve.service import RequestError, Service
from toolsel.serve.work import WorkPool

#: A run of digits long enough to be an integer orjson cannot hold exactly (anywhere,
#: strings included: such a body is read by the standard library, exactly and a bit slower).
LONG_NUMBER = re.compile(rb"\d{19}")

STRING = {"type": "string"}
STRINGS = {"type": "array", "items": STRING}


def _object_body(description: str, properties: dict[str, Any], required: list[str]) -> Any:
    """An OpenAPI request body, for the docs (the handler validates the body itself)."""
    schema = {"type": "object", "properties": properties, "required": required}
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {"application/json": {"schema": schema}},
        }
    }


class Bodies:
    """Reads request bodies: capped in size and in time, JSON only."""

    def __init__(self, max_body: int, timeout: float) -> None:
        self.max_body = max_body
        self.timeout = timeout

    async def json(self, request: Request) -> Any:
        import orjson

        raw = await self._read(request)
        if not raw.strip():
            raise RequestError("empty request body: send a JSON object")
        try:
            if LONG_NUMBER.search(raw):  # orjson would read an integer over 64 bits as a float
                import json

                return json.loads(raw)
            return orjson.loads(raw)
        except RecursionError:
            raise RequestError("request body is not JSON: nested too deeply") from None
        except (ValueError, UnicodeDecodeError) as error:
            raise RequestError(f"request body is not JSON: {shown_error(error)}") from None

    async def object(self, request: Request) -> dict[str, Any]:
        value = await self.json(request)
        if not isinstance(value, dict):
            raise RequestError("request body must be a JSON object", 422)
        return value

    async def _read(self, request: Request) -> bytes:
        from starlette.requests import ClientDisconnect

        chunks = []
        size = 0
        try:
            async with asyncio.timeout(self.timeout):
                async for chunk in request.stream():  # a body without Content-Length too
                    size += len(chunk)
                    if size > self.max_body:
                        raise RequestError(f"request body over {self.max_body} bytes", 413)
                    chunks.append(chunk)
        except TimeoutError:
            raise RequestError(
                f"request body not received within {self.timeout:g} s", 408
            ) from None
        except ClientDisconnect:
            raise RequestError(
                "the client closed the connection before sending its body", 400
            ) from None
        return b"".join(chunks)


def shown_error(error: Exception) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:199] + "…"


def create_app(
    service: Service,
    *,
    token: str | None = None,
    max_body: int = MAX_BODY,
    mcp_server: Any = None,
    host: str = "127.0.0.1",
    policy: HostPolicy | None = None,
    pool: WorkPool | None = None,
    body_timeout: float = BODY_TIMEOUT,
    on_close: Callable[[], None] | None = None,
    analytics_budget: float = ANALYTICS_BUDGET,
) -> FastAPI:
    """The app. `policy` says which Host names and Origins it answers (default: those of
    `host`); `pool` runs the work (default: a new one, closed with the app); analytics
    run on workers of their own, each request within `analytics_budget` seconds; with
    `mcp_server` (an `MCPServer`), MCP over streamable HTTP at `/mcp`; `on_close` runs
    when the server shuts down."""
    from contextlib import AsyncExitStack, asynccontextmanager

    from toolsel.serve.analytics import analytics_pool

    work = pool or WorkPool()
    analytics = analytics_pool(analytics_budget)
    bodies = Bodies(max_body, body_timeout)
    mcp_app = None
    if mcp_server is not None:
        mcp_app = mcp_server.streamable_http_app(streamable_http_path="/mcp", host=host)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        from toolsel.serve.connections import quiet_loop_errors

        quiet_loop_errors(asyncio.get_running_loop())
        async with AsyncExitStack() as stack:
            if on_close is not None:
                stack.callback(on_close)
            if pool is None:
                stack.callback(work.close)
            stack.callback(analytics.close)
            if mcp_server is not None:
                await stack.enter_async_context(mcp_server.session_manager.run())
            yield

    app = FastAPI(
        lifespan=lifespan,
        title="toolsel",
        version=__version__,
        description="Tool selection as a service: rank, select and validate tool calls "
        "against a registry, and record how calls went.",
    )

    @app.exception_handler(RequestError)
    async def request_error(request: Request, error: RequestError) -> Response:
        return error_response(str(error), error.status, error.reason)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> Response:
        import logging

        logging.getLogger("toolsel.serve").exception("unexpected error on %s", request.url.path)
        return error_response("internal error (logged by the server)", 500)

    app.include_router(_health_routes(service, work))
    app.include_router(_v1_routes(service, work, bodies, analytics))
    app.include_router(_agent_routes(service, work, bodies, analytics))
    from toolsel.serve.dashboard import dashboard_routes

    app.include_router(dashboard_routes())
    if mcp_app is not None:
        app.mount("/", mcp_app)
    app.add_middleware(
        Guard, token=token, max_body=max_body, policy=policy or HostPolicy.for_bind(host)
    )
    return app


def _health_routes(service: Service, work: WorkPool) -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz")
    async def healthz() -> Response:
        """The process is up (answered on the event loop, whatever the workers do)."""
        return json_response({"ok": True})

    @router.get("/readyz")
    async def readyz() -> Response:
        """Ready to serve: the registry is loaded and the store answers (503 when not);
        `last_reload_error` says why the last reload failed."""
        ready, body = await work.run(service.ready)
        return json_response(body, 200 if ready else 503)

    return router


def _v1_routes(
    service: Service, work: WorkPool, bodies: Bodies, analytics_work: WorkPool
) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["v1"])

    @router.post(
        "/rank",
        openapi_extra=_object_body(
            "A prompt to rank the registry's tools for (`select:A,B` looks tools up).",
            {
                "query": STRING,
                "method": STRING,
                "top": {"type": "integer"},
                "permission": STRING,
                "categories": STRINGS,
                "tags": STRINGS,
                "include_deprecated": {"type": "boolean"},
                "min_score": {"type": "number"},
                "min_strength": {"type": "number"},
                "explain": {"type": "boolean"},
            },
            ["query"],
        ),
    )
    async def rank(request: Request) -> Response:
        """The `toolsel.rank` document, as `toolsel rank --format json` prints it."""
        return json_response(await work.run(service.rank, await bodies.object(request)))

    @router.post(
        "/select",
        openapi_extra=_object_body(
            "Tools to load by name.",
            {"names": STRINGS, "tool_use_id": STRING, "with_deps": {"type": "boolean"}},
            ["names"],
        ),
    )
    async def select(request: Request) -> Response:
        """The `toolsel.select` document: the tool_reference block and diagnostics."""
        return json_response(await work.run(service.select, await bodies.object(request)))

    @router.post(
        "/validate",
        openapi_extra=_object_body(
            "A call to check before it is made.",
            {"tool": STRING, "input": {}, "permission": STRING, "session": STRING},
            ["tool", "input"],
        ),
    )
    async def validate_call(request: Request) -> Response:
        """`{ok, violations}`: the registry checks replay runs on a call."""
        return json_response(await work.run(service.validate, await bodies.object(request)))

    @router.post(
        "/usage",
        openapi_extra=_object_body(
            "One record, a list of them, {records: [...]}, or replay JSONL tool_result events.",
            {
                "tool": STRING,
                "ok": {"type": "boolean"},
                "latency_ms": {"type": "number"},
                "session": STRING,
                "error": STRING,
                "at": STRING,
                "id": STRING,
            },
            ["tool", "ok"],
        ),
    )
    async def usage(request: Request) -> Response:
        """`{received, stored}`; a record whose `id` is already stored is not stored again."""
        return json_response(await work.run(service.usage, await bodies.json(request)))

    @router.get("/analytics")
    async def analytics(
        since: str | None = None, until: str | None = None, session: str | None = None
    ) -> Response:
        """The `toolsel.stats` payload over the stored records: the most-called tools, the
        others summed in `other`; 503 with `"reason": "analytics_budget"` past its budget."""
        query = {k: v for k, v in (("since", since), ("until", until), ("session", session)) if v}
        return json_response(await analytics_work.run(service.analytics, query))

    @router.get("/tools")
    async def tools(emit: str | None = None) -> Response:
        """Every tool, in toolsel's shape or a provider's (`?emit=openai|anthropic|mcp|gemini`)."""
        return json_response(await work.run(service.tools, emit))

    @router.get("/tools/{name}")
    async def tool(name: str, emit: str | None = None) -> Response:
        """One tool, in toolsel's shape or a provider's."""
        return json_response(await work.run(service.tools, emit, name))

    return router


def _agent_routes(
    service: Service, work: WorkPool, bodies: Bodies, analytics_work: WorkPool
) -> APIRouter:
    from toolsel.serve import compat

    router = APIRouter(prefix="/agent", tags=["reference design"])

    @router.post("/select-tools")
    async def agent_select(request: Request) -> Response:
        """`{message, maxTools?, permissionLevel?}` -> `{tools, method, scores}`."""
        body = await bodies.object(request)
        return json_response(await work.run(compat.select_tools, service, body))

    @router.post("/validate")
    async def agent_validate(request: Request) -> Response:
        """`{tool, toolCallHistory?, userId?}` -> `{valid: true}`, or 403/400 with a reason."""
        body = await bodies.object(request)
        status, payload = await work.run(compat.validate, service, body)
        return json_response(payload, status)

    @router.post("/record-usage")
    async def agent_record(request: Request) -> Response:
        """`{tool, success, latencyMs?}` -> `{recorded: true}`."""
        body = await bodies.object(request)
        return json_response(await work.run(compat.record_usage, service, body))

    @router.get("/analytics")
    async def agent_analytics() -> Response:
        """`[{tool, calls, errorRate, avgLatencyMs, lastUsed}]`, most called first; the
        tools past the most called summed in a last `(other)` row."""
        return json_response(await analytics_work.run(compat.analytics, service))

    return router
