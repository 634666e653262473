"""The options that reach live MCP servers, given once to every command that reads a
registry (`-r`, or lint's paths): --connect, --refresh, --env, --header, --mcp-timeout.

They are added to each command here, in one place, instead of to fifteen signatures; the
command itself runs inside `toolsel.live.live_settings`, so its registry loading sees them."""

from __future__ import annotations

import os
from typing import Any

PANEL = "Live MCP servers"

#: Parameter names that make a command read a registry.
_REGISTRY_PARAMETERS = frozenset({"registry", "paths", "old", "new"})
_NAMES = ("connect", "refresh", "mcp_env", "mcp_header", "mcp_timeout")

#: The bearer token for servers given as a URL, when no --header gives Authorization.
TOKEN_VARIABLE = "TOOLSEL_MCP_TOKEN"


def add_live_options(command: Any) -> None:
    """Give `command` the live-server options, once, if it reads a registry."""
    names = {getattr(p, "name", None) for p in getattr(command, "params", ())}
    if getattr(command, "callback", None) is None or "connect" in names:
        return
    if not names & _REGISTRY_PARAMETERS or command.name in {"schema", "init", "trust"}:
        return
    from typer.core import TyperOption

    def option(decls: list[str], **kwargs: Any) -> Any:
        return TyperOption(param_decls=decls, rich_help_panel=PANEL, **kwargs)

    command.params.extend(
        [
            option(
                ["--connect"], is_flag=True, default=False,
                help="Start the MCP servers that a config file names (this runs their "
                "commands). Also TOOLSEL_CONNECT=1, `connect = true` in your own config, or "
                "`toolsel trust FILE`; never a project's own config.",
            ),
            option(
                ["--refresh"], is_flag=True, default=False,
                help="List live MCP servers' tools anew instead of using the cached lists.",
            ),
            option(
                ["--env", "mcp_env"], multiple=True, metavar="KEY=VALUE",
                help="An environment variable for servers given as -r 'mcp:CMD' (repeatable).",
            ),
            option(
                ["--header", "mcp_header"], multiple=True, metavar="'NAME: VALUE'",
                help=f"An HTTP header for servers given as -r URL (repeatable); a bearer token "
                f"can come from ${TOKEN_VARIABLE} instead. Sent only to URLs on the command "
                "line or in a trusted file.",
            ),
            option(
                ["--mcp-timeout"], type=float, default=30.0, metavar="X", show_default=True,
                help="Seconds to start a live server, and to list each page of its tools.",
            ),
        ]
    )  # fmt: skip
    original = command.callback

    def callback(**kwargs: Any) -> Any:
        from toolsel.live import live_settings

        values = {name: kwargs.pop(name) for name in _NAMES}
        with live_settings(_settings(values)):
            return original(**kwargs)

    command.callback = callback


def _settings(values: dict[str, Any]) -> Any:
    import typer

    from toolsel.cli.common import warn
    from toolsel.live import LiveSettings, Timeouts

    env: dict[str, str] = {}
    for item in values["mcp_env"]:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="'--env'")
        env[key] = value
    headers: dict[str, str] = {}
    for item in values["mcp_header"]:
        key, sep, value = item.partition(":")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{item!r} is not 'NAME: VALUE'", param_hint="'--header'")
        headers[key.strip()] = value.strip()
    token = os.environ.get(TOKEN_VARIABLE)
    if token and not any(k.lower() == "authorization" for k in headers):
        headers["Authorization"] = f"Bearer {token}"
    timeout = values["mcp_timeout"]
    if not timeout > 0:
        raise typer.BadParameter("must be more than 0", param_hint="'--mcp-timeout'")
    return LiveSettings(
        connect=values["connect"],
        refresh=values["refresh"],
        env=tuple(sorted(env.items())),
        headers=tuple(sorted(headers.items())),
        timeouts=Timeouts(connect=timeout, list=timeout),
        report=lambda line: warn(f"error: {line}"),
    )
