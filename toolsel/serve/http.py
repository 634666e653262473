"""The HTTP API of `toolsel serve` (FastAPI): `/v1/...`, the reference design's `/agent/...`
paths, `/healthz` and `/readyz`; OpenAPI at `/openapi.json`, docs at `/docs`.

Every handler reads its body itself (so a malformed body gets one clear 4xx, in the same
`{"error": ...}` shape everywhere) and calls one `Service` method. Bodies are capped, a
bearer token guards every route but `/healthz` when one is set, and each request is logged
as one line.
"""

from __future__ import annotations

import hmac
import logging
import time
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response

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
    on_close: Any = None,
) -> FastAPI:
    """The app; with `mcp_server` (an `MCPServer`), MCP over streamable HTTP at `/mcp`;
    `on_close` runs when the server shuts down (a worker closes its store)."""
    from contextlib import AsyncExitStack, asynccontextmanager

    mcp_app = None
    if mcp_server is not None:
        mcp_app = mcp_server.streamable_http_app(streamable_http_path="/mcp", host=host)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        async with AsyncExitStack() as stack:
            if mcp_server is not None:
                await stack.enter_async_context(mcp_server.session_manager.run())
            if on_close is not None:
                stack.callback(on_close)
            yield

    app = FastAPI(
        lifespan=lifespan,
        title="toolsel",
        version=__version__,
        description="Tool selection as a service: rank, select and validate tool calls "
        "against a registry, and record how calls went.",
    )

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
            return orjson.loads(raw)
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
    def readyz() -> Response:
        """The registry is loaded; `last_reload_error` says why the last reload failed."""
        return _json(service.ready()[1])

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
    async def rank(request: Request) -> Response:
        """The `toolsel.rank/v2` document, as `toolsel rank --format json` prints it."""
        return _json(service.rank(await object_body(request)))

    @app.post(
        "/v1/select",
        tags=["v1"],
        openapi_extra=_object_body(
            "Tools to load by name.",
            {"names": STRINGS, "tool_use_id": STRING, "with_deps": {"type": "boolean"}},
            ["names"],
        ),
    )
    async def select(request: Request) -> Response:
        """The `toolsel.select/v1` document: the tool_reference block and diagnostics."""
        return _json(service.select(await object_body(request)))

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
    def tools(emit: str | None = None) -> Response:
        """Every tool, in toolsel's shape or a provider's (`?emit=openai|anthropic|mcp|gemini`)."""
        return _json(service.tools(emit))

    @app.get("/v1/tools/{name}", tags=["v1"])
    def tool(name: str, emit: str | None = None) -> Response:
        """One tool, in toolsel's shape or a provider's."""
        return _json(service.tools(emit, name))

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
        return _json(payload, status)

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
    app.add_middleware(Guard, token=token, max_body=max_body)
    return app


class Guard:
    """Pure ASGI middleware (cheaper than FastAPI's `@app.middleware`): the bearer token on
    every route but /healthz (compared in constant time), the body cap by Content-Length,
    and one log line per request."""

    def __init__(self, app: Any, *, token: str | None, max_body: int) -> None:
        self.app = app
        self.expected = token.encode() if token else None
        self.max_body = max_body

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        headers = dict(scope["headers"])

        async def sending(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        refusal = self._refusal(scope["path"], headers)
        try:
            if refusal is not None:
                await refusal(scope, receive, sending)
            else:
                await self.app(scope, receive, sending)
        finally:
            log.info(
                "request",
                extra={
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                },
            )

    def _refusal(self, path: str, headers: dict[bytes, bytes]) -> Response | None:
        if self.expected is not None and path != "/healthz":
            scheme, _, value = headers.get(b"authorization", b"").partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(value, self.expected):
                return _error("missing or wrong bearer token", 401)
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return _error(f"request body over {self.max_body} bytes", 413)
        return None


async def _in_thread(function: Any, *args: Any) -> Response:
    """Run a blocking store operation off the event loop; RequestError stays a 4xx."""
    from starlette.concurrency import run_in_threadpool

    try:
        result = await run_in_threadpool(function, *args)
    except RequestError as error:
        return _error(str(error), error.status)
    return _json(result)


def _error(message: str, status: int) -> Response:
    return _json({"error": message, "status": status}, status)


def _json(payload: Any, status: int = 200) -> Response:
    """A JSON response serialised by orjson (FastAPI's default encoder walks every value
    first, which costs more than the ranking on a small registry); integers beyond 64 bits,
    which orjson refuses, are written exactly too."""
    from toolsel.jsontext import dumps

    return Response(dumps(payload), status_code=status, media_type="application/json")
