"""The HTTP API of `toolsel serve` (FastAPI): `/v1/...`, the reference design's `/agent/...`
paths, `/healthz` and `/readyz`; OpenAPI at `/openapi.json`, docs at `/docs`.

Every handler reads its body itself (so a malformed body gets one clear 4xx, in the same
`{"error": ...}` shape everywhere) and calls one `Service` method. Bodies are capped, a
bearer token guards every route but `/healthz` when one is set, and each request is logged
as one line.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from toolsel import __version__
from toolsel.serve.service import RequestError, Service

log = logging.getLogger("toolsel.serve.access")

#: Request bodies larger than this are refused with 413 (`--max-body`).
MAX_BODY = 1024 * 1024


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


STRING = {"type": "string"}
STRINGS = {"type": "array", "items": STRING}


def create_app(
    service: Service,
    *,
    token: str | None = None,
    max_body: int = MAX_BODY,
    mcp_server: Any = None,
    host: str = "127.0.0.1",
) -> FastAPI:
    """The app; with `mcp_server` (an `MCPServer`), MCP over streamable HTTP at `/mcp`."""
    lifespan = None
    mcp_app = None
    if mcp_server is not None:
        from contextlib import asynccontextmanager

        mcp_app = mcp_server.streamable_http_app(streamable_http_path="/mcp", host=host)

        @asynccontextmanager
        async def lifespan(app: FastAPI) -> Any:
            async with mcp_server.session_manager.run():
                yield

    app = FastAPI(
        lifespan=lifespan,
        title="toolsel",
        version=__version__,
        description="Tool selection as a service: rank, select and validate tool calls "
        "against a registry, and record how calls went.",
    )
    expected = token.encode() if token else None

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Response:
        started = time.perf_counter()
        response = await _guarded(request, call_next)
        log.info(
            "request",
            extra={
                "method": request.method,
                "path": request.url.path,
                "status": response.status_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            },
        )
        return response

    async def _guarded(request: Request, call_next: Any) -> Response:
        path = request.url.path
        if expected is not None and path != "/healthz":
            given = request.headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.encode(), expected):
                return _error("missing or wrong bearer token", 401)
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > max_body):
            return _error(f"request body over {max_body} bytes", 413)
        return await call_next(request)  # type: ignore[no-any-return]

    async def body(request: Request) -> Any:
        chunks = []
        size = 0
        async for chunk in request.stream():  # a body without Content-Length is capped too
            size += len(chunk)
            if size > max_body:
                raise RequestError(f"request body over {max_body} bytes", 413)
            chunks.append(chunk)
        raw = b"".join(chunks)
        if not raw.strip():
            raise RequestError("empty request body: send a JSON object")
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError) as error:
            raise RequestError(f"request body is not JSON: {error}") from None

    async def object_body(request: Request) -> dict[str, Any]:
        value = await body(request)
        if not isinstance(value, dict):
            raise RequestError("request body must be a JSON object", 422)
        return value

    @app.exception_handler(RequestError)
    async def request_error(request: Request, error: RequestError) -> Response:
        return _error(str(error), error.status)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> Response:
        logging.getLogger("toolsel.serve").exception("unexpected error on %s", request.url.path)
        return _error("internal error (logged by the server)", 500)

    # -- health ------------------------------------------------------------------------------
    @app.get("/healthz", tags=["health"])
    def healthz() -> dict[str, Any]:
        """The process is up."""
        return {"ok": True}

    @app.get("/readyz", tags=["health"])
    def readyz() -> dict[str, Any]:
        """The registry is loaded; `last_reload_error` says why the last reload failed."""
        return service.ready()[1]

    # -- /v1 ---------------------------------------------------------------------------------
    @app.post(
        "/v1/rank",
        tags=["v1"],
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
    async def rank(request: Request) -> dict[str, Any]:
        """The `toolsel.rank/v2` document, as `toolsel rank --format json` prints it."""
        return service.rank(await object_body(request))

    @app.post(
        "/v1/select",
        tags=["v1"],
        openapi_extra=_object_body(
            "Tools to load by name.",
            {"names": STRINGS, "tool_use_id": STRING, "with_deps": {"type": "boolean"}},
            ["names"],
        ),
    )
    async def select(request: Request) -> dict[str, Any]:
        """The `toolsel.select/v1` document: the tool_reference block and diagnostics."""
        return service.select(await object_body(request))

    @app.post(
        "/v1/validate",
        tags=["v1"],
        openapi_extra=_object_body(
            "A call to check before it is made.",
            {"tool": STRING, "input": {}, "permission": STRING, "session": STRING},
            ["tool", "input"],
        ),
    )
    async def validate_call(request: Request) -> Response:
        """`{ok, violations}`: the registry checks replay runs on a call."""
        return await _in_thread(service.validate, await object_body(request))

    @app.post(
        "/v1/usage",
        tags=["v1"],
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
        return await _in_thread(service.usage, await body(request))

    @app.get("/v1/analytics", tags=["v1"])
    async def analytics(
        since: str | None = None, until: str | None = None, session: str | None = None
    ) -> Response:
        """The `toolsel.stats/v1` payload over the stored records."""
        query = {k: v for k, v in (("since", since), ("until", until), ("session", session)) if v}
        return await _in_thread(service.analytics, query)

    @app.get("/v1/tools", tags=["v1"])
    def tools(emit: str | None = None) -> Any:
        """Every tool, in toolsel's shape or a provider's (`?emit=openai|anthropic|mcp|gemini`)."""
        return service.tools(emit)

    @app.get("/v1/tools/{name}", tags=["v1"])
    def tool(name: str, emit: str | None = None) -> Any:
        """One tool, in toolsel's shape or a provider's."""
        return service.tools(emit, name)

    # -- the reference design's paths ------------------------------------------------------
    @app.post("/agent/select-tools", tags=["reference design"])
    async def agent_select(request: Request) -> dict[str, Any]:
        """`{message, maxTools?, permissionLevel?}` -> `{tools, method, scores}`."""
        from toolsel.serve.compat import select_tools

        return select_tools(service, await object_body(request))

    @app.post("/agent/validate", tags=["reference design"])
    async def agent_validate(request: Request) -> Response:
        """`{tool, toolCallHistory?, userId?}` -> `{valid: true}`, or 403/400 with a reason."""
        from toolsel.serve.compat import validate

        status, payload = validate(service, await object_body(request))
        return JSONResponse(payload, status_code=status)

    @app.post("/agent/record-usage", tags=["reference design"])
    async def agent_record(request: Request) -> Response:
        """`{tool, success, latencyMs?}` -> `{recorded: true}`."""
        from toolsel.serve.compat import record_usage

        return await _in_thread(record_usage, service, await object_body(request))

    @app.get("/agent/analytics", tags=["reference design"])
    async def agent_analytics() -> Response:
        """`[{tool, calls, errorRate, avgLatencyMs, lastUsed}]`, most called first."""
        from toolsel.serve.compat import analytics as compat_analytics

        return await _in_thread(compat_analytics, service)

    if mcp_app is not None:
        app.mount("/", mcp_app)
    return app


async def _in_thread(function: Any, *args: Any) -> Response:
    """Run a blocking store operation off the event loop; RequestError stays a 4xx."""
    from starlette.concurrency import run_in_threadpool

    try:
        result = await run_in_threadpool(function, *args)
    except RequestError as error:
        return _error(str(error), error.status)
    return JSONResponse(result)


def _error(message: str, status: int) -> Response:
    return JSONResponse({"error": message, "status": status}, status_code=status)
