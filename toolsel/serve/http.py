"""The HTTP API of `toolsel serve` (FastAPI): `/v1/...`, the reference design's `/agent/...`,
`/healthz`, `/readyz`, `/openapi.json` (from `toolsel.serve.models`) and the dashboard at `/`.

A JSON body is read here (capped in size and time, exact for integers over 64 bits), then
checked by the route's model; every error has the shape `{"error": ..., "status": N}`.
Handlers run `Service` methods on the work pool (`toolsel.serve.work`), never on the event
loop; `toolsel.serve.guard` refuses what must not reach them.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Body, FastAPI, Query, Request
from fastapi.responses import Response
from fastapi.routing import APIRoute

from toolsel import __version__
from toolsel.schemas import Output
from toolsel.serve.guard import Guard, HostPolicy
from toolsel.serve.limits import ANALYTICS_BUDGET, BODY_TIMEOUT, MAX_BODY
from toolsel.serve.models import (
    USAGE_BODY,
    AgentRecorded,
    AgentSelection,
    AgentSelectRequest,
    AgentToolUsage,
    AgentUsageRequest,
    AgentValidateRequest,
    AgentVerdict,
    AnalyticsQuery,
    Health,
    Problem,
    RankRequest,
    Readiness,
    SelectRequest,
    ToolsQuery,
    ValidateRequest,
    as_sent,
    documents,
    published_schemas,
)
from toolsel.serve.responses import error_response, json_response
from toolsel.serve.service import Service
from toolsel.serve.values import BadValue, RequestError, one_line, request_error
from toolsel.serve.work import WorkPool

#: A run of digits long enough to be an integer orjson cannot hold exactly (anywhere,
#: strings included: such a body is read by the standard library, exactly and a bit slower).
LONG_NUMBER = re.compile(rb"\d{19}")
#: Every route's errors, for the OpenAPI document.
PROBLEMS: dict[int | str, dict[str, Any]] = {
    "4XX": {"model": Problem, "description": "The request cannot be served as sent"},
    "5XX": {"model": Problem, "description": "Busy, past a deadline, or a store failing"},
}
#: POST /v1/usage's body, passed on as sent: a batch of 10,000 records is checked on a
#: worker (`usage.parse_records`), not on the event loop.
UsageBody = Annotated[Any, as_sent(USAGE_BODY), Body()]


async def read_body(request: Request, max_body: int, timeout: float) -> bytes:
    """The body, at most `max_body` bytes, within `timeout` seconds."""
    from starlette.requests import ClientDisconnect

    chunks = []
    size = 0
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():  # a body without Content-Length too
                size += len(chunk)
                if size > max_body:
                    raise RequestError(f"request body over {max_body} bytes", 413)
                chunks.append(chunk)
    except TimeoutError:
        raise RequestError(f"request body not received within {timeout:g} s", 408) from None
    except ClientDisconnect:
        raise RequestError(
            "the client closed the connection before sending its body", 400
        ) from None
    return b"".join(chunks)


def parse_json(raw: bytes) -> Any:
    import orjson

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
        raise RequestError(f"request body is not JSON: {one_line(str(error), 200)}") from None


def parse_json_lines(raw: bytes) -> list[Any]:
    """A JSON lines body (`replay --format jsonl`): one value a line, blank lines skipped;
    an error names the line."""
    values = []
    for number, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            values.append(parse_json(line))
        except RequestError as error:
            raise RequestError(f"line {number}: {error}") from None
    if not values:
        raise RequestError("empty request body: send one JSON object a line")
    return values


class ReadRequest(Request):
    """A request whose body was read and parsed already (FastAPI asks for both). A JSON
    lines body, parsed into a list, is labelled JSON, so that FastAPI hands the list on."""

    def __init__(self, request: Request, raw: bytes, value: Any, *, relabel: bool = False) -> None:
        scope = request.scope
        if relabel:
            headers = [(k, v) for k, v in scope["headers"] if k != b"content-type"]
            scope = {**scope, "headers": [*headers, (b"content-type", b"application/json")]}
        super().__init__(scope, request.receive)
        self.raw, self.value = raw, value

    async def body(self) -> bytes:
        return self.raw

    async def json(self) -> Any:
        return self.value


class ServeRoute(APIRoute):
    """An API route: a query string it does not read is refused (a query model refuses its
    own unknown keys); a JSON body is read by `read_body` and `parse_json` before FastAPI
    checks it with the route's model (`app.state.body_limits`: the largest, and its time)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()
        takes_query = bool(self.dependant.query_params)
        takes_body = self.body_field is not None

        async def strict(request: Request) -> Response:
            if request.query_params and not takes_query:
                key = next(iter(request.query_params))[:40]
                raise BadValue(f"{self.path} does not take the query parameter `{key}`")
            if takes_body:
                from toolsel.serve.guard import is_json_lines_media_type

                raw = await read_body(request, *request.app.state.body_limits)
                lines = is_json_lines_media_type(request.headers.get("content-type", "").encode())
                value = parse_json_lines(raw) if lines else parse_json(raw)
                request = ReadRequest(request, raw, value, relabel=lines)
            return await handle(request)

        return strict


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
    on_start: Callable[[], None] | None = None,
) -> FastAPI:
    """The app. `policy`: the Host names and Origins it answers (default: `host`'s); `pool`:
    its workers (default: its own); `mcp_server`: MCP at `/mcp`; `on_start` runs before it
    listens (it must not take long), `on_close` at shutdown."""
    from toolsel.serve.analytics import analytics_pool
    from toolsel.serve.dashboard import dashboard_routes

    work = pool or WorkPool()
    analytics = analytics_pool(analytics_budget)
    closing = [on_close, None if pool else work.close, analytics.close]
    app = FastAPI(
        lifespan=_lifespan([c for c in closing if c is not None], mcp_server, on_start),
        title="toolsel",
        version=__version__,
        description="Tool selection as a service: rank, select and validate tool calls "
        "against a registry, and record how calls went.",
    )
    app.state.body_limits = (max_body, body_timeout)
    _answer_errors(app)
    app.include_router(_health_routes(service, work))
    app.include_router(_v1_routes(service, work, analytics))
    app.include_router(_agent_routes(service, work, analytics))
    app.include_router(dashboard_routes())
    if mcp_server is not None:
        app.mount("/", mcp_server.streamable_http_app(streamable_http_path="/mcp", host=host))
    app.add_middleware(
        Guard, token=token, max_body=max_body, policy=policy or HostPolicy.for_bind(host)
    )
    app.openapi = _openapi(app)  # type: ignore[method-assign]
    return app


def _lifespan(
    closing: list[Callable[[], None]], mcp_server: Any, on_start: Callable[[], None] | None
) -> Any:
    """Quiet event-loop errors while serving, and run `on_start`; at shutdown, stop the MCP
    sessions, then run `closing` last to first."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        from toolsel.serve.connections import quiet_loop_errors

        quiet_loop_errors(asyncio.get_running_loop())
        if on_start is not None:
            on_start()
        async with AsyncExitStack() as stack:
            for close in closing:
                stack.callback(close)
            if mcp_server is not None:
                await stack.enter_async_context(mcp_server.session_manager.run())
            yield

    return lifespan


def _answer_errors(app: FastAPI) -> None:
    """Every error in the one shape: a refused request, a body its model refuses, a bug."""
    from fastapi.exceptions import RequestValidationError

    @app.exception_handler(RequestError)
    async def refused(request: Request, error: RequestError) -> Response:
        return error_response(str(error), error.status, error.reason)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Response:
        problem = request_error(error.errors())
        return error_response(str(problem), problem.status, problem.reason)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> Response:
        import logging

        logging.getLogger("toolsel.serve").exception("unexpected error on %s", request.url.path)
        return error_response("internal error (logged by the server)", 500)


def _openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """FastAPI's document, with the published schemas the answers refer to."""
    from fastapi.openapi.utils import get_openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            spec["components"]["schemas"].update(published_schemas())
            app.openapi_schema = spec
        return app.openapi_schema

    return openapi


def _router(prefix: str, tag: str) -> APIRouter:
    return APIRouter(prefix=prefix, tags=[tag], responses=PROBLEMS, route_class=ServeRoute)


def _health_routes(service: Service, work: WorkPool) -> APIRouter:
    router = _router("", "health")

    @router.get("/healthz", response_model=Health)
    async def healthz() -> Response:
        """The process is up (answered on the event loop, whatever the workers do)."""
        return json_response({"ok": True})

    @router.get("/readyz", response_model=Readiness, responses={503: {"model": Readiness}})
    async def readyz() -> Response:
        """Ready to serve: the registry is loaded and the store answers (503 when not);
        `last_reload_error` says why the last reload failed."""
        ready, body = await work.run(service.ready)
        return json_response(body, 200 if ready else 503)

    return router


def _v1_routes(service: Service, work: WorkPool, analytics_work: WorkPool) -> APIRouter:
    router = _router("/v1", "v1")

    @router.post("/rank", responses=documents(Output.RANK, Output.SELECT))
    async def rank(request: RankRequest) -> Response:
        """The `toolsel.rank` document, as `toolsel rank --format json` prints it (a
        `select:` query: the `toolsel.select` document)."""
        return json_response(await work.run(service.rank, request))

    @router.post("/select", responses=documents(Output.SELECT))
    async def select(request: SelectRequest) -> Response:
        """The `toolsel.select` document: the tool_reference block and diagnostics."""
        return json_response(await work.run(service.select, request))

    @router.post("/validate", responses=documents(Output.VALIDATE))
    async def validate_call(request: ValidateRequest) -> Response:
        """`{ok, violations}`: the registry checks replay runs on a call."""
        return json_response(await work.run(service.validate, request))

    @router.post("/usage", responses=documents(Output.USAGE))
    async def usage(body: UsageBody) -> Response:
        """One record, a list of them, `{records: [...]}`, or replay JSONL tool_result
        events: `{received, stored}`; a record whose `id` is stored is not stored again."""
        return json_response(await work.run(service.usage, body))

    @router.get("/analytics", responses=documents(Output.STATS))
    async def analytics(query: Annotated[AnalyticsQuery, Query()]) -> Response:
        """The `toolsel.stats` payload over the stored records: the most-called tools, the
        others summed in `other`; 503 with `"reason": "analytics_budget"` past its budget."""
        return json_response(await analytics_work.run(service.analytics, query))

    @router.get("/tools", responses=documents(Output.TOOLS, provider=True))
    async def tools(query: Annotated[ToolsQuery, Query()]) -> Response:
        """Every tool, in toolsel's shape or a provider's (`?emit=openai|anthropic|mcp|gemini`)."""
        return json_response(await work.run(service.tools, query))

    @router.get("/tools/{name}", responses=documents(Output.TOOLS, one=True, provider=True))
    async def tool(name: str, query: Annotated[ToolsQuery, Query()]) -> Response:
        """One tool, in toolsel's shape or a provider's."""
        return json_response(await work.run(service.tools, query, name))

    return router


def _agent_routes(service: Service, work: WorkPool, analytics_work: WorkPool) -> APIRouter:
    from toolsel.serve import compat

    router = _router("/agent", "reference design")

    @router.post("/select-tools", response_model=AgentSelection)
    async def agent_select(request: AgentSelectRequest) -> Response:
        """`{message, maxTools?, permissionLevel?}` -> `{tools, method, scores}`."""
        return json_response(await work.run(compat.select_tools, service, request))

    verdicts: dict[int | str, Any] = {code: {"model": AgentVerdict} for code in (400, 403)}

    @router.post("/validate", response_model=AgentVerdict, responses=verdicts)
    async def agent_validate(request: AgentValidateRequest) -> Response:
        """`{tool, toolCallHistory?, userId?}` -> `{valid: true}`, or 403/400 with a reason."""
        status, payload = await work.run(compat.validate, service, request)
        return json_response(payload, status)

    @router.post("/record-usage", response_model=AgentRecorded)
    async def agent_record(request: AgentUsageRequest) -> Response:
        """`{tool, success, latencyMs?}` -> `{recorded: true}`."""
        return json_response(await work.run(compat.record_usage, service, request))

    @router.get("/analytics", response_model=list[AgentToolUsage])
    async def agent_analytics() -> Response:
        """`[{tool, calls, errorRate, avgLatencyMs, lastUsed}]`, most called first; the
        tools past the most called summed in a last `(other)` row."""
        return json_response(await analytics_work.run(compat.analytics, service))

    return router
