"""The gate in front of every route of `toolsel serve`: a pure ASGI middleware (cheaper than
FastAPI's `@app.middleware`) that logs one line per request and refuses, before any handler,
what a browser page or a stranger could send, in order:

1. a `Host` that does not name the bound address, so a DNS-rebinding page cannot read it: 421;
2. an `Origin` that is neither the server's own nor allowed by `--allow-origin`: 403;
3. a missing or wrong bearer token (compared in constant time), when one is set, on every
   route but `/healthz` and the dashboard's static files, which hold no data: 401;
4. a body that is not JSON: a page can POST `text/plain` or a form across sites without a
   CORS preflight, but never JSON: 415;
5. a `Content-Length` over the body cap: 413 (a body without one is capped as it is read).

The MCP SDK's transport at `/mcp` checks `Host` and `Origin` again, in its own way.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger("toolsel.serve.access")

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
#: Methods whose body the handlers read.
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
#: Longest request path written to the log (a path can be most of a 16 KB request line).
LOGGED_PATH = 300


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """Which `Host` names and which `Origin`s a server accepts.

    `hosts` is None for a server bound to every interface (0.0.0.0 or ::) with no
    `--allow-host`: it cannot know the names clients use for it, and it requires a token.
    """

    hosts: frozenset[str] | None
    origins: frozenset[tuple[str, str, int]]  # (scheme, host, port) allowed as Origin

    @classmethod
    def for_bind(
        cls, host: str, allow_hosts: Iterable[str] = (), allow_origins: Iterable[str] = ()
    ) -> HostPolicy:
        """The policy of a server bound to `host`: loopback accepts the loopback names, a
        named address accepts itself, a wildcard accepts any name; `allow_hosts` adds
        names (for a proxy or a DNS name), `allow_origins` adds browser origins."""
        extra = {_bare_host(h) for h in allow_hosts if h.strip()}
        bound = _bare_host(host)
        if bound in LOOPBACK_HOSTS:
            names: frozenset[str] | None = LOOPBACK_HOSTS | extra
        elif bound in WILDCARD_HOSTS:
            names = frozenset(extra) if extra else None
        else:
            names = frozenset({bound}) | extra
        return cls(names, frozenset(parse_origin(o) for o in allow_origins))

    def host_allowed(self, value: bytes | None) -> bool:
        if self.hosts is None:
            return True
        if not value:
            return False  # HTTP/1.1 requires Host; a request without one is refused
        return _bare_host(value.decode("latin-1")) in self.hosts

    def origin_allowed(self, origin: bytes, host: bytes | None) -> bool:
        """A browser's `Origin`: the server's own (same scheme-less host and port as the
        `Host` it was sent to), or one given with `--allow-origin`. `null` (a sandboxed
        frame, a file:// page) is never allowed."""
        try:
            parsed = parse_origin(origin.decode("latin-1"))
        except ValueError:
            return False
        if parsed in self.origins:
            return True
        if not host:
            return False
        own_host, own_port = _host_and_port(host.decode("latin-1"), parsed[0])
        return (parsed[1], parsed[2]) == (own_host, own_port) and self.host_allowed(host)


def parse_origin(text: str) -> tuple[str, str, int]:
    """`scheme://host[:port]` as (scheme, host, port), the port filled in from the scheme;
    ValueError when it is not an origin (`null`, a path, another scheme)."""
    parts = urlsplit(text.strip().lower())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(f"not an origin: {text!r} (write scheme://host[:port])")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"not an origin: {text!r} (the port is not a number)") from None
    return parts.scheme, parts.hostname, port or _DEFAULT_PORTS[parts.scheme]


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _host_and_port(value: str, scheme: str) -> tuple[str, int]:
    parts = urlsplit(f"{scheme}://{value.strip().lower()}")
    try:
        port = parts.port
    except ValueError:
        port = -1
    return parts.hostname or "", port or _DEFAULT_PORTS.get(scheme, 80)


def _bare_host(value: str) -> str:
    """A Host header or an address without its port or IPv6 brackets, lower-cased."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    if value.count(":") == 1:  # name:port (a bare IPv6 address has several colons)
        return value.partition(":")[0]
    return value


#: JSON lines, one value a line (`replay --format jsonl`), which POST /v1/usage also takes:
#: like JSON, none of them is a type a page may send across sites without a CORS preflight.
JSON_LINES_TYPES = frozenset({"application/x-ndjson", "application/jsonl", "application/x-jsonl"})
#: The routes that take JSON lines.
JSON_LINES_PATHS = frozenset({"/v1/usage"})


def media_type(value: bytes | None) -> str:
    return (value or b"").decode("latin-1").partition(";")[0].strip().lower()


def is_json_media_type(value: bytes | None) -> bool:
    kind, _, subtype = media_type(value).partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


def is_json_lines_media_type(value: bytes | None) -> bool:
    return media_type(value) in JSON_LINES_TYPES


def takes_body(path: str, content_type: bytes | None) -> bool:
    """The body's media type is one `path` reads: JSON, or on /v1/usage JSON lines too."""
    if is_json_media_type(content_type):
        return True
    return path in JSON_LINES_PATHS and is_json_lines_media_type(content_type)


class Guard:
    """The ASGI middleware described in the module docstring."""

    def __init__(
        self,
        app: Any,
        *,
        token: str | None,
        max_body: int,
        policy: HostPolicy | None = None,
    ) -> None:
        from toolsel.serve.dashboard import PUBLIC_PATHS

        self.app = app
        self.public = PUBLIC_PATHS
        self.expected = token.encode() if token else None
        self.max_body = max_body
        self.policy = policy or HostPolicy.for_bind("127.0.0.1")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            refusal = self.refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, sending)
            else:
                await self.app(scope, receive, sending)
        finally:
            log.info(
                "request",
                extra={
                    "method": scope["method"],
                    "path": scope["path"][:LOGGED_PATH],
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                },
            )

    def refusal(self, scope: Any) -> Any:
        """The error response for a request that must not reach a handler, or None."""
        from toolsel.serve.responses import error_response

        headers: dict[bytes, bytes] = dict(reversed(scope["headers"]))  # the first one decides
        path: str = scope["path"]
        host = headers.get(b"host")
        if not self.policy.host_allowed(host):
            return error_response(
                "this server does not answer to that Host name (DNS rebinding guard); "
                "start it with --allow-host NAME to add one",
                421,
            )
        origin = headers.get(b"origin")
        if origin is not None and not self.policy.origin_allowed(origin, host):
            return error_response(
                "cross-origin request refused; start the server with --allow-origin ORIGIN "
                "to allow a page's origin",
                403,
            )
        if self.expected is not None and path != "/healthz" and path not in self.public:
            scheme, _, value = headers.get(b"authorization", b"").partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(value, self.expected):
                return error_response("missing or wrong bearer token", 401)
        if (
            scope["method"] in BODY_METHODS
            and not path.startswith("/mcp")
            and not takes_body(path, headers.get(b"content-type"))
        ):
            lines = " (or JSON lines: application/x-ndjson)" if path in JSON_LINES_PATHS else ""
            return error_response(
                f"send the request body as JSON, with Content-Type: application/json{lines}", 415
            )
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return error_response(f"request body over {self.max_body} bytes", 413)
        return None
