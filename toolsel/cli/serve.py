"""`toolsel serve` (HTTP API, optionally MCP over streamable HTTP) and `toolsel mcp` (stdio)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import NamespaceOption, RegistryOption, handle_errors
from toolsel.errors import ExitCode, UsageError
from toolsel.serve.limits import (
    ANALYTICS_BUDGET,
    BODY_TIMEOUT,
    HEADER_TIMEOUT,
    MAX_BODY,
    MAX_CONNECTIONS,
    QUEUE,
    REQUEST_TIMEOUT,
    WORKERS,
)

if TYPE_CHECKING:
    from datetime import timedelta

    from toolsel.serve.guard import HostPolicy
    from toolsel.serve.service import Service


SERVE_INSTALL = "pip install 'toolsel[serve]'"
LOOPBACK = {"127.0.0.1", "::1", "localhost"}

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        help="Usage store: sqlite:///PATH or postgresql://... (default: SQLite in the user "
        "data directory).",
    ),
]


def _require_serve(command: str = "serve") -> None:
    """Exit 2 with the install line when the serve extra is missing."""
    import importlib.util

    missing = [m for m in ("fastapi", "uvicorn", "mcp") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            f"toolsel {command} needs {', '.join(missing)}, which are not installed",
            hint=f"install them with: {SERVE_INSTALL}",
        )


@handle_errors
def serve(
    registry: RegistryOption = None,
    namespace: NamespaceOption = False,
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port.")] = 8765,
    db: DbOption = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="TOOLSEL_TOKEN",
            show_envvar=True,
            help="Bearer token required on every route but /healthz (required off loopback). "
            "On the command line it shows in `ps`: prefer TOOLSEL_TOKEN or --token-file.",
        ),
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option("--token-file", metavar="PATH", help="Read the bearer token from this file."),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            metavar="NAME",
            help="Also answer requests whose Host is NAME (a DNS name or a proxy's); "
            "repeatable. Default: the bound address (loopback names on loopback).",
        ),
    ] = None,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-origin",
            metavar="ORIGIN",
            help="Also accept browser requests from this origin (scheme://host[:port]); "
            "repeatable.",
        ),
    ] = None,
    mcp: Annotated[
        bool, typer.Option("--mcp", help="Also serve MCP over streamable HTTP at /mcp.")
    ] = False,
    max_body: Annotated[
        int, typer.Option("--max-body", min=1, metavar="BYTES", help="Largest request body.")
    ] = MAX_BODY,
    log_format: Annotated[
        str, typer.Option("--log-format", help="text or json: one line per request.")
    ] = "text",
    reload: Annotated[
        bool,
        typer.Option("--reload/--no-reload", help="Reload the registry when its files change."),
    ] = True,
    embed: Annotated[
        bool,
        typer.Option(
            "--embed/--no-embed",
            help="With toolsel[embed]: load the model and tool vectors at start (default), "
            "so semantic and fusion answer warm.",
        ),
    ] = True,
    workers: Annotated[
        int,
        typer.Option("--workers", min=1, max=256, metavar="N", help="Threads doing the work."),
    ] = WORKERS,
    queue: Annotated[
        int,
        typer.Option(
            "--queue",
            min=0,
            max=100_000,
            metavar="N",
            help="Requests that may wait for a worker; beyond, 503 at once.",
        ),
    ] = QUEUE,
    request_timeout: Annotated[
        float,
        typer.Option(
            "--request-timeout",
            min=0.1,
            max=3600,
            metavar="SECONDS",
            help="A request not answered within this is answered 503 (and its work stopped).",
        ),
    ] = REQUEST_TIMEOUT,
    header_timeout: Annotated[
        float,
        typer.Option(
            "--header-timeout",
            min=0.1,
            max=3600,
            metavar="SECONDS",
            help="A connection must send a request's headers within this, or is closed.",
        ),
    ] = HEADER_TIMEOUT,
    body_timeout: Annotated[
        float,
        typer.Option(
            "--body-timeout",
            min=0.1,
            max=3600,
            metavar="SECONDS",
            help="A request's body must arrive within this, or it is answered 408.",
        ),
    ] = BODY_TIMEOUT,
    analytics_budget: Annotated[
        float,
        typer.Option(
            "--analytics-budget",
            min=0.1,
            max=3600,
            metavar="SECONDS",
            help="Analytics not answered within this get 503 (reason analytics_budget); "
            "their store reads stop.",
        ),
    ] = ANALYTICS_BUDGET,
    max_connections: Annotated[
        int,
        typer.Option(
            "--max-connections",
            min=1,
            max=1_000_000,
            metavar="N",
            help="Open connections at most; at the limit the longest-idle one is closed.",
        ),
    ] = MAX_CONNECTIONS,
    retain: Annotated[
        str | None,
        typer.Option(
            "--retain",
            metavar="AGE",
            help="Delete usage records (and their sums) older than AGE (90m, 12h, 30d) in the "
            "background. Default: [tool.toolsel.serve] retain, else keep everything.",
        ),
    ] = None,
    max_store: Annotated[
        str | None,
        typer.Option(
            "--max-store",
            metavar="SIZE",
            help="At or over SIZE (500MB, 2GB), /v1/usage answers 507 instead of filling the "
            "disk. Default: [tool.toolsel.serve] max_store, else no limit.",
        ),
    ] = None,
) -> None:
    """Serve tool selection over HTTP: rank, select, validate, record usage, analytics."""
    _require_serve()
    if log_format not in ("text", "json"):
        raise UsageError(f"--log-format must be text or json, got {log_format!r}")
    token = _token(token, token_file)
    if host not in LOOPBACK and not token:
        raise UsageError(
            f"--host {host}: binding beyond loopback needs a token",
            hint="set TOOLSEL_TOKEN or pass --token-file; clients send Authorization: Bearer TOKEN",
        )
    policy = _host_policy(host, allow_host or [], allow_origin or [])
    keep, limit = _store_limits(retain, max_store)
    import uvicorn

    from toolsel.serve.connections import guarded_protocol, raise_open_file_limit
    from toolsel.serve.http import create_app
    from toolsel.serve.logs import configure_logging
    from toolsel.serve.work import WorkPool

    _Server = _server_class()
    configure_logging(log_format)
    files_limit = raise_open_file_limit()
    if files_limit and max_connections > files_limit - 64:
        max_connections = max(1, files_limit - 64)  # leave descriptors for files and the store
    service = _service(registry, namespace, db, embed=embed, max_store=limit)
    if reload:
        service.watch()
    pruner = None
    if keep is not None and service.store is not None:
        from toolsel.serve.retention import Pruner

        pruner = Pruner(service.store, keep).start()
    mcp_server = None
    if mcp:
        from toolsel.serve.mcp import create_mcp

        mcp_server = create_mcp(service)
    pool = WorkPool(workers, queue, request_timeout)
    app = create_app(
        service,
        token=token,
        max_body=max_body,
        mcp_server=mcp_server,
        host=host,
        policy=policy,
        pool=pool,
        body_timeout=body_timeout,
        analytics_budget=analytics_budget,
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=guarded_protocol(max_connections, header_timeout),
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=30,
        lifespan="on",
    )
    try:
        _Server(config).run()  # SIGTERM/SIGINT: stop accepting, drain, return
    finally:
        pool.close()
        if pruner is not None:
            pruner.stop()
        service.close()


def _token(token: str | None, token_file: Path | None) -> str | None:
    """The bearer token: from --token-file, else --token or TOOLSEL_TOKEN."""
    import os

    if token_file is not None:
        if token and "TOOLSEL_TOKEN" not in os.environ:
            raise UsageError("give --token or --token-file, not both")
        from toolsel.inputs import InputProblem, read_bounded

        try:
            text = read_bounded(token_file, 4096).decode("utf-8").strip()
        except (InputProblem, UnicodeDecodeError) as problem:
            raise UsageError(f"--token-file {token_file}: {problem}") from None
        if not text or len(text.splitlines()) != 1:
            raise UsageError(f"--token-file {token_file}: expected the token on one line")
        return text
    if token is not None:
        token = token.strip()
        if not token:
            raise UsageError("the token is empty", hint="set TOOLSEL_TOKEN to a long random string")
        if os.environ.get("TOOLSEL_TOKEN", "").strip() != token:
            from toolsel.cli.common import warn

            warn("--token is visible to other users in `ps`; set TOOLSEL_TOKEN or use --token-file")
    return token


def _host_policy(host: str, allow_host: list[str], allow_origin: list[str]) -> HostPolicy:
    from toolsel.serve.guard import HostPolicy

    try:
        return HostPolicy.for_bind(host, allow_host, allow_origin)
    except ValueError as error:
        raise UsageError(f"--allow-origin: {error}") from None


@handle_errors
def mcp(
    registry: RegistryOption = None,
    namespace: NamespaceOption = False,
    db: DbOption = None,
) -> None:
    """Serve the registry to MCP clients over stdio: search_tools, select_tools, validate_call."""
    _require_serve("mcp")
    import anyio

    from toolsel.serve.logs import configure_logging
    from toolsel.serve.mcp import create_mcp, run_stdio

    configure_logging("text")
    service = _service(registry, namespace, db, use_store=db is not None)
    service.watch()
    try:
        anyio.run(run_stdio, create_mcp(service))
    finally:
        service.close()


def _server_class() -> type:
    import contextlib
    import signal
    from collections.abc import Iterator

    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, except that SIGTERM and SIGINT end it normally: in-flight
        requests are drained, the store is closed, and the process exits 0 (uvicorn itself
        re-raises the signal once drained, which would skip the store's close)."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            signals = (signal.SIGINT, signal.SIGTERM)
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in signals}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    return Server


def _store_limits(retain: str | None, max_store: str | None) -> tuple[timedelta | None, int | None]:
    """(--retain as a timedelta, --max-store in bytes), each from [tool.toolsel.serve] when
    not given; a bad value is a usage error."""
    from toolsel.serve.retention import parse_duration, parse_size, serve_settings
    from toolsel.sources.project import find_config

    config = find_config()
    keep, limit = serve_settings(config.serve, str(config.path))
    try:
        if retain is not None:
            keep = parse_duration(retain)
    except ValueError as error:
        raise UsageError(f"--retain {error}") from None
    try:
        if max_store is not None:
            limit = parse_size(max_store)
    except ValueError as error:
        raise UsageError(f"--max-store {error}") from None
    return keep, limit


def _service(
    registry: list[Path] | None,
    namespace: bool,
    db: str | None,
    *,
    use_store: bool = True,
    embed: bool = True,
    max_store: int | None = None,
) -> Service:
    from toolsel.cli.common import registry_sources
    from toolsel.embed.model import missing
    from toolsel.serve.service import Service
    from toolsel.serve.store import open_store

    sources = registry_sources(registry, example=True)  # re-expanded at every reload
    url = db or os.environ.get("TOOLSEL_DB")
    store = open_store(url, max_bytes=max_store) if use_store else None
    try:
        return Service(
            sources,
            store,
            namespace=namespace,
            warm_embeddings=embed and missing() is None,
            auto_embeddings=embed,
        )
    except BaseException:
        if store is not None:
            store.close()
        raise


__all__ = ["ExitCode", "mcp", "serve"]
