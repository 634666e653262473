"""Load registry files into the frozen model, collecting every problem with its position."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolsel.acyclic import gc_paused
from toolsel.errors import RegistryError
from toolsel.registry import cache
from toolsel.registry.formats import (
    FIELD_TYPES,
    TOOLSEL,
    TOP_LEVEL_KEYS,
    EntryFormat,
    detect_entry_format,
    locate_entries,
    mcp_permission,
)
from toolsel.registry.model import (
    DEFAULT_PARAMETERS,
    Category,
    LoadProblem,
    Permission,
    Registry,
    RegistryFile,
    Tool,
    ToolSource,
)
from toolsel.registry.paths import PathLike, registry_files
from toolsel.registry.source import (
    ParsedDocument,
    SourceMap,
    SourceSyntaxError,
    escape_token,
    parse_text,
    split_pointer,
)
from toolsel.suggest import did_you_mean

_PERMISSIONS = {p.value: p for p in Permission}
DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024
_MISSING: Any = object()


def max_file_bytes() -> int:
    value = os.environ.get("TOOLSEL_MAX_FILE_BYTES", "")
    return int(value) if value.isdigit() else DEFAULT_MAX_FILE_BYTES


def load_registry(
    paths: PathLike | Iterable[PathLike] | None = None,
    *,
    use_cache: bool = True,
    strict: bool = True,
) -> Registry:
    """Load one or more registry files or directories into one `Registry`.

    With `strict` (the default) a fatal problem raises `RegistryError` naming its position;
    `toolsel lint` passes `strict=False` to get every problem as data instead.
    """
    files: list[RegistryFile] = []
    tools: list[Tool] = []
    categories: dict[str, Category] = {}
    problems: list[LoadProblem] = []
    for path in registry_files(paths):
        with gc_paused():
            loaded = _FileLoader(path, use_cache=use_cache).load()
        files.append(loaded.file)
        tools.extend(loaded.tools)
        for category in loaded.categories:
            categories.setdefault(category.name, category)
        problems.extend(loaded.problems)
    registry = Registry(tuple(files), tuple(tools), categories, tuple(problems))
    if strict:
        raise_for_fatal(registry)
    return registry


def raise_for_fatal(registry: Registry) -> None:
    fatal = [p for p in registry.problems if p.fatal]
    if fatal:
        first = fatal[0]
        more = f"; {len(fatal) - 1} more problem(s)" if len(fatal) > 1 else ""
        raise RegistryError(
            f"{first.file}:{first.line}:{first.column}: {first.rule} {first.message}{more}",
            hint="run `toolsel lint` on the registry to see every problem",
        )


class _LoadedFile:
    def __init__(self, file: RegistryFile) -> None:
        self.file = file
        self.tools: list[Tool] = []
        self.categories: list[Category] = []
        self.problems: list[LoadProblem] = []


class _FileLoader:
    """Reads one file; every problem becomes a LoadProblem, never an exception."""

    def __init__(self, path: Path, *, use_cache: bool) -> None:
        self.path = path
        self.display = str(path)
        self.use_cache = use_cache
        self.problems: list[LoadProblem] = []
        self.source = SourceMap({}, {})

    def load(self) -> _LoadedFile:
        data = self._read_bytes()
        wanted = data is not None and cache.wants_cache(data, self.use_cache)
        key = cache.content_key(data) if wanted and data is not None else None
        entry = cache.load_entry(key) if key else None
        if entry is not None:
            return self._from_cache(entry)
        parsed = self._parse(data) if data is not None else None
        if parsed is None:
            loaded = _LoadedFile(RegistryFile(self.display, "unknown", None, self.source, 0))
            loaded.problems = list(self.problems)
            return loaded
        self.source = parsed.source
        for dup in parsed.duplicate_keys:
            self._problem(
                "TS002",
                f"duplicate key {dup.key!r} (first defined on line {dup.first_line}); "
                "YAML keeps only the last one, remove one of them",
                dup.pointer,
                line=dup.line,
                column=dup.column,
            )
        loaded = self._read(parsed.value, validate=True)
        if key:
            cache.store_entry(key, _cache_payload(loaded), parsed.source)
        return loaded

    def _read(self, document: Any, *, validate: bool) -> _LoadedFile:
        loaded = _LoadedFile(RegistryFile(self.display, "unknown", document, self.source, 0))
        fmt_name = self._read_document(document, loaded, validate=validate)
        loaded.file = RegistryFile(self.display, fmt_name, document, self.source, len(loaded.tools))
        loaded.problems = sorted(self.problems, key=lambda p: (p.line, p.column))
        return loaded

    def _from_cache(self, entry: dict[str, Any]) -> _LoadedFile:
        self.source = entry["source"]
        cached = [
            LoadProblem(rule, message, self.display, pointer, line, column, tool, fatal)
            for rule, message, pointer, line, column, tool, fatal in entry["problems"]
        ]
        # a file that loaded without fatal problems needs no re-validation
        loaded = self._read(entry["document"], validate=any(p.fatal for p in cached))
        loaded.problems = cached
        return loaded

    # -- reading and parsing -------------------------------------------------------------
    def _read_bytes(self) -> bytes | None:
        try:
            size = self.path.stat().st_size
            if size > max_file_bytes():
                self._problem(
                    "TS001",
                    f"file is {size:,} bytes, over the {max_file_bytes():,}-byte limit; "
                    "split the registry or raise TOOLSEL_MAX_FILE_BYTES",
                    "",
                )
                return None
            return self.path.read_bytes()
        except OSError as exc:
            raise RegistryError(f"{self.display}: cannot read: {exc.strerror or exc}") from None

    def _parse(self, data: bytes) -> ParsedDocument | None:
        if b"\0" in data[:8192]:
            self._problem(
                "TS001", "binary file (NUL bytes); a registry must be YAML or JSON text", ""
            )
            return None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            self._problem(
                "TS001",
                f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
                "",
                line=line,
                column=column,
            )
            return None
        if not text.strip():
            self._problem("TS003", "file is empty; a registry needs a `tools:` list", "")
            return None
        try:
            return parse_text(text, is_json=self.path.suffix.lower() == ".json")
        except SourceSyntaxError as exc:
            self._problem(
                "TS001", f"cannot parse: {exc.message}", "", line=exc.line, column=exc.column
            )
            return None

    # -- document shape ------------------------------------------------------------------
    def _read_document(self, document: Any, loaded: _LoadedFile, *, validate: bool) -> str:
        if document is None:
            self._problem(
                "TS003", "file is empty (only comments); a registry needs a `tools:` list", ""
            )
            return "unknown"
        located = locate_entries(document)
        if located is None:
            self._shape_problem(document)
            return "unknown"
        list_pointer, entries = located
        formats = [detect_entry_format(e) for e in entries if isinstance(e, dict)]
        file_format = formats[0].name if formats else TOOLSEL.name
        if isinstance(document, dict) and file_format == TOOLSEL.name:
            self._check_top_level(document, loaded)
        build = self._build_tool if validate else self._build_valid_tool
        for index, entry in enumerate(entries):
            tool = build(entry, f"{list_pointer}/{index}")
            if tool is not None:
                loaded.tools.append(tool)
        return file_format

    def _shape_problem(self, document: Any) -> None:
        if isinstance(document, dict) and "tools" in document:
            got = _json_type(document["tools"])
            self._problem(
                "TS003",
                f"`tools` must be a list of tool entries, got {got}; write each tool as `- name: ...`",
                "/tools",
            )
        elif isinstance(document, dict):
            self._problem(
                "TS003", "no `tools:` list in this file; add `tools:` with one entry per tool", ""
            )
        else:
            self._problem(
                "TS003",
                f"a registry must be a mapping with a `tools:` list (or a list of tools), "
                f"got {_json_type(document)}",
                "",
            )

    def _check_top_level(self, document: dict[str, Any], loaded: _LoadedFile) -> None:
        for key in document:
            if key not in TOP_LEVEL_KEYS and not key.startswith("x-"):
                self._unknown_key(key, "/" + escape_token(key), TOP_LEVEL_KEYS, None)
        version = document.get("version", 1)
        if version != 1 or isinstance(version, bool):
            self._problem(
                "TS003",
                f"unsupported registry `version: {version!r}`; use `version: 1`",
                "/version",
            )
        categories = document.get("categories", {})
        if not isinstance(categories, dict):
            self._problem(
                "TS003",
                f"`categories` must be a mapping of name to {{description}}, got {_json_type(categories)}",
                "/categories",
            )
            return
        for name, body in categories.items():
            pointer = "/categories/" + escape_token(name)
            description = body.get("description", "") if isinstance(body, dict) else body
            if body is not None and not isinstance(body, dict):
                self._problem(
                    "TS003",
                    f"category {name!r} must be a mapping like `{{description: ...}}`",
                    pointer,
                )
                description = ""
            elif isinstance(body, dict):
                for key in body:
                    if key != "description" and not key.startswith("x-"):
                        self._unknown_key(
                            key, f"{pointer}/{escape_token(key)}", ("description",), None
                        )
            if not isinstance(description, str):
                self._problem(
                    "TS003", f"category {name!r}: `description` must be a string", pointer
                )
                description = ""
            loaded.categories.append(Category(name, description, pointer, self.display))

    # -- tools -----------------------------------------------------------------------------
    def _build_tool(self, entry: Any, pointer: str) -> Tool | None:
        if not isinstance(entry, dict):
            self._problem(
                "TS003", f"a tool entry must be a mapping, got {_json_type(entry)}", pointer
            )
            return None
        fmt = detect_entry_format(entry)
        self._check_keys(entry, fmt, pointer)
        name = fmt.value(entry, "name")
        if name is None:
            self._problem(
                "TS004", "tool has no `name`; every tool needs a unique name", pointer, key=True
            )
            return None
        if not isinstance(name, str):
            self._problem(
                "TS003",
                f"`name` must be a string, got {_json_type(name)}; quote it",
                pointer + fmt.fields["name"],
            )
            name = str(name)
        values = {
            field: self._field(entry, fmt, field, pointer, name)
            for field in fmt.fields
            if field != "name"
        }
        description = values.get("description")
        if description is None:
            self._problem(
                "TS004",
                "tool has no `description`; the model has nothing to select it by",
                pointer,
                tool=name,
                key=True,
            )
            description = ""
        values["description"] = description
        permission = self._permission(entry, fmt, values, pointer, name)
        return self._tool(name, values, permission, fmt, pointer, entry)

    def _build_valid_tool(self, entry: dict[str, Any], pointer: str) -> Tool:
        """Fast path for an entry already known to be valid (its file loaded cleanly before)."""
        fmt = detect_entry_format(entry)
        # native entries already use canonical keys; other shapes are mapped field by field
        values = (
            entry if fmt is TOOLSEL else {field: fmt.value(entry, field) for field in fmt.fields}
        )
        if fmt.name == "mcp":
            permission = _PERMISSIONS[mcp_permission(entry.get("annotations"))]
        else:
            permission = _PERMISSIONS[values.get("permission") or "read"]
        return self._tool(values["name"], values, permission, fmt, pointer, entry)

    def _tool(
        self,
        name: str,
        values: dict[str, Any],
        permission: Permission,
        fmt: EntryFormat,
        pointer: str,
        entry: dict[str, Any],
    ) -> Tool:
        """The one place a Tool is built, from canonical field values.

        Arguments are positional, in field order: this runs once per tool on every load, and
        keyword matching for 23 fields is a measurable part of a 10k-tool cached load.
        """
        get = values.get
        display_name = get("display_name")
        if display_name is None and fmt.name == "mcp":
            display_name = _mcp_annotation_title(values)
        return Tool(
            name,
            get("description") or "",
            ToolSource(self.display, fmt.name, pointer, fmt.fields),
            get("parameters") or dict(DEFAULT_PARAMETERS),
            get("category"),
            permission,
            tuple(get("tags") or ()),
            tuple(get("requires") or ()),
            tuple(get("conflicts") or ()),
            tuple(get("aliases") or ()),
            get("version"),
            bool(get("deprecated")),
            get("deprecated_by"),
            display_name,
            get("search_hint"),
            bool(get("always_include")),
            bool(get("defer_loading")),
            bool(get("parent_task")),
            bool(get("strict")),
            get("annotations"),
            get("output_schema"),
            entry,
        )

    def _field(
        self, entry: dict[str, Any], fmt: EntryFormat, field: str, pointer: str, tool: str
    ) -> Any:
        value = fmt.value(entry, field)
        if value is None:
            return None
        expected = FIELD_TYPES[field]
        field_pointer = pointer + fmt.fields[field]
        if expected == "list":
            if not isinstance(value, list):
                self._problem(
                    "TS003",
                    f"`{field}` must be a list of strings, got {_json_type(value)}; "
                    f"write `{field}: [{value}]`",
                    field_pointer,
                    tool=tool,
                )
                return [str(value)] if isinstance(value, (str, int, float)) else None
            kept = []
            for index, item in enumerate(value):
                if isinstance(item, str):
                    kept.append(item)
                else:
                    self._problem(
                        "TS003",
                        f"`{field}` items must be strings, got {_json_type(item)}",
                        f"{field_pointer}/{index}",
                        tool=tool,
                    )
            return kept
        if not _is_type(value, expected):
            hint = (
                "; quote it" if expected == "string" and not isinstance(value, (dict, list)) else ""
            )
            self._problem(
                "TS003",
                f"`{field}` must be {_article(expected)}, got {_json_type(value)}{hint}",
                field_pointer,
                tool=tool,
            )
            return (
                str(value) if expected == "string" and not isinstance(value, (dict, list)) else None
            )
        return value

    def _permission(
        self,
        entry: dict[str, Any],
        fmt: EntryFormat,
        values: dict[str, Any],
        pointer: str,
        name: str,
    ) -> Permission:
        if fmt.name == "mcp":
            return Permission(mcp_permission(entry.get("annotations")))
        raw = values.get("permission")
        if raw is None:
            return Permission.READ
        try:
            return Permission(raw)
        except ValueError:
            choices = [p.value for p in Permission]
            self._problem(
                "TS501",
                f"unknown permission {raw!r}; use one of {', '.join(choices)}"
                + did_you_mean(raw, choices),
                pointer + fmt.fields["permission"],
                tool=name,
            )
            return Permission.DANGEROUS  # fail safe: an unreadable permission is the riskiest

    def _check_keys(self, entry: dict[str, Any], fmt: EntryFormat, pointer: str) -> None:
        tool = entry.get("name") if isinstance(entry.get("name"), str) else None
        for relative, allowed in fmt.allowed_keys.items():
            mapping = _dig(entry, relative) if relative else entry
            if not isinstance(mapping, dict):
                continue
            for key in mapping:
                if key in allowed or str(key).startswith("x-"):
                    continue
                self._unknown_key(key, f"{pointer}{relative}/{escape_token(key)}", allowed, tool)

    def _unknown_key(
        self, key: str, pointer: str, allowed: Iterable[str], tool: str | None
    ) -> None:
        self._problem(
            "TS006",
            f"unknown key {key!r}{did_you_mean(key, allowed)}; unknown keys are ignored",
            pointer,
            tool=tool,
            key=True,
            fatal=False,
        )

    def _problem(
        self,
        rule: str,
        message: str,
        pointer: str,
        *,
        tool: str | None = None,
        line: int | None = None,
        column: int | None = None,
        key: bool = False,
        fatal: bool = True,
    ) -> None:
        if line is None or column is None:
            line, column = self.source.locate(pointer, key=key)
        self.problems.append(
            LoadProblem(rule, message, self.display, pointer, line, column, tool, fatal)
        )


def _cache_payload(loaded: _LoadedFile) -> dict[str, Any]:
    problems = [
        [p.rule, p.message, p.pointer, p.line, p.column, p.tool, p.fatal] for p in loaded.problems
    ]
    return {"document": loaded.file.document, "problems": problems}


def _dig(entry: dict[str, Any], relative: str) -> Any:
    value: Any = entry
    for token in split_pointer(relative):
        if not isinstance(value, dict) or token not in value:
            return _MISSING
        value = value[token]
    return value


def _mcp_annotation_title(values: dict[str, Any]) -> str | None:
    annotations = values.get("annotations")
    title = annotations.get("title") if isinstance(annotations, dict) else None
    return title if isinstance(title, str) else None


def _is_type(value: Any, expected: str) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "object":
        return isinstance(value, dict)
    return True


def _article(kind: str) -> str:
    return {"object": "a mapping", "boolean": "true or false"}.get(kind, f"a {kind}")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__
