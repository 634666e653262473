"""`toolsel trust` output: what each file may now start, or the trusted files' states."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

from toolsel.render.escape import visible
from toolsel.sources.trust import TrustRecord, TrustState


def _shown(path: Path) -> str:
    from toolsel.inputs import display_path

    return visible(display_path(path))


def _names(path: Path) -> str:
    """What a trusted file lets toolsel start, as written (credentials masked)."""
    from toolsel.errors import ToolselError
    from toolsel.live.sources import config_servers, is_client_config, shown_source

    try:
        if is_client_config(path):
            servers = [f"{s.name}: {s.target or '(no command)'}" for s in config_servers(path)]
        else:
            from toolsel.sources.grammar import parse
            from toolsel.sources.project import find_config

            config = find_config(explicit=path)
            servers = [
                shown_source(parse(p).target) for p in config.registry if parse(p).kind == "live"
            ]
    except ToolselError:
        return ""
    if not servers:
        return ""
    return f"; it may start {len(servers)}: " + visible("; ".join(servers))


def render_records(
    records: list[TrustRecord], *, revoked: bool, out: IO[str] | None = None
) -> None:
    out = out or sys.stdout
    for record in records:
        if revoked:
            said = "no longer trusted" if record.sha256 else "was not trusted"
            out.write(f"{_shown(record.path)}: {said}\n")
        else:
            digest = (record.sha256 or "")[:12]
            out.write(f"{_shown(record.path)}: trusted (sha256 {digest}){_names(record.path)}\n")


def render_listing(records: list[TrustRecord], out: IO[str] | None = None) -> None:
    out = out or sys.stdout
    if not records:
        out.write("No trusted files.\n")
        return
    for record in records:
        note = {
            TrustState.TRUSTED: "trusted",
            TrustState.CHANGED: "changed since trusted: not trusted until `toolsel trust` again",
            TrustState.UNTRUSTED: "not trusted",
        }[record.state]
        out.write(f"{_shown(record.path)}: {note}\n")
