"""Who may make toolsel start a server or send a credential.

A file in a repository (a project's `toolsel.toml`, a `.mcp.json`) may name MCP servers,
but never allow starting them: a cloned repository, or a pull request from a fork, would
otherwise run its own code on `toolsel lint`. Starting the servers a file names needs one
of these, none of which a repository can give itself:
- `--connect` on the command line;
- `TOOLSEL_CONNECT=1` in the environment;
- `connect = true` in the user's own config (`toolsel.sources.project.user_config`);
- a recorded trust of that file's exact contents (`toolsel trust FILE`), as `direnv allow`
  and `mise trust` do: a changed file is no longer trusted until trusted again.

A server typed on the command line (`-r 'mcp:CMD'`, `-r URL`) is the user's own say. The
user's credentials (`--header`, `$TOOLSEL_MCP_TOKEN`) go only to URLs typed on the command
line or named by a trusted file, never to a URL that an untrusted file names, even with
`--connect`."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from toolsel.errors import ConfigError

CONNECT_VARIABLE = "TOOLSEL_CONNECT"
STORE_NAME = "trusted.json"
STORE_SCHEMA = "toolsel-trust-1"  # the store's own format (not a published output)
#: A file larger than this names no servers worth trusting (client configs are small).
MAX_TRUSTED_BYTES = 8 * 1024 * 1024


class TrustState(StrEnum):
    TRUSTED = "trusted"  # its contents are those recorded
    CHANGED = "changed"  # recorded, but its contents changed since
    UNTRUSTED = "untrusted"  # never recorded (or revoked)


@dataclass(frozen=True, slots=True)
class TrustRecord:
    path: Path  # resolved
    state: TrustState
    sha256: str | None  # the contents recorded (None: never)


def store_path() -> Path:
    from toolsel.sources.project import user_config_dir

    return user_config_dir() / STORE_NAME


def digest(path: Path) -> str:
    """SHA-256 of the file's bytes (what is trusted is exactly these bytes)."""
    from toolsel.inputs import InputProblem, read_bounded

    try:
        return hashlib.sha256(read_bounded(path, MAX_TRUSTED_BYTES)).hexdigest()
    except InputProblem as problem:
        raise ConfigError(f"{path}: cannot read it to trust it: {problem}") from None


def _recorded() -> dict[str, str]:
    path = store_path()
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise ConfigError(
            f"{path}: cannot read the trusted files: {error}",
            hint="remove it and trust the files again (toolsel trust FILE)",
        ) from None
    # a JSON list, string or number has no files either
    files = document.get("files") if isinstance(document, dict) else None
    if not isinstance(files, dict) or document.get("schema") != STORE_SCHEMA:
        raise ConfigError(f"{path}: not a {STORE_SCHEMA} file", hint="remove it")
    return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}


def _write(files: dict[str, str]) -> None:
    from toolsel.atomic import replace_file

    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    document = {"schema": STORE_SCHEMA, "files": dict(sorted(files.items()))}
    replace_file(path, json.dumps(document, indent=2) + "\n")


def state(path: Path) -> TrustRecord:
    resolved = path.resolve()
    recorded = _recorded().get(str(resolved))
    if recorded is None:
        return TrustRecord(resolved, TrustState.UNTRUSTED, None)
    try:
        now = digest(resolved)
    except ConfigError:
        now = None
    same = now == recorded
    return TrustRecord(resolved, TrustState.TRUSTED if same else TrustState.CHANGED, recorded)


def trust(paths: list[Path]) -> list[TrustRecord]:
    """Record each file's present contents as trusted."""
    files = _recorded()
    records = []
    for path in paths:
        if not path.is_file():
            raise ConfigError(f"{path}: no such file to trust")
        resolved = path.resolve()
        files[str(resolved)] = digest(resolved)
        records.append(TrustRecord(resolved, TrustState.TRUSTED, files[str(resolved)]))
    _write(files)
    return records


def revoke(paths: list[Path]) -> list[TrustRecord]:
    """Forget each file's trust; a file never trusted is said as such."""
    files = _recorded()
    records = []
    for path in paths:
        resolved = path.resolve()
        had = files.pop(str(resolved), None)
        records.append(TrustRecord(resolved, TrustState.UNTRUSTED, had))
    _write(files)
    return records


def trusted_files() -> list[TrustRecord]:
    return [state(Path(name)) for name in _recorded()]


def connect_grant(named_by: Path | None) -> str | None:
    """Why the servers that `named_by` names may be started (words for messages), or
    None. `named_by` None: typed on the command line, the user's own say."""
    from toolsel.live import current

    if named_by is None:
        return "the command line"
    if current().connect:
        return "--connect"
    if os.environ.get(CONNECT_VARIABLE, "").lower() in {"1", "true", "yes"}:
        return f"{CONNECT_VARIABLE}=1"
    from toolsel.sources.project import user_config

    mine = user_config()
    if mine.connect:
        return f"connect = true in {mine.path}"
    if state(named_by).state is TrustState.TRUSTED:
        return f"trusted {named_by}"
    return None


def credentials_allowed(named_by: Path | None) -> bool:
    """May the user's --header and $TOOLSEL_MCP_TOKEN go to a URL that `named_by` names?"""
    return named_by is None or state(named_by).state is TrustState.TRUSTED


def refusal_hint(named_by: Path) -> str:
    """What to do when the servers `named_by` names may not be started."""
    shown = _shown(named_by)
    if state(named_by).state is TrustState.CHANGED:
        return (
            f"{shown} changed since you trusted it: read it again, then run "
            f"`toolsel trust {shown}`; or pass --connect for this run"
        )
    return (
        "starting them runs what the file names: pass --connect for this run, or read the "
        f"file and run `toolsel trust {shown}` (a project's own `connect = true` never "
        "counts: the repository would be trusting itself)"
    )


def _shown(path: Path) -> str:
    from toolsel.inputs import display_path

    return display_path(path)
