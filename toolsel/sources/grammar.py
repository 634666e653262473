"""What one `-r` value (or one `registry` entry of a config) names, read from its text alone:
a catalog (`builtin:NAME`), a live server (`mcp:CMD ARGS`, `https://host/mcp`, either one
as `NAME=...`), a file of a named server (`NAME=PATH`), or a path."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

#: The spelling of a stdio server on the command line: `-r 'mcp:npx -y @scope/server'`.
STDIO_PREFIX = "mcp:"
BUILTIN_PREFIX = "builtin:"
#: A server's name, as `NAME=...` gives it.
SERVER = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True, slots=True)
class Spec:
    """One source as written. `kind`: builtin, live, server-file or path; `server`: the
    name given with `NAME=`; `target`: what follows it (`mcp:CMD` or the URL, the path)."""

    text: str
    kind: str
    target: str
    server: str | None = None

    @property
    def transport(self) -> str:
        """A live source's: `stdio` (`target` is the command line) or `http` (the URL)."""
        return "stdio" if self.target.startswith(STDIO_PREFIX) else "http"

    @property
    def command(self) -> str:
        """A stdio source's command line, without `mcp:`."""
        return self.target[len(STDIO_PREFIX) :]


def live_text(raw: str | os.PathLike[str]) -> str | None:
    """`raw` as a live source's text, or None for a plain path. A URL that went through
    `pathlib.Path` (Typer's `-r` type) lost one slash of `https://`; it is put back."""
    text = os.fspath(raw)
    if text.startswith(STDIO_PREFIX):
        return text
    for scheme in ("http://", "https://"):
        if text.startswith(scheme):
            return text
        if text.startswith(scheme[:-1]) and not text.startswith(scheme):  # https:/host
            return scheme + text[len(scheme) - 1 :]
    return None


def parse(raw: str | os.PathLike[str]) -> Spec:
    """What `raw` names. A path that exists on disk is always a path, whatever it reads
    like (a file named `builtin:x`, a folder named `a=b`)."""
    text = os.fspath(raw)
    if Path(text).exists():
        return Spec(text, "path", text)
    if text.startswith(BUILTIN_PREFIX):
        return Spec(text, "builtin", text)
    server, equals, rest = text.partition("=")
    named = bool(equals) and bool(rest) and SERVER.fullmatch(server) is not None
    live = live_text(rest) if named else None
    if live is not None:
        return Spec(text, "live", live, server)
    live = live_text(text)
    if live is not None:
        return Spec(text, "live", live)
    if named:
        return Spec(text, "server-file", rest, server)
    return Spec(text, "path", text)
