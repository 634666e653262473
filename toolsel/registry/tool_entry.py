"""Read one tool entry, in any of the shapes `formats` describes, into a Tool. Every problem
is reported, with its place, to the caller's `report` function; nothing here raises."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Protocol

from toolsel.registry.formats import (
    DOCKER_ARGUMENT_KEYS,
    FIELD_TYPES,
    GEMINI,
    TOOLSEL,
    EntryFormat,
    detect_entry_format,
    docker_parameters,
    gemini_schema,
    mcp_entry_permission,
)
from toolsel.registry.model import DEFAULT_PARAMETERS, Permission, ProblemKind, Tool, ToolSource
from toolsel.registry.source import escape_token, split_pointer
from toolsel.suggest import did_you_mean, typo_of

_PERMISSIONS = {p.value: p for p in Permission}
_MISSING: Any = object()


class Report(Protocol):
    """Where a reader reports a problem: at `pointer`, or at an explicit line and column."""

    def __call__(
        self,
        kind: ProblemKind,
        message: str,
        pointer: str,
        *,
        tool: str | None = None,
        line: int | None = None,
        column: int | None = None,
        key: bool = False,
        fatal: bool = True,
    ) -> None: ...


class EntryReader:
    """Reads one file's entries, reporting each problem to `report`."""

    def __init__(self, display: str, report: Report) -> None:
        self.display = display
        self._problem = report

    def _shape(self, message: str, pointer: str, **details: Any) -> None:
        self._problem(ProblemKind.SHAPE, message, pointer, **details)

    def _unknown_keys(
        self,
        mapping: dict[str, Any],
        allowed: Collection[str],
        pointer: str,
        tool: str | None = None,
        *,
        shared: bool = False,
    ) -> None:
        """Each key of `mapping` at `pointer` that is not `allowed` (nor an `x-` extension).
        An unknown key is TS006, a mistake. In a place other tools' files share (a tool
        entry, a tool list's top level), only a likely typo of a key the shape reads is;
        any other key there is that file's own metadata (a manifest's `name`, MCP's `title`,
        a project's `command`), noted as TS011. Overlays and governance are toolsel's own."""
        for key in mapping:
            if key in allowed or str(key).startswith("x-"):
                continue
            typo = typo_of(key, allowed) if shared else None
            if shared and typo is None:
                kind, message = ProblemKind.UNREAD_KEY, f"toolsel does not read {key!r} here"
            elif shared:
                kind, message = (
                    ProblemKind.UNKNOWN_KEY,
                    f"unknown key {key!r} (did you mean {typo!r}?)",
                )
            else:
                kind, message = (
                    ProblemKind.UNKNOWN_KEY,
                    f"unknown key {key!r}{did_you_mean(key, allowed)}",
                )
            where = f"{pointer}/{escape_token(key)}"
            self._problem(
                kind, f"{message}; its value is ignored", where, tool=tool, key=True, fatal=False
            )


class ToolBuilder(EntryReader):
    """Turns tool entries into Tools, reporting what is wrong on the way."""

    def build(self, entry: Any, pointer: str, gemini: bool = False) -> Tool | None:
        """The entry as a Tool, every problem reported; None when it is not one."""
        if not isinstance(entry, dict):
            self._shape(f"a tool entry must be a mapping, got {json_type(entry)}", pointer)
            return None
        fmt = detect_entry_format(entry, gemini=gemini)
        self._check_keys(entry, fmt, pointer)
        name = fmt.value(entry, "name")
        if name is None:
            why = "tool has no `name`; every tool needs a unique name"
            self._problem(ProblemKind.MISSING_FIELD, why, pointer, key=True)
            return None
        if not isinstance(name, str):
            self._shape(
                f"`name` must be a string, got {json_type(name)}; quote it",
                pointer + fmt.fields["name"],
            )
            name = str(name)
        values = {
            field: self._field(entry, fmt, field, pointer, name)
            for field in fmt.fields
            if field != "name" and not (field == "parameters" and fmt.name == "docker-catalog")
        }
        if fmt.name == "docker-catalog":
            values["parameters"] = self._docker_arguments(entry, pointer, name)
        if values.get("description") is None:
            why = "tool has no `description`; the model has nothing to select it by"
            self._problem(ProblemKind.MISSING_FIELD, why, pointer, tool=name, key=True)
            values["description"] = ""
        permission = self._permission(entry, fmt, values, pointer, name)
        return self._tool(name, values, permission, fmt, pointer, entry)

    def build_valid(self, entry: dict[str, Any], pointer: str, gemini: bool = False) -> Tool:
        """Fast path for an entry already known to be valid (its file loaded cleanly before)."""
        fmt = detect_entry_format(entry, gemini=gemini)
        # native entries already use canonical keys; other shapes are mapped field by field
        values = (
            entry if fmt is TOOLSEL else {field: fmt.value(entry, field) for field in fmt.fields}
        )
        if fmt.name == "docker-catalog":
            values["parameters"] = docker_parameters(entry.get("arguments") or [])
        if fmt.name in ("mcp", "docker-catalog"):
            permission = _PERMISSIONS[mcp_entry_permission(entry)]
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
        if display_name is None and fmt.name in ("mcp", "docker-catalog"):
            display_name = _mcp_annotation_title(values)
        parameters = get("parameters") or dict(DEFAULT_PARAMETERS)
        if fmt is GEMINI:  # Gemini's OpenAPI types are upper case: OBJECT, STRING, ...
            parameters = gemini_schema(parameters)
        return Tool(
            name,
            get("description") or "",
            ToolSource(self.display, fmt.name, pointer, fmt.fields),
            parameters,
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
            tuple(get("examples") or ()),
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
                self._shape(
                    f"`{field}` must be a list of strings, got {json_type(value)}; "
                    f"write `{field}: [{value}]`",
                    field_pointer,
                    tool=tool,
                )
                return [str(value)] if isinstance(value, (str, int, float)) else None
            for index, item in enumerate(value):
                if not isinstance(item, str):
                    self._shape(
                        f"`{field}` items must be strings, got {json_type(item)}",
                        f"{field_pointer}/{index}",
                        tool=tool,
                    )
            return [item for item in value if isinstance(item, str)]
        if not _is_type(value, expected):
            quotable = expected == "string" and not isinstance(value, (dict, list))
            self._shape(
                f"`{field}` must be {_article(expected)}, got {json_type(value)}"
                + ("; quote it" if quotable else ""),
                field_pointer,
                tool=tool,
            )
            return str(value) if quotable else None
        return value

    def _docker_arguments(self, entry: dict[str, Any], pointer: str, tool: str) -> Any:
        """A Docker catalog entry's `arguments`, as a JSON Schema; each argument that is not
        a mapping with a name is reported and left out."""
        arguments = entry.get("arguments")
        if arguments is None:
            return None
        kept = []
        for index, argument in enumerate(arguments):
            where = f"{pointer}/arguments/{index}"
            if not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
                self._shape(
                    "a Docker catalog argument must be a mapping with a `name`", where, tool=tool
                )
                continue
            self._unknown_keys(argument, DOCKER_ARGUMENT_KEYS, where, tool, shared=True)
            kept.append(argument)
        return docker_parameters(kept)

    def _permission(
        self,
        entry: dict[str, Any],
        fmt: EntryFormat,
        values: dict[str, Any],
        pointer: str,
        name: str,
    ) -> Permission:
        if fmt.name in ("mcp", "docker-catalog"):
            return Permission(mcp_entry_permission(entry))
        raw = values.get("permission")
        if raw is None:
            return Permission.READ
        try:
            return Permission(raw)
        except ValueError:
            choices = [p.value for p in Permission]
            self._problem(
                ProblemKind.UNKNOWN_PERMISSION,
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
            self._unknown_keys(mapping, allowed, pointer + relative, tool, shared=True)


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
    return isinstance(value, _PYTHON_TYPES.get(expected, object))


_PYTHON_TYPES: dict[str, type] = {"string": str, "boolean": bool, "object": dict}


def _article(kind: str) -> str:
    return {"object": "a mapping", "boolean": "true or false"}.get(kind, f"a {kind}")


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    for kind, name in _JSON_TYPES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


#: bool before the numbers: a bool is an int to Python
_JSON_TYPES = (
    (bool, "a boolean"), ((int, float), "a number"), (str, "a string"), (dict, "a mapping"),
    (list, "a list"),
)  # fmt: skip
