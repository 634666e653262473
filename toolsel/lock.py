"""`toolsel.lock`: what each tool looked like when it was approved, per source.

The lock pins every field a model, a client or toolsel's ranking reads, as the entry writes
it, in the groups of `GROUPS` (`extra`: every other key of the entry, such as a key a server
adds). Each group has a SHA-256 over canonical JSON with a domain tag, so key order never
changes it and no text can move from one field into another; the fields are kept too, so
`--check` says exactly which changed, classed with `toolsel diff`'s rules where they apply.
A field derived from another (MCP's permission from its annotations) is pinned as its source."""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toolsel.diff.canonical import canonical_bytes, domain_hash
from toolsel.diff.model import Change, ChangeClass
from toolsel.errors import UsageError
from toolsel.registry.model import Permission, Registry, Tool

#: Each group of pinned fields, in the order a report lists them.
GROUPS: dict[str, tuple[str, ...]] = {
    "definition": ("name", "title", "description", "parameters"),
    "output": ("output_schema",),
    "annotations": ("annotations",),
    "meta": ("_meta",),
    "governance": (
        "permission", "category", "requires", "conflicts", "aliases", "deprecated",
        "deprecated_by", "always_include", "defer_loading", "parent_task", "strict", "version",
        "governed",
    ),
    "ranking": ("display_name", "tags", "search_hint", "examples", "overlay_examples"),
    "extra": ("extra",),
}  # fmt: skip
#: How a report names a field, where its key is not the field's name.
SHOWN = {
    "output_schema": "outputSchema",
    "governed": "governance overlay",
    "overlay_examples": "examples from an overlay",
    "extra": "other keys",
}


#: Fields pinned as the entry writes them: the governance fields but `governed` (a governance
#: overlay's values, pinned apart), and the ranking fields an entry holds.
_WRITTEN = (*GROUPS["governance"][:-1], "display_name", "tags", "search_hint")


def pinned(tool: Tool, registry: Registry) -> dict[str, Any]:
    """Every pinned field of `tool` (absent ones as None), by its pinned name."""
    from toolsel.registry.formats import ENTRY_FORMATS

    fmt = ENTRY_FORMATS.get(tool.source.format)
    raw = tool.raw if isinstance(tool.raw, dict) else {}
    fields: dict[str, Any] = {
        name: fmt.value(raw, name) if fmt is not None and name in fmt.fields else None
        for name in _WRITTEN
    }
    is_title = fmt is not None and fmt.fields.get("display_name") == "/title"  # MCP
    own = set(tool.examples)
    fields.update(
        name=tool.name,
        title=fields["display_name"] if is_title else None,
        description=tool.description,
        parameters=tool.parameters,
        output_schema=tool.output_schema,
        annotations=tool.annotations,
        _meta=raw.get("_meta"),
        governed=dict(tool.governed) or None,
        examples=list(tool.examples) or None,
        overlay_examples=[e for e in registry.examples_for(tool.name) if e not in own] or None,
        extra=_unmapped(raw, fmt) or None,
    )
    if is_title:
        fields["display_name"] = None
    return fields


def _unmapped(raw: dict[str, Any], fmt: Any) -> dict[str, Any]:
    """The entry without the keys the fields above read: what a server added (a key the
    entry's format does not read, such as a Docker catalog tool's `title`, stays)."""
    rest = copy.deepcopy(raw)
    pointers = list(fmt.fields.values()) if fmt is not None else []
    for pointer in [*pointers, "/_meta"]:
        tokens = pointer[1:].split("/")
        node: Any = rest
        for token in tokens[:-1]:
            node = node.get(token) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(tokens[-1], None)
    return {k: v for k, v in rest.items() if v != {}}


def group_hashes(fields: dict[str, Any]) -> dict[str, str]:
    return {
        group: domain_hash(f"toolsel.lock.{group}/v2", [fields.get(name) for name in names])
        for group, names in GROUPS.items()
    }


def source_label(file: str, lock_folder: Path) -> str:
    """How the lock names a tool's source: its file relative to the lock's folder, or, for
    a live server's snapshot, the server as the user named it (`.mcp.json#github`,
    `mcp:npx -y ...`), so the lock means the same on every machine."""
    from toolsel.live import snapshot_label, snapshot_origin

    origin = snapshot_origin(file)
    if origin is not None:
        return f"{_relative(origin[0], lock_folder)}#{origin[1]}"
    label = snapshot_label(file) or _catalog_label(file)
    if label is not None:
        return label
    return _relative(file, lock_folder)


def _catalog_label(file: str) -> str | None:
    """`builtin:NAME` for a bundled catalog's file, wherever toolsel is installed."""
    from toolsel.catalogs import FOLDER, PREFIX

    path = Path(file)
    if path.suffix == ".yaml" and path.parent.resolve() == FOLDER.resolve():
        return f"{PREFIX}{path.stem}"
    return None


def _relative(file: str, folder: Path) -> str:
    """A file relative to the lock's folder; a source that is not a file (`<stdin>`, a URL,
    `builtin:`, `mcp:CMD`) as written."""
    if file.startswith(("<", "builtin:", "mcp:")) or "://" in file:
        return file
    try:
        return Path(os.path.relpath(Path(file).resolve(), folder.resolve())).as_posix()
    except ValueError:  # another drive (Windows)
        return Path(file).as_posix()


def lock_document(registry: Registry, lock_file: Path) -> dict[str, Any]:
    from toolsel.schemas import Output, schema_name

    folder = lock_file.parent
    sources: dict[str, dict[str, Any]] = {}
    for tool in registry.tools:
        if registry.get(tool.name) is not tool:
            continue
        fields = pinned(tool, registry)
        present = {name: value for name, value in fields.items() if value is not None}
        entry = {"hashes": group_hashes(fields), "fields": present}
        sources.setdefault(source_label(tool.source.file, folder), {})[tool.name] = entry
    return {"schema": schema_name(Output.LOCK), "sources": sources}


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One pinned field of one tool that differs from the lock, with the classes the diff
    engine gives it (none for a field it has no rule for: `_meta`, other keys)."""

    tool: str
    group: str
    field: str
    file: str
    line: int
    column: int
    changes: tuple[Change, ...] = ()

    @property
    def shown(self) -> str:
        return SHOWN.get(self.field, self.field)

    @property
    def change_class(self) -> ChangeClass:
        """The most severe class the engine gives it, else risky (a client reads it)."""
        if not self.changes:
            return ChangeClass.RISKY
        return max((c.change_class for c in self.changes), key=lambda c: c.level)


@dataclass(frozen=True, slots=True)
class LockCheck:
    """What differs from the lock: each changed field, and the names to review."""

    fields: tuple[FieldChange, ...]
    new_tools: tuple[str, ...]  # not in the lock (a renamed tool is one of them)
    removed_tools: tuple[str, ...]

    @property
    def changed_tools(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.tool for f in self.fields))

    @property
    def failed(self) -> bool:
        return bool(self.new_tools or self.removed_tools or self.fields)


def read_lock(path: Path) -> dict[str, Any]:
    import orjson

    from toolsel.inputs import display_path
    from toolsel.schemas import Output, schema_name

    shown = display_path(path)
    again = "write it again with `toolsel lock`"
    try:
        document = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise UsageError(
            f"{shown}: cannot read the lock file: {exc.strerror}",
            hint="write it with `toolsel lock`",
        ) from None
    except orjson.JSONDecodeError as exc:
        raise UsageError(f"{shown}: not a lock file: {exc}", hint=again) from None
    if not isinstance(document, dict) or document.get("schema") != schema_name(Output.LOCK):
        schema = document.get("schema") if isinstance(document, dict) else None
        if isinstance(schema, str) and schema.startswith("toolsel.lock/"):
            raise UsageError(
                f"{shown}: written by another toolsel ({schema}; this one reads "
                f"{schema_name(Output.LOCK)})",
                hint=f"review the registry, then {again}",
            )
        raise UsageError(f"{shown}: not a {schema_name(Output.LOCK)} lock file", hint=again)
    if not isinstance(document.get("sources"), dict):
        raise UsageError(f"{shown}: `sources` must be an object", hint=again)
    return document


def check_lock(document: dict[str, Any], registry: Registry) -> LockCheck:
    """Compare the registry with the lock, tool by tool (by name: a rename is a new tool),
    field by field in each group whose hash differs."""
    locked: dict[str, dict[str, Any]] = {
        name: entry
        for tools in document["sources"].values()
        if isinstance(tools, dict)
        for name, entry in tools.items()
        if isinstance(entry, dict)
    }
    current = {t.name: t for t in registry.tools if registry.get(t.name) is t}
    found: list[FieldChange] = []
    for name, tool in current.items():
        if name in locked:
            found += _changed_fields(tool, registry, locked[name])
    return LockCheck(
        tuple(found),
        tuple(n for n in current if n not in locked),
        tuple(n for n in locked if n not in current),
    )


def _changed_fields(tool: Tool, registry: Registry, entry: dict[str, Any]) -> list[FieldChange]:
    fields = pinned(tool, registry)
    hashes = entry.get("hashes")
    stored = entry.get("fields")
    hashes = hashes if isinstance(hashes, dict) else {}
    stored = stored if isinstance(stored, dict) else {}
    now = group_hashes(fields)
    changed = []
    for group, names in GROUPS.items():
        if hashes.get(group) == now[group]:
            continue
        for name in names:
            old = stored.get(name)
            if canonical_bytes(old) != canonical_bytes(fields.get(name)):
                changed.append(_field_change(tool, registry, group, name, old))
    return changed


#: The Tool attribute (and so the diff rules) behind a pinned field; None: no rule reads it.
_ATTRIBUTES: dict[str, str | None] = {
    "title": "display_name", "_meta": None, "extra": None, "governed": None,
    "overlay_examples": None, "examples": None,
}  # fmt: skip


def _field_change(tool: Tool, registry: Registry, group: str, name: str, old: Any) -> FieldChange:
    attribute = _ATTRIBUTES.get(name, name)
    where = registry.locate_field(tool, attribute or name)
    return FieldChange(
        tool.name, group, name, where.file, where.line, where.column,
        _classified(tool, registry, attribute, old),
    )  # fmt: skip


def _classified(
    tool: Tool, registry: Registry, attribute: str | None, old: Any
) -> tuple[Change, ...]:
    """The diff engine's changes between `tool` and `tool` with only this field put back
    as the lock has it: the classes of that one field's change."""
    if attribute is None:
        return ()
    value = _as_attribute(attribute, old)
    if value is _UNKNOWN:
        return ()
    from toolsel.diff.engine import diff_registries

    before = replace(tool, **{attribute: value})
    changes = diff_registries(Registry((), (before,), {}), Registry(registry.files, (tool,), {}))
    return tuple(c for c in changes if c.rule != "TD009")


_UNKNOWN: Any = object()


_TUPLES = frozenset({"tags", "requires", "conflicts", "aliases"})
_FLAGS = frozenset({"deprecated", "always_include", "defer_loading", "parent_task", "strict"})


def _as_attribute(attribute: str, value: Any) -> Any:
    """A pinned value as the Tool attribute holds it (None: the field's default)."""
    if attribute == "name" and not isinstance(value, str):
        return _UNKNOWN  # a damaged lock entry: the field is reported, not classed
    if attribute == "permission":
        try:
            return Permission(value or "read")
        except ValueError:
            return _UNKNOWN
    if attribute in _TUPLES:
        return tuple(value) if isinstance(value, list) else ()
    if attribute in _FLAGS:
        return value is True
    if attribute == "parameters" and value is None:
        return {"type": "object", "properties": {}}
    if attribute == "description":
        return value if isinstance(value, str) else ""
    return value
