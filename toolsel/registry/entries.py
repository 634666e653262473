"""Read one parsed registry document: its shape, top-level keys, categories and tool
entries, in any of the shapes `formats` describes. Every problem is reported, with its
place, to the caller's `report` function; nothing here raises."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from toolsel.registry.formats import SEMVER, TOOLSEL, detect_entry_format
from toolsel.registry.layout import (
    GOVERNANCE_FIELDS,
    OVERLAY_KEYS,
    TOP_LEVEL_KEYS,
    foreign_schema_key,
    is_overlay,
    locate_entries,
    server_entry_key,
)
from toolsel.registry.model import Category, Governance, OverlayExample, ProblemKind, Tool
from toolsel.registry.source import escape_token
from toolsel.registry.tool_entry import EntryReader, Report, ToolBuilder, json_type

#: A list of tools in a shape toolsel does not read (its schemas under a key such as `schema`).
_FOREIGN = (
    "these tools keep their input schema under `{}`, a tool-list shape toolsel does not read "
    "(it reads toolsel, OpenAI, Anthropic, MCP, Gemini and Docker catalog lists); convert the "
    "file, or rename the key to `parameters`"
)
#: A catalogue of MCP servers (entries that say how to launch a server, or nest its tools).
_SERVERS = (
    "these entries are MCP servers (`{}`), not tools: a catalogue of servers is not a "
    "registry; lint a server's tools with -r 'mcp:COMMAND', or a client config (.mcp.json) "
    "with --connect"
)


class DocumentReader(EntryReader):
    """Turns one document into tools and categories, reporting what is wrong on the way."""

    def __init__(self, display: str, report: Report) -> None:
        super().__init__(display, report)
        self.tools: list[Tool] = []
        self.categories: list[Category] = []
        self.overlay: list[OverlayExample] = []  # an examples overlay's examples
        self.governance: list[Governance] = []  # a governance overlay's entries
        self._builder = ToolBuilder(display, report)

    def read(self, document: Any, *, validate: bool) -> str:
        """Read the tool entries (and categories) of `document`; returns its format."""
        if document is None:
            self._shape("file is empty (only comments); a registry needs a `tools:` list", "")
            return "unknown"
        if is_overlay(document):
            self._read_overlay(document)
            return "overlay"
        located = locate_entries(document)
        if located is None:
            self._shape_problem(document)
            return "unknown"
        for pointer, kind in located.builtins:
            why = f"{kind} is a built-in tool the provider runs itself; toolsel lists it but does not rank, check or emit it"
            self._problem(ProblemKind.BUILTIN_TOOL, why, pointer, fatal=False)
        formats = [
            detect_entry_format(e, gemini=g) for _, e, g in located.entries if isinstance(e, dict)
        ]
        file_format = "gemini" if located.gemini else formats[0].name if formats else TOOLSEL.name
        if (
            formats
            and all(f is TOOLSEL for f in formats)
            and (
                self._refused(located.entries, foreign_schema_key, _FOREIGN)
                or self._refused(located.entries, server_entry_key, _SERVERS)
            )
        ):
            return "unknown"
        if isinstance(document, dict) and file_format == TOOLSEL.name:
            self._check_top_level(document)
        build = self._builder.build if validate else self._builder.build_valid
        for pointer, entry, gemini in located.entries:
            tool = build(entry, pointer, gemini)
            if tool is not None:
                self.tools.append(tool)
        return file_format

    def _refused(
        self, entries: list[tuple[str, Any, bool]], find: Callable[[Any], str | None], says: str
    ) -> bool:
        """Refuses a list by the first entry with a key `find` names (saying `says` of it,
        once) rather than read its entries as tools."""
        for pointer, entry, _ in entries:
            key = find(entry)
            if key is not None:
                self._shape(says.format(key), f"{pointer}/{escape_token(key)}", key=True)
                return True
        return False

    def _read_overlay(self, document: dict[str, Any]) -> None:
        """An examples overlay: `examples: {tool: [prompt, ...]}`. It gives tools defined
        elsewhere more example prompts, and defines no tool. Every wrong value is a
        problem at its position; nothing is dropped silently."""
        self._unknown_keys(document, OVERLAY_KEYS, "")
        if "governance" in document:
            self._read_governance(document)
        if "examples" not in document:
            return
        by_tool = self._by_tool(
            document, "examples", list, "to lists of prompts", "a list of prompts"
        )
        for name, prompts, pointer in by_tool:
            for index, prompt in enumerate(prompts):
                where = f"{pointer}/{index}"
                if isinstance(prompt, str) and prompt.strip():
                    self.overlay.append(OverlayExample(name, prompt, self.display, where))
                else:
                    self._shape(
                        f"example {index + 1} of {name!r} must be a non-empty string, got {json_type(prompt)}",
                        where,
                        tool=name,
                    )

    def _read_governance(self, document: dict[str, Any]) -> None:
        """A governance overlay: `governance: {tool or glob: {permission: ..., ...}}` gives
        tools defined elsewhere (an MCP server's, an OpenAI list's) the fields their format
        cannot hold. Each entry is checked as a tool entry's fields are, at its position."""
        whole = "(or globs such as mcp__github__*) to fields"
        says = f"a mapping of fields ({', '.join(GOVERNANCE_FIELDS[:3])}, ...)"
        for name, fields, pointer in self._by_tool(document, "governance", dict, whole, says):
            known = {k: v for k, v in fields.items() if k in GOVERNANCE_FIELDS}
            self._unknown_keys(fields, GOVERNANCE_FIELDS, pointer, name)
            values = self._checked_fields(name, known, pointer)
            if values:
                self.governance.append(Governance(name, values, self.display, pointer))

    def _by_tool(
        self, document: dict[str, Any], key: str, kind: type, whole: str, says: str
    ) -> Iterator[tuple[str, Any, str]]:
        """(tool name, value, pointer) of each entry of the mapping under `key` whose value is
        a `kind`; any other value is a problem (it must be what `says` says), as is a `key`
        that maps no tool names (`whole`: to what)."""
        mapping = document[key]
        if not isinstance(mapping, dict):
            self._shape(f"`{key}` must map tool names {whole}, got {json_type(mapping)}", f"/{key}")
            return
        for name, value in mapping.items():
            pointer = f"/{key}/{escape_token(str(name))}"
            if isinstance(value, kind):
                yield str(name), value, pointer
            else:
                got = json_type(value)
                self._shape(f"{key} of {name!r} must be {says}, got {got}", pointer, tool=str(name))

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

        entry = {"name": name, "description": "-", **known}
        probe = ToolBuilder(self.display, noted).build(entry, pointer)
        if probe is None or any(fatal):
            return None
        return {key: getattr(probe, key) for key in known}

    def _shape_problem(self, document: Any) -> None:
        from pathlib import PurePath

        from toolsel.clients import not_a_registry

        other = not_a_registry(PurePath(self.display), document)
        if other is not None:  # advice about `tools:` would corrupt another program's file
            self._shape(f"not a registry: {other}", "")
        elif isinstance(document, dict) and server_entry_key(document.get("tools")) is not None:
            self._shape(
                "`tools` holds an MCP server's launch entry (command, args), not tools: this "
                "is a client launch config, not a registry; lint the server's tools with "
                "-r 'mcp:COMMAND'",
                "/tools",
            )
        elif isinstance(document, dict) and "tools" in document:
            got = json_type(document["tools"])
            self._shape(
                f"`tools` must be a list of tool entries, got {got}; write each tool as `- name: ...`",
                "/tools",
            )
        elif isinstance(document, dict):
            self._shape("no `tools:` list in this file; add `tools:` with one entry per tool", "")
        else:
            self._shape(
                f"a registry must be a mapping with a `tools:` list (or a list of tools), "
                f"got {json_type(document)}",
                "",
            )

    def _check_top_level(self, document: dict[str, Any]) -> None:
        self._unknown_keys(document, TOP_LEVEL_KEYS, "", shared=True)
        version = document.get("version", 1)
        if isinstance(version, str) and SEMVER.fullmatch(version):
            # a manifest's or tool pack's own release (`version: "1.0.0"`), not toolsel's
            # format version (the integer 1): its tools are read as usual
            why = f"`version: {version}` is this file's own release, not toolsel's format version (`version: 1`); read as format 1"
            self._problem(ProblemKind.UNREAD_KEY, why, "/version", key=True, fatal=False)
        elif version != 1 or isinstance(version, bool):
            self._shape(
                f"unsupported registry `version: {version!r}`; use `version: 1`", "/version"
            )
        categories = document.get("categories", {})
        if not isinstance(categories, dict):
            self._shape(
                f"`categories` must be a mapping of name to {{description}}, got {json_type(categories)}",
                "/categories",
            )
            return
        for name, body in categories.items():
            pointer = "/categories/" + escape_token(name)
            description = body.get("description", "") if isinstance(body, dict) else body
            if body is not None and not isinstance(body, dict):
                self._shape(
                    f"category {name!r} must be a mapping like `{{description: ...}}`", pointer
                )
                description = ""
            elif isinstance(body, dict):
                self._unknown_keys(body, ("description",), pointer)
            if not isinstance(description, str):
                self._problem(
                    ProblemKind.SHAPE, f"category {name!r}: `description` must be a string", pointer
                )
                description = ""
            self.categories.append(Category(name, description, pointer, self.display))
