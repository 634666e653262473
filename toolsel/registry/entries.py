"""Read one parsed registry document: its shape, top-level keys, categories and tool
entries, in any of the shapes `formats` describes. Every problem is reported, with its
place, to the caller's `report` function; nothing here raises."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from toolsel.registry.formats import (
    DOCKER_ARGUMENT_KEYS,
    FIELD_TYPES,
    GEMINI,
    GOVERNANCE_FIELDS,
    OVERLAY_KEYS,
    SEMVER,
    TOOLSEL,
    TOP_LEVEL_KEYS,
    EntryFormat,
    detect_entry_format,
    docker_parameters,
    foreign_schema_key,
    gemini_schema,
    is_overlay,
    locate_entries,
    mcp_entry_permission,
    server_entry_key,
)
from toolsel.registry.model import (
    DEFAULT_PARAMETERS,
    Category,
    Governance,
    OverlayExample,
    Permission,
    ProblemKind,
    Tool,
    ToolSource,
)
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


class DocumentReader:
    """Turns one document into tools and categories, reporting what is wrong on the way."""

    def __init__(self, display: str, report: Report) -> None:
        self.display = display
        self._problem = report
        self.tools: list[Tool] = []
        self.categories: list[Category] = []
        self.overlay: list[OverlayExample] = []  # an examples overlay's examples
        self.governance: list[Governance] = []  # a governance overlay's entries

    def read(self, document: Any, *, validate: bool) -> str:
        """Read the tool entries (and categories) of `document`; returns its format."""
        if document is None:
            self._problem(
                ProblemKind.SHAPE,
                "file is empty (only comments); a registry needs a `tools:` list",
                "",
            )
            return "unknown"
        if is_overlay(document):
            self._read_overlay(document)
            return "overlay"
        located = locate_entries(document)
        if located is None:
            self._shape_problem(document)
            return "unknown"
        for pointer, kind in located.builtins:
            self._problem(
                ProblemKind.BUILTIN_TOOL,
                f"{kind} is a built-in tool the provider runs itself; toolsel lists it but "
                "does not rank, check or emit it",
                pointer,
                fatal=False,
            )
        formats = [
            detect_entry_format(e, gemini=g) for _, e, g in located.entries if isinstance(e, dict)
        ]
        file_format = "gemini" if located.gemini else formats[0].name if formats else TOOLSEL.name
        if (
            formats
            and all(f is TOOLSEL for f in formats)
            and (self._foreign(located.entries) or self._servers(located.entries))
        ):
            return "unknown"
        if isinstance(document, dict) and file_format == TOOLSEL.name:
            self._check_top_level(document)
        build = self._build_tool if validate else self._build_valid_tool
        for pointer, entry, gemini in located.entries:
            tool = build(entry, pointer, gemini)
            if tool is not None:
                self.tools.append(tool)
        return file_format

    def _foreign(self, entries: list[tuple[str, Any, bool]]) -> bool:
        """A list of tools in a shape toolsel does not read (its schemas under a key such as
        `schema`): refused by name, once, rather than read as tools without parameters."""
        for pointer, entry, _ in entries:
            key = foreign_schema_key(entry)
            if key is not None:
                self._problem(
                    ProblemKind.SHAPE,
                    f"these tools keep their input schema under `{key}`, a tool-list shape "
                    "toolsel does not read (it reads toolsel, OpenAI, Anthropic, MCP, Gemini and "
                    "Docker catalog lists); convert the file, or rename the key to `parameters`",
                    f"{pointer}/{escape_token(key)}",
                    key=True,
                )
                return True
        return False

    def _servers(self, entries: list[tuple[str, Any, bool]]) -> bool:
        """A catalogue of MCP servers (entries that say how to launch a server, or nest the
        server's own tool list): refused by name, once, rather than read as tools named
        after the servers."""
        for pointer, entry, _ in entries:
            key = server_entry_key(entry)
            if key is not None:
                self._problem(
                    ProblemKind.SHAPE,
                    f"these entries are MCP servers (`{key}`), not tools: a catalogue of servers "
                    "is not a registry; lint a server's tools with -r 'mcp:COMMAND', or a "
                    "client config (.mcp.json) with --connect",
                    f"{pointer}/{escape_token(key)}",
                    key=True,
                )
                return True
        return False

    def _read_overlay(self, document: dict[str, Any]) -> None:
        """An examples overlay: `examples: {tool: [prompt, ...]}`. It gives tools defined
        elsewhere more example prompts, and defines no tool. Every wrong value is a
        problem at its position; nothing is dropped silently."""
        for key in document:
            if key not in OVERLAY_KEYS and not key.startswith("x-"):
                self._unknown_key(key, "/" + escape_token(key), OVERLAY_KEYS, None)
        if "governance" in document:
            self._read_governance(document["governance"])
        if "examples" not in document:
            return
        examples = document["examples"]
        if not isinstance(examples, dict):
            self._problem(
                ProblemKind.SHAPE,
                f"`examples` must map tool names to lists of prompts, got {_json_type(examples)}",
                "/examples",
            )
            return
        for name, prompts in examples.items():
            pointer = "/examples/" + escape_token(str(name))
            if not isinstance(prompts, list):
                self._problem(
                    ProblemKind.SHAPE,
                    f"examples of {name!r} must be a list of prompts, got {_json_type(prompts)}",
                    pointer,
                    tool=str(name),
                )
                continue
            for index, prompt in enumerate(prompts):
                if not isinstance(prompt, str) or not prompt.strip():
                    self._problem(
                        ProblemKind.SHAPE,
                        f"example {index + 1} of {name!r} must be a non-empty string, got {_json_type(prompt)}",
                        f"{pointer}/{index}",
                        tool=str(name),
                    )
                    continue
                self.overlay.append(
                    OverlayExample(str(name), prompt, self.display, f"{pointer}/{index}")
                )

    def _read_governance(self, governance: Any) -> None:
        """A governance overlay: `governance: {tool or glob: {permission: ..., ...}}` gives
        tools defined elsewhere (an MCP server's, an OpenAI list's) the fields their format
        cannot hold. Each entry is checked as a tool entry's fields are, at its position."""
        if not isinstance(governance, dict):
            self._problem(
                ProblemKind.SHAPE,
                "`governance` must map tool names (or globs such as mcp__github__*) to "
                f"fields, got {_json_type(governance)}",
                "/governance",
            )
            return
        for name, fields in governance.items():
            pointer = "/governance/" + escape_token(str(name))
            if not isinstance(fields, dict):
                self._problem(
                    ProblemKind.SHAPE,
                    f"governance of {name!r} must be a mapping of fields "
                    f"({', '.join(GOVERNANCE_FIELDS[:3])}, ...), got {_json_type(fields)}",
                    pointer,
                    tool=str(name),
                )
                continue
            known = {k: v for k, v in fields.items() if k in GOVERNANCE_FIELDS}
            for key in fields:
                if key not in known and not str(key).startswith("x-"):
                    self._unknown_key(
                        str(key),
                        f"{pointer}/{escape_token(str(key))}",
                        GOVERNANCE_FIELDS,
                        str(name),
                    )
            values = self._checked_fields(str(name), known, pointer)
            if values:
                self.governance.append(Governance(str(name), values, self.display, pointer))

    def _checked_fields(
        self, name: str, known: dict[str, Any], pointer: str
    ) -> dict[str, Any] | None:
        """`known`'s values as a tool's fields, checked by the tool builder (so every value
        meets the rules a tool entry's does); None when one is wrong, so a wrong value is a
        problem and nothing is half applied."""
        fatal: list[bool] = []
        report = self._problem

        def noted(*args: Any, **kwargs: Any) -> None:
            fatal.append(kwargs.get("fatal", True))
            report(*args, **kwargs)

        self._problem = noted
        try:
            probe = self._build_tool({"name": name, "description": "-", **known}, pointer)
        finally:
            self._problem = report
        if probe is None or any(fatal):
            return None
        return {key: getattr(probe, key) for key in known}

    def _shape_problem(self, document: Any) -> None:
        from pathlib import PurePath

        from toolsel.clients import not_a_registry

        other = not_a_registry(PurePath(self.display), document)
        if other is not None:  # advice about `tools:` would corrupt another program's file
            self._problem(ProblemKind.SHAPE, f"not a registry: {other}", "")
        elif isinstance(document, dict) and server_entry_key(document.get("tools")) is not None:
            self._problem(
                ProblemKind.SHAPE,
                "`tools` holds an MCP server's launch entry (command, args), not tools: this "
                "is a client launch config, not a registry; lint the server's tools with "
                "-r 'mcp:COMMAND'",
                "/tools",
            )
        elif isinstance(document, dict) and "tools" in document:
            got = _json_type(document["tools"])
            self._problem(
                ProblemKind.SHAPE,
                f"`tools` must be a list of tool entries, got {got}; write each tool as `- name: ...`",
                "/tools",
            )
        elif isinstance(document, dict):
            self._problem(
                ProblemKind.SHAPE,
                "no `tools:` list in this file; add `tools:` with one entry per tool",
                "",
            )
        else:
            self._problem(
                ProblemKind.SHAPE,
                f"a registry must be a mapping with a `tools:` list (or a list of tools), "
                f"got {_json_type(document)}",
                "",
            )

    def _check_top_level(self, document: dict[str, Any]) -> None:
        for key in document:
            if key not in TOP_LEVEL_KEYS and not key.startswith("x-"):
                self._unknown_key(key, "/" + escape_token(key), TOP_LEVEL_KEYS, None, shared=True)
        version = document.get("version", 1)
        if isinstance(version, str) and SEMVER.fullmatch(version):
            # a manifest's or tool pack's own release (`version: "1.0.0"`), not toolsel's
            # format version (the integer 1): its tools are read as usual
            self._problem(
                ProblemKind.UNREAD_KEY,
                f"`version: {version}` is this file's own release, not toolsel's format "
                "version (`version: 1`); read as format 1",
                "/version",
                key=True,
                fatal=False,
            )
        elif version != 1 or isinstance(version, bool):
            self._problem(
                ProblemKind.SHAPE,
                f"unsupported registry `version: {version!r}`; use `version: 1`",
                "/version",
            )
        categories = document.get("categories", {})
        if not isinstance(categories, dict):
            self._problem(
                ProblemKind.SHAPE,
                f"`categories` must be a mapping of name to {{description}}, got {_json_type(categories)}",
                "/categories",
            )
            return
        for name, body in categories.items():
            pointer = "/categories/" + escape_token(name)
            description = body.get("description", "") if isinstance(body, dict) else body
            if body is not None and not isinstance(body, dict):
                self._problem(
                    ProblemKind.SHAPE,
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
                    ProblemKind.SHAPE, f"category {name!r}: `description` must be a string", pointer
                )
                description = ""
            self.categories.append(Category(name, description, pointer, self.display))

    # -- tools -----------------------------------------------------------------------------
    def _build_tool(self, entry: Any, pointer: str, gemini: bool = False) -> Tool | None:
        if not isinstance(entry, dict):
            self._problem(
                ProblemKind.SHAPE,
                f"a tool entry must be a mapping, got {_json_type(entry)}",
                pointer,
            )
            return None
        fmt = detect_entry_format(entry, gemini=gemini)
        self._check_keys(entry, fmt, pointer)
        name = fmt.value(entry, "name")
        if name is None:
            self._problem(
                ProblemKind.MISSING_FIELD,
                "tool has no `name`; every tool needs a unique name",
                pointer,
                key=True,
            )
            return None
        if not isinstance(name, str):
            self._problem(
                ProblemKind.SHAPE,
                f"`name` must be a string, got {_json_type(name)}; quote it",
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
        description = values.get("description")
        if description is None:
            self._problem(
                ProblemKind.MISSING_FIELD,
                "tool has no `description`; the model has nothing to select it by",
                pointer,
                tool=name,
                key=True,
            )
            description = ""
        values["description"] = description
        permission = self._permission(entry, fmt, values, pointer, name)
        return self._tool(name, values, permission, fmt, pointer, entry)

    def _build_valid_tool(self, entry: dict[str, Any], pointer: str, gemini: bool = False) -> Tool:
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
                self._problem(
                    ProblemKind.SHAPE,
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
                        ProblemKind.SHAPE,
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
                ProblemKind.SHAPE,
                f"`{field}` must be {_article(expected)}, got {_json_type(value)}{hint}",
                field_pointer,
                tool=tool,
            )
            return (
                str(value) if expected == "string" and not isinstance(value, (dict, list)) else None
            )
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
                self._problem(
                    ProblemKind.SHAPE,
                    "a Docker catalog argument must be a mapping with a `name`",
                    where,
                    tool=tool,
                )
                continue
            for key in argument:
                if key not in DOCKER_ARGUMENT_KEYS and not str(key).startswith("x-"):
                    self._unknown_key(
                        key, f"{where}/{escape_token(key)}", DOCKER_ARGUMENT_KEYS, tool, shared=True
                    )
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
            for key in mapping:
                if key in allowed or str(key).startswith("x-"):
                    continue
                self._unknown_key(
                    key, f"{pointer}{relative}/{escape_token(key)}", allowed, tool, shared=True
                )

    def _unknown_key(
        self,
        key: str,
        pointer: str,
        allowed: Iterable[str],
        tool: str | None,
        *,
        shared: bool = False,
    ) -> None:
        """An unknown key is TS006, a mistake. In a place other tools' files share (a tool
        entry, a tool list's top level), only a likely typo of a key the shape reads is;
        any other key there is that file's own metadata (a manifest's `name`, MCP's `title`,
        a project's `command`), noted as TS011. Overlays and governance are toolsel's own."""
        typo = typo_of(key, allowed) if shared else None
        if shared and typo is None:
            kind, message = ProblemKind.UNREAD_KEY, f"toolsel does not read {key!r} here"
        elif shared:
            kind, message = ProblemKind.UNKNOWN_KEY, f"unknown key {key!r} (did you mean {typo!r}?)"
        else:
            kind, message = (
                ProblemKind.UNKNOWN_KEY,
                f"unknown key {key!r}{did_you_mean(key, allowed)}",
            )
        self._problem(
            kind,
            f"{message}; its value is ignored",
            pointer,
            tool=tool,
            key=True,
            fatal=False,
        )


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
