"""`toolsel.lock`: what each tool looked like when it was approved, per source.

Each tool has two hashes: `definition`, over what the model sees ({name, description,
parameters}), and `governance`, over the fields toolsel enforces (permission, requires,
conflicts, aliases, deprecation, loading flags, category). Each hash is SHA-256 of a
canonical JSON array [domain, field, field, ...]: sorted keys, compact, UTF-8, so key order
never changes it and no text can move from one field into another. The lock also keeps the
fields themselves, so `--check` can class what changed with `toolsel diff`'s rules."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolsel.diff.canonical import DEFINITION_DOMAIN, GOVERNANCE_DOMAIN, domain_hash
from toolsel.diff.model import Change
from toolsel.errors import UsageError
from toolsel.registry.model import Permission, Registry, Tool, ToolSource

DEFAULT_LOCK_FILE = "toolsel.lock"
GOVERNANCE_FIELDS = (
    "permission", "requires", "conflicts", "aliases", "deprecated", "deprecated_by",
    "always_include", "defer_loading", "parent_task", "category", "strict",
)  # fmt: skip


def definition(tool: Tool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def governance(tool: Tool) -> dict[str, Any]:
    values = {field: getattr(tool, field) for field in GOVERNANCE_FIELDS}
    values["permission"] = tool.permission.value
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


def definition_hash(tool: Tool) -> str:
    return domain_hash(DEFINITION_DOMAIN, [tool.name, tool.description, tool.parameters])


def governance_hash(tool: Tool) -> str:
    fields = governance(tool)
    return domain_hash(GOVERNANCE_DOMAIN, [tool.name, *(fields[f] for f in GOVERNANCE_FIELDS)])


def source_label(file: str) -> str:
    """How the lock names a tool's source: its file, or, for a live MCP server's snapshot
    (a cache file), the server as the user named it (`.mcp.json#github`, `mcp:npx -y ...`),
    so the lock means the same on every machine."""
    from toolsel.live import snapshot_label

    return snapshot_label(file) or file


def lock_document(registry: Registry) -> dict[str, Any]:
    from toolsel.schemas import Output, schema_name

    sources: dict[str, dict[str, Any]] = {}
    for tool in registry.tools:
        if registry.get(tool.name) is not tool:
            continue
        sources.setdefault(source_label(tool.source.file), {})[tool.name] = {
            "definition": definition_hash(tool),
            "governance": governance_hash(tool),
            "tool": {**definition(tool), **governance(tool)},
        }
    return {"schema": schema_name(Output.LOCK), "sources": sources}


@dataclass(frozen=True, slots=True)
class LockCheck:
    """What differs from the lock: each tool's classed changes, and the names to review."""

    changes: tuple[Change, ...]
    new_tools: tuple[str, ...]  # not in the lock (a renamed tool is one of them)
    removed_tools: tuple[str, ...]
    changed_tools: tuple[str, ...]

    @property
    def failed(self) -> bool:
        return bool(self.new_tools or self.removed_tools or self.changed_tools)


def read_lock(path: Path) -> dict[str, Any]:
    import orjson

    from toolsel.inputs import display_path
    from toolsel.schemas import Output, schema_name

    shown = display_path(path)
    try:
        document = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise UsageError(
            f"{shown}: cannot read the lock file: {exc.strerror}",
            hint="write it with `toolsel lock`",
        ) from None
    except orjson.JSONDecodeError as exc:
        raise UsageError(
            f"{shown}: not a lock file: {exc}", hint="write it again with `toolsel lock`"
        ) from None
    if not isinstance(document, dict) or document.get("schema") != schema_name(Output.LOCK):
        raise UsageError(
            f"{shown}: not a {schema_name(Output.LOCK)} lock file",
            hint="write it again with `toolsel lock`",
        )
    if not isinstance(document.get("sources"), dict):
        raise UsageError(f"{shown}: `sources` must be an object")
    return document


def check_lock(document: dict[str, Any], registry: Registry, lock_name: str) -> LockCheck:
    """Compare the registry with the lock, tool by tool (by name: a rename is a new tool)."""
    locked: dict[str, dict[str, Any]] = {}
    for file, tools in document["sources"].items():
        if isinstance(tools, dict):
            for name, entry in tools.items():
                if isinstance(entry, dict):
                    locked[name] = {**entry, "file": file}
    current = {t.name: t for t in registry.tools if registry.get(t.name) is t}
    new_tools = tuple(n for n in current if n not in locked)
    removed = tuple(n for n in locked if n not in current)
    changed = tuple(
        n
        for n, t in current.items()
        if n in locked
        and (
            locked[n].get("definition") != definition_hash(t)
            or locked[n].get("governance") != governance_hash(t)
        )
    )
    changes: tuple[Change, ...] = ()
    if changed:
        from toolsel.diff.engine import diff_registries

        old = Registry((), tuple(_locked_tool(n, locked[n], lock_name) for n in changed), {})
        new = Registry(registry.files, tuple(current[n] for n in changed), {})
        changes = tuple(c for c in diff_registries(old, new) if c.rule != "TD009")
    return LockCheck(changes, new_tools, removed, changed)


def _locked_tool(name: str, entry: dict[str, Any], lock_name: str) -> Tool:
    """The tool as the lock remembers it (positions point into the lock file)."""
    fields = entry.get("tool") if isinstance(entry.get("tool"), dict) else {}
    assert isinstance(fields, dict)

    def text(key: str) -> str | None:
        value = fields.get(key)
        return value if isinstance(value, str) else None

    def names(key: str) -> tuple[str, ...]:
        value = fields.get(key)
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

    try:
        permission = Permission(fields.get("permission", "read"))
    except ValueError:
        permission = Permission.READ
    parameters = fields.get("parameters")
    return Tool(
        name=name,
        description=text("description") or "",
        source=ToolSource(lock_name, "lock", f"/sources/{entry.get('file', '')}/{name}/tool", {}),
        parameters=parameters if isinstance(parameters, dict) else {},
        category=text("category"),
        permission=permission,
        requires=names("requires"),
        conflicts=names("conflicts"),
        aliases=names("aliases"),
        deprecated=fields.get("deprecated") is True,
        deprecated_by=text("deprecated_by"),
        always_include=fields.get("always_include") is True,
        defer_loading=fields.get("defer_loading") is True,
        parent_task=fields.get("parent_task") is True,
        strict=fields.get("strict") is True,
    )
