"""The registry model: frozen dataclasses, each tool remembering where it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from toolsel.registry.permission import Permission as Permission  # re-exported
from toolsel.registry.pointer import join_pointer

if TYPE_CHECKING:
    from toolsel.registry.source import Comment, SourceMap


#: Tools that launch a sub-agent even when the registry does not say `parent_task: true`.
DEFAULT_PARENT_TASK_TOOLS = frozenset({"Task", "Agent", "SubAgent"})

DEFAULT_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True, slots=True)
class Location:
    """A 1-based place in a registry file, with the JSON pointer of the node."""

    file: str
    line: int
    column: int
    pointer: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class ToolSource:
    """Where a tool's entry lives, and where each canonical field sits inside that entry."""

    file: str
    format: str  # toolsel | openai-chat | openai-responses | anthropic | mcp
    pointer: str  # pointer of the tool's entry, e.g. /tools/3
    fields: dict[str, str]  # canonical field -> pointer relative to the entry, e.g. /function/name

    def field_pointer(self, name: str, *tokens: str | int) -> str:
        relative = self.fields.get(name, "/" + name)
        return join_pointer(self.pointer + relative, *tokens)


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    source: ToolSource
    parameters: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_PARAMETERS))
    category: str | None = None
    permission: Permission = Permission.READ
    tags: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    version: str | None = None
    deprecated: bool = False
    deprecated_by: str | None = None
    display_name: str | None = None
    search_hint: str | None = None
    always_include: bool = False
    defer_loading: bool = False
    parent_task: bool = False
    strict: bool = False
    annotations: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: prompts that should select this tool, from its own entry (overlays add more:
    #: `Registry.examples_for`)
    examples: tuple[str, ...] = ()
    #: the fields a governance overlay set on it, (field, value) sorted (`toolsel lock`
    #: pins them apart from the entry)
    governed: tuple[tuple[str, Any], ...] = ()

    @property
    def launches_subagent(self) -> bool:
        return self.parent_task or self.name in DEFAULT_PARENT_TASK_TOOLS


@dataclass(frozen=True, slots=True)
class Category:
    name: str
    description: str
    pointer: str
    file: str


class ProblemKind(StrEnum):
    """What kind of problem the loader found. `toolsel lint` maps each kind to its rule."""

    UNREADABLE = "unreadable"  # not UTF-8 text, does not parse, too large, or hostile
    DUPLICATE_KEY = "duplicate-key"
    SHAPE = "shape"  # a wrong type or structure, or an empty file
    MISSING_FIELD = "missing-field"  # a tool without a name or a description
    UNKNOWN_KEY = "unknown-key"  # a likely typo of a key toolsel reads
    UNREAD_KEY = "unread-key"  # any other key: the file's own metadata, ignored
    UNKNOWN_PERMISSION = "unknown-permission"
    BUILTIN_TOOL = "builtin-tool"  # a provider's hosted tool: listed, not ranked or checked


@dataclass(frozen=True, slots=True)
class LoadProblem:
    """Something wrong in a registry file, found while loading it."""

    kind: ProblemKind
    message: str
    file: str
    pointer: str
    line: int
    column: int
    tool: str | None = None
    fatal: bool = True  # fatal problems stop every command except `lint`


@dataclass(frozen=True, slots=True)
class OverlayExample:
    """One example prompt an overlay file gives a tool defined elsewhere."""

    tool: str
    text: str
    file: str
    pointer: str  # /examples/<tool>/<index>


@dataclass(frozen=True, slots=True)
class Governance:
    """Fields a governance overlay gives the tools `pattern` names (a name, or a glob)."""

    pattern: str
    values: dict[str, Any]
    file: str
    pointer: str  # /governance/<pattern>

    def matches(self, name: str) -> bool:
        if self.pattern == name:
            return True
        if not any(c in self.pattern for c in "*?["):
            return False
        from fnmatch import fnmatchcase

        return fnmatchcase(name, self.pattern)


@dataclass(frozen=True, slots=True)
class RegistryFile:
    path: str
    format: str
    document: Any
    source: SourceMap
    tool_count: int
    comments: tuple[Comment, ...] = ()  # YAML comments that mention toolsel (suppressions)


@dataclass(frozen=True, slots=True)
class Registry:
    files: tuple[RegistryFile, ...]
    tools: tuple[Tool, ...]
    categories: dict[str, Category]
    problems: tuple[LoadProblem, ...] = ()
    overlay_examples: tuple[OverlayExample, ...] = ()
    _by_name: dict[str, Tool] = field(init=False, repr=False, compare=False)
    _by_alias: dict[str, Tool] | None = field(init=False, repr=False, compare=False)
    _conflicted_by: dict[str, frozenset[str]] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name: dict[str, Tool] = {}
        for tool in self.tools:
            by_name.setdefault(tool.name, tool)  # first definition wins; TS007 reports the rest
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_by_alias", None)
        object.__setattr__(self, "_conflicted_by", None)

    def get(self, name: str) -> Tool | None:
        return self._by_name.get(name)

    def conflicted_by(self, name: str) -> frozenset[str]:
        """The tools whose `conflicts` name `name` (the other direction of a conflict),
        computed once for the registry."""
        if self._conflicted_by is None:
            found: dict[str, set[str]] = {}
            for tool in self._by_name.values():
                for other in tool.conflicts:
                    found.setdefault(other, set()).add(tool.name)
            object.__setattr__(self, "_conflicted_by", {k: frozenset(v) for k, v in found.items()})
        assert self._conflicted_by is not None
        return self._conflicted_by.get(name, frozenset())

    def in_conflict(self, a: str, b: str) -> bool:
        """Whether tools `a` and `b` are never used together: the `conflicts` of either names
        the other (a conflict declared on one side is enough)."""
        first, second = self.get(a), self.get(b)
        return (first is not None and b in first.conflicts) or (
            second is not None and a in second.conflicts
        )

    def resolve(self, name: str) -> Tool | None:
        """The tool `name` calls: by its name, else by one of its aliases (a published
        older name, such as Claude Code's Task for Agent)."""
        tool = self._by_name.get(name)
        if tool is not None:
            return tool
        if self._by_alias is None:
            aliases: dict[str, Tool] = {}
            for each in self.tools:
                for alias in each.aliases:
                    if alias not in self._by_name:
                        aliases.setdefault(alias, each)
            object.__setattr__(self, "_by_alias", aliases)
        assert self._by_alias is not None
        return self._by_alias.get(name)

    def examples_for(self, name: str) -> tuple[str, ...]:
        """A tool's example prompts: its own, then the overlays', each once, in order."""
        tool = self._by_name.get(name)
        own = tool.examples if tool is not None else ()
        extra = [e.text for e in self.overlay_examples if e.tool == name]
        return tuple(dict.fromkeys([*own, *extra])) if extra else own

    @property
    def has_examples(self) -> bool:
        return bool(self.overlay_examples) or any(t.examples for t in self.tools)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    @property
    def names(self) -> list[str]:
        return list(self._by_name)

    def file(self, path: str) -> RegistryFile | None:
        return next((f for f in self.files if f.path == path), None)

    def locate(self, file: str, pointer: str, *, key: bool = False) -> Location:
        registry_file = self.file(file)
        line, column = registry_file.source.locate(pointer, key=key) if registry_file else (1, 1)
        return Location(file, line, column, pointer)

    def locate_field(
        self, tool: Tool, name: str, *tokens: str | int, key: bool = False
    ) -> Location:
        return self.locate(tool.source.file, tool.source.field_pointer(name, *tokens), key=key)
