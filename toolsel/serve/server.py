"""Running `toolsel serve`: its options, checked once (`serve_options`), and the server
process around a `Service` (`serve_http`): logging, the work pool, retention, MCP, uvicorn,
and a clean shutdown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolsel.errors import UsageError

if TYPE_CHECKING:
    from datetime import timedelta

    from toolsel.serve.guard import HostPolicy
    from toolsel.serve.service import Service

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """How `toolsel serve` runs (the CLI options of the same names; `retain` and
    `max_store` from `--retain`/`--max-store` or `[tool.toolsel.serve]`)."""

    host: str
    port: int
    token: str | None
    policy: HostPolicy
    mcp: bool
    max_body: int
    log_format: str
    reload: bool
    workers: int
    queue: int
    request_timeout: float
    header_timeout: float
    body_timeout: float
    analytics_budget: float
    max_connections: int
    retain: timedelta | None
    max_store: int | None


def serve_options(
    *,
    allow_host: list[str] | None,
    allow_origin: list[str] | None,
    retain: str | None,
    max_store: str | None,
    **options: Any,
) -> ServeOptions:
    """The options, checked: a usage error for a bad one, or a token missing off loopback."""
    from toolsel.serve.guard import HostPolicy

    if options["log_format"] not in ("text", "json"):
        raise UsageError(f"--log-format must be text or json, got {options['log_format']!r}")
    host = options["host"]
    if host not in LOOPBACK and not options["token"]:
        raise UsageError(
            f"--host {host}: binding beyond loopback needs a token",
            hint="set TOOLSEL_TOKEN or pass --token-file; clients send Authorization: Bearer TOKEN",
        )
    try:
        policy = HostPolicy.for_bind(host, allow_host or (), allow_origin or ())
    except ValueError as error:
        raise UsageError(f"--allow-origin: {error}") from None
    keep, limit = store_limits(retain, max_store)
    return ServeOptions(policy=policy, retain=keep, max_store=limit, **options)


def store_limits(retain: str | None, max_store: str | None) -> tuple[timedelta | None, int | None]:
    """(--retain as a timedelta, --max-store in bytes), each from [tool.toolsel.serve] when
    not given; a bad value is a usage error."""
    from toolsel.serve.retention import parse_duration, parse_size, serve_settings
    from toolsel.sources.project import find_config

    config = find_config()
    keep, limit = serve_settings(config.serve, str(config.path))
    try:
        keep = keep if retain is None else parse_duration(retain)
    except ValueError as error:
        raise UsageError(f"--retain {error}") from None
    try:
        return keep, limit if max_store is None else parse_size(max_store)
    except ValueError as error:
        raise UsageError(f"--max-store {error}") from None


def serve_http(service: Service, options: ServeOptions) -> None:
    """Serve `service` until SIGTERM or SIGINT: stop accepting, drain, close everything."""
    import uvicorn

    from toolsel.serve.connections import guarded_protocol, raise_open_file_limit
    from toolsel.serve.http import create_app
    from toolsel.serve.logs import configure_logging
    from toolsel.serve.mcp import create_mcp
    from toolsel.serve.work import WorkPool

    configure_logging(options.log_format)
    files_limit = raise_open_file_limit()
    max_connections = options.max_connections
    if files_limit:  # leave descriptors for files and the store
        max_connections = max(1, min(max_connections, files_limit - 64))
    if options.reload:
        service.watch()
    pruner = None
    if options.retain is not None and service.store is not None:
        from toolsel.serve.retention import Pruner

        pruner = Pruner(service.store, options.retain).start()
    pool = WorkPool(options.workers, options.queue, options.request_timeout)
    app = create_app(
        service,
        token=options.token,
        max_body=options.max_body,
        mcp_server=create_mcp(service) if options.mcp else None,
        host=options.host,
        policy=options.policy,
        pool=pool,
        body_timeout=options.body_timeout,
        analytics_budget=options.analytics_budget,
        on_start=service.warm,  # the index is made while the server already answers
    )
    config = uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        http=guarded_protocol(max_connections, options.header_timeout),
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=30,
        lifespan="on",
    )
    try:
        _server_class()(config).run()  # SIGTERM/SIGINT: stop accepting, drain, return
    finally:
        pool.close()
        if pruner is not None:
            pruner.stop()
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
