"""`toolsel serve` (HTTP API, optionally MCP over streamable HTTP) and `toolsel mcp` (stdio)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
    from toolsel.serve.service import Service


SERVE_INSTALL = "pip install 'toolsel[serve]'"

#: Each option's help, by flag (the options below are typed `typer.Option`s of these).
HELP = {
    "--db": "Usage store: sqlite:///PATH or postgresql://... (default: SQLite in the user "
    "data directory).",
    "--host": "Address to bind.",
    "--port": "Port.",
    "--token": "Bearer token required on every route but /healthz (required off loopback). "
    "On the command line it shows in `ps`: prefer TOOLSEL_TOKEN or --token-file.",
    "--token-file": "Read the bearer token from this file.",
    "--allow-host": "Also answer requests whose Host is NAME (a DNS name or a proxy's); "
    "repeatable. Default: the bound address (loopback names on loopback).",
    "--allow-origin": "Also accept browser requests from this origin (scheme://host[:port]); "
    "repeatable.",
    "--mcp": "Also serve MCP over streamable HTTP at /mcp.",
    "--max-body": "Largest request body.",
    "--log-format": "text or json: one line per request.",
    "--reload/--no-reload": "Reload the registry when its files change.",
    "--embed/--no-embed": "With toolsel[embed]: load the model and tool vectors at start "
    "(default), so semantic and fusion answer warm.",
    "--workers": "Threads doing the work.",
    "--queue": "Requests that may wait for a worker; beyond, 503 at once.",
    "--request-timeout": "A request not answered within this is answered 503 (and its work "
    "stopped).",
    "--header-timeout": "A connection must send a request's headers within this, or is closed.",
    "--body-timeout": "A request's body must arrive within this, or it is answered 408.",
    "--analytics-budget": "Analytics not answered within this get 503 (reason "
    "analytics_budget); their store reads stop.",
    "--max-connections": "Open connections at most; at the limit the longest-idle one is closed.",
    "--retain": "Delete usage records (and their sums) older than AGE (90m, 12h, 30d) in the "
    "background. Default: [tool.toolsel.serve] retain, else keep everything.",
    "--max-store": "At or over SIZE (500MB, 2GB), /v1/usage answers 507 instead of filling "
    "the disk. Default: [tool.toolsel.serve] max_store, else no limit.",
}


def _option(flag: str, **settings: Any) -> Any:
    """`flag`'s `typer.Option`, with its HELP."""
    return typer.Option(flag, help=HELP[flag], **settings)


def _seconds(flag: str) -> Any:
    """An option in seconds, from 0.1 to an hour."""
    return _option(flag, min=0.1, max=3600, metavar="SECONDS")


DbOption = Annotated[str | None, _option("--db", metavar="URL")]
HostOption = Annotated[str, _option("--host")]
PortOption = Annotated[int, _option("--port", min=0, max=65535)]
TokenOption = Annotated[str | None, _option("--token", envvar="TOOLSEL_TOKEN", show_envvar=True)]
TokenFileOption = Annotated[Path | None, _option("--token-file", metavar="PATH")]
AllowHostOption = Annotated[list[str] | None, _option("--allow-host", metavar="NAME")]
AllowOriginOption = Annotated[list[str] | None, _option("--allow-origin", metavar="ORIGIN")]
McpOption = Annotated[bool, _option("--mcp")]
MaxBodyOption = Annotated[int, _option("--max-body", min=1, metavar="BYTES")]
LogFormatOption = Annotated[str, _option("--log-format")]
ReloadOption = Annotated[bool, _option("--reload/--no-reload")]
EmbedOption = Annotated[bool, _option("--embed/--no-embed")]
WorkersOption = Annotated[int, _option("--workers", min=1, max=256, metavar="N")]
QueueOption = Annotated[int, _option("--queue", min=0, max=100_000, metavar="N")]
RequestTimeoutOption = Annotated[float, _seconds("--request-timeout")]
HeaderTimeoutOption = Annotated[float, _seconds("--header-timeout")]
BodyTimeoutOption = Annotated[float, _seconds("--body-timeout")]
AnalyticsBudgetOption = Annotated[float, _seconds("--analytics-budget")]
MaxConnectionsOption = Annotated[
    int, _option("--max-connections", min=1, max=1_000_000, metavar="N")
]
RetainOption = Annotated[str | None, _option("--retain", metavar="AGE")]
MaxStoreOption = Annotated[str | None, _option("--max-store", metavar="SIZE")]


def _require_serve(command: str = "serve") -> None:
    """Exit 2 with the install line when the serve extra is missing."""
    import importlib.util

    missing = [m for m in ("fastapi", "uvicorn", "mcp") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            f"toolsel {command} needs {', '.join(missing)}, which are not installed",
            hint=f"install them with: {SERVE_INSTALL}",
        )


#: `serve`'s options that make its `Service` (`_service`), not its `ServeOptions`.
SERVICE_OPTIONS = frozenset({"registry", "namespace", "db", "embed", "token_file"})


@handle_errors
def serve(
    registry: RegistryOption = None,
    namespace: NamespaceOption = False,
    host: HostOption = "127.0.0.1",
    port: PortOption = 8765,
    db: DbOption = None,
    token: TokenOption = None,
    token_file: TokenFileOption = None,
    allow_host: AllowHostOption = None,
    allow_origin: AllowOriginOption = None,
    mcp: McpOption = False,
    max_body: MaxBodyOption = MAX_BODY,
    log_format: LogFormatOption = "text",
    reload: ReloadOption = True,
    embed: EmbedOption = True,
    workers: WorkersOption = WORKERS,
    queue: QueueOption = QUEUE,
    request_timeout: RequestTimeoutOption = REQUEST_TIMEOUT,
    header_timeout: HeaderTimeoutOption = HEADER_TIMEOUT,
    body_timeout: BodyTimeoutOption = BODY_TIMEOUT,
    analytics_budget: AnalyticsBudgetOption = ANALYTICS_BUDGET,
    max_connections: MaxConnectionsOption = MAX_CONNECTIONS,
    retain: RetainOption = None,
    max_store: MaxStoreOption = None,
) -> None:
    """Serve tool selection over HTTP: rank, select, validate, record usage, analytics."""
    given = {k: v for k, v in locals().items() if k not in SERVICE_OPTIONS}
    _require_serve()
    from toolsel.serve.server import serve_http, serve_options

    options = serve_options(**{**given, "token": _token(token, token_file)})
    serve_http(_service(registry, namespace, db, embed=embed, max_store=options.max_store), options)


def _token(token: str | None, token_file: Path | None) -> str | None:
    """The bearer token: from --token-file, else --token or TOOLSEL_TOKEN."""
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
        anyio.run(run_stdio, create_mcp(service), service.warm)
    finally:
        service.close()


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

    sources = registry_sources(registry, example=True)  # re-expanded at every reload
    store = None
    if use_store:
        from toolsel.serve.store import open_store

        store = open_store(db or os.environ.get("TOOLSEL_DB"), max_bytes=max_store)
    try:
        return Service(
            sources,
            store,
            namespace=namespace,
            warm_embeddings=embed and missing() is None,
            auto_embeddings=embed,
            defer_index=True,  # made by `Service.warm` once the server answers
        )
    except BaseException:
        if store is not None:
            store.close()
        raise


__all__ = ["ExitCode", "mcp", "serve"]
