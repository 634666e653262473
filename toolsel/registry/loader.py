"""Load registry files into the frozen model, collecting every problem with its position."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolsel.acyclic import gc_paused
from toolsel.errors import RegistryError
from toolsel.inputs import Binary, InputProblem, TooLarge, display_path
from toolsel.registry import cache
from toolsel.registry.entries import DocumentReader
from toolsel.registry.model import (
    Category,
    Governance,
    LoadProblem,
    OverlayExample,
    ProblemKind,
    Registry,
    RegistryFile,
    Tool,
)
from toolsel.registry.paths import PathLike, expand_files, read_registry_bytes
from toolsel.registry.source import (
    Comment,
    ParsedDocument,
    SourceMap,
    SourceSyntaxError,
    parse_text,
)
from toolsel.suggest import did_you_mean

log = logging.getLogger("toolsel")


def describe_input_problem(problem: InputProblem) -> str:
    if isinstance(problem, TooLarge):
        return f"{problem}; split the registry or raise TOOLSEL_MAX_FILE_BYTES"
    if isinstance(problem, Binary):
        return f"{problem}; a registry must be YAML or JSON text"
    return f"cannot read: {problem}"


def load_registry(
    paths: PathLike | Iterable[PathLike] | None = None,
    *,
    use_cache: bool = True,
    strict: bool = True,
    contents: Mapping[Path, bytes] | None = None,
) -> Registry:
    """Load one or more registry files or directories into one `Registry`.

    With `strict` (the default) a fatal problem raises `RegistryError` naming its position;
    `toolsel lint` passes `strict=False` to get every problem as data instead. `contents`
    are files' bytes already read (by a caller that hashed them), so what is parsed is
    exactly what was hashed.
    """
    files: list[RegistryFile] = []
    tools: list[Tool] = []
    categories: dict[str, Category] = {}
    problems: list[LoadProblem] = []
    overlays: list[OverlayExample] = []
    governance: list[Governance] = []
    expanded = expand_files(paths if paths is not None else ())
    for path in expanded:
        with gc_paused():
            data = contents.get(path) if contents is not None else None
            shown = expanded.labels.get(path)
            loaded = _FileLoader(path, use_cache=use_cache, data=data, display=shown).load()
        files.append(loaded.file)
        server = expanded.namespaces.get(path)
        tools.extend(namespace(loaded.tools, server) if server else loaded.tools)
        overlays.extend(
            [replace(e, tool=_prefixed(f"mcp__{server}__", e.tool)) for e in loaded.overlay]
            if server
            else loaded.overlay
        )
        for category in loaded.categories:
            categories.setdefault(category.name, category)
        problems.extend(loaded.problems)
        governance.extend(loaded.governance)
    if governance:
        tools = _governed(tools, governance, files, problems)
    registry = Registry(tuple(files), tuple(tools), categories, tuple(problems), tuple(overlays))
    if strict:
        raise_for_fatal(registry)
        raise_for_duplicates(registry)
        builtin = any(p.kind is ProblemKind.BUILTIN_TOOL for p in registry.problems)
        if not registry.tools and not builtin:  # only built-in tools: nothing wrong to say
            raise RegistryError(
                f"{registry.files[0].path}: the registry has no tools"
                if registry.files
                else "the registry has no tools",
                hint="add entries under `tools:`; lint reports this as TS009",
            )
    return registry


def namespace(tools: list[Tool], server: str) -> list[Tool]:
    """Tools renamed as Claude Code names an MCP server's tools, `mcp__<server>__<tool>`;
    their `requires` and `conflicts` on one another follow."""
    prefix = f"mcp__{server}__"
    own = {t.name for t in tools}

    def renamed(names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(prefix + n if n in own else n for n in names)

    return [
        replace(
            t,
            name=_prefixed(prefix, t.name),
            requires=renamed(t.requires),
            conflicts=renamed(t.conflicts),
        )
        for t in tools
    ]


def _governed(
    tools: list[Tool],
    governance: list[Governance],
    files: list[RegistryFile],
    problems: list[LoadProblem],
) -> list[Tool]:
    """Each tool with the fields of every governance entry that names it (a later entry
    wins); an entry that names no tool is a problem at its position (not fatal: the rest
    of the registry still loads), since a governance entry with a typo governs nothing."""
    used = [False] * len(governance)
    out: list[Tool] = []
    for tool in tools:
        values: dict[str, object] = {}
        for index, entry in enumerate(governance):
            if entry.matches(tool.name):
                values.update(entry.values)
                used[index] = True
        if values:
            governed = tuple(sorted({**dict(tool.governed), **values}.items()))
            tool = replace(tool, **values, governed=governed)  # type: ignore[arg-type]
        out.append(tool)
    sources = {f.path: f.source for f in files}
    names = [t.name for t in tools]
    for entry, hit in zip(governance, used, strict=True):
        if hit:
            continue
        source = sources.get(entry.file)
        line, column = (1, 1) if source is None else source.locate(entry.pointer, key=True)
        why = f"governance for {entry.pattern!r} names no tool in the registry{did_you_mean(entry.pattern, names)}"
        where = (entry.file, entry.pointer, line, column)
        problems.append(LoadProblem(ProblemKind.SHAPE, why, *where, entry.pattern, fatal=False))
    return out


def _prefixed(prefix: str, name: str) -> str:
    return name if name.startswith(prefix) else prefix + name


def raise_for_duplicates(registry: Registry) -> None:
    """Two tools of one name (in two files, or twice in one) would be ranked, counted and
    listed twice: refused, with both locations, as lint's TS007 reports them."""
    first: dict[str, Tool] = {}
    for tool in registry.tools:
        earlier = first.setdefault(tool.name, tool)
        if earlier is not tool:
            here = registry.locate_field(tool, "name")
            there = registry.locate_field(earlier, "name")
            raise RegistryError(
                f"{here}: duplicate tool name {tool.name!r} (first defined at {there})",
                hint="rename one; for tools of several MCP servers, namespace them with "
                "--namespace or -r SERVER=PATH (mcp__SERVER__TOOL)",
            )


def raise_for_fatal(registry: Registry) -> None:
    fatal = [p for p in registry.problems if p.fatal]
    if fatal:
        first = fatal[0]
        more = f"; {len(fatal) - 1} more problem(s)" if len(fatal) > 1 else ""
        raise RegistryError(
            f"{first.file}:{first.line}:{first.column}: {first.message}{more}",
            hint="run `toolsel lint` on the registry to see every problem",
            problem=first,
        )


@dataclass(slots=True)
class _LoadedFile:
    """One file's share of a registry."""

    file: RegistryFile
    tools: list[Tool] = field(default_factory=list)
    categories: list[Category] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    overlay: list[OverlayExample] = field(default_factory=list)
    governance: list[Governance] = field(default_factory=list)


class _FileLoader:
    """Reads one file; every problem becomes a LoadProblem, never an exception."""

    def __init__(
        self, path: Path, *, use_cache: bool, data: bytes | None = None, display: str | None = None
    ) -> None:
        self.path = path
        self.data = data
        self.display = display or display_path(path)
        self.use_cache = use_cache
        self.problems: list[LoadProblem] = []
        self.source = SourceMap({}, {})
        self.comments: tuple[Comment, ...] = ()

    def load(self) -> _LoadedFile:
        data = self._read_bytes()
        wanted = data is not None and cache.wants_cache(data, self.use_cache)
        key = cache.content_key(data) if wanted and data is not None else None
        entry = cache.load_entry(key) if key else None
        if entry is not None:
            try:
                return self._from_cache(entry)
            except (KeyError, TypeError, ValueError):
                self.problems, self.source, self.comments = [], SourceMap({}, {}), ()
                log.info("%s: discarded a cache entry that does not add up", self.display)
        parsed = self._parse(data) if data is not None else None
        if parsed is None:
            unread = RegistryFile(self.display, "unknown", None, self.source, 0)
            return _LoadedFile(unread, problems=list(self.problems))
        self.source, self.comments = parsed.source, parsed.comments
        for dup in parsed.duplicate_keys:
            why = (
                f"duplicate key {dup.key!r} (first defined on line {dup.first_line}); "
                "YAML keeps only the last one, remove one of them"
            )
            self._problem(
                ProblemKind.DUPLICATE_KEY, why, dup.pointer, line=dup.line, column=dup.column
            )
        loaded = self._read(parsed.value, validate=True)
        if key:
            cache.store_entry(key, _cache_payload(loaded), parsed.source)
        return loaded

    def _read(self, document: Any, *, validate: bool) -> _LoadedFile:
        reader = DocumentReader(self.display, self._problem)
        fmt_name = reader.read(document, validate=validate)
        file = RegistryFile(
            self.display, fmt_name, document, self.source, len(reader.tools), self.comments
        )
        problems = sorted(self.problems, key=lambda p: (p.line, p.column))
        return _LoadedFile(
            file, reader.tools, reader.categories, problems, reader.overlay, reader.governance
        )

    def _from_cache(self, entry: dict[str, Any]) -> _LoadedFile:
        self.source = entry["source"]
        self.comments = tuple(Comment(int(a), int(b), str(c)) for a, b, c in entry["comments"])
        cached = [
            LoadProblem(
                ProblemKind(kind), message, self.display, pointer, line, column, tool, fatal
            )
            for kind, message, pointer, line, column, tool, fatal in entry["problems"]
        ]
        # a file that loaded without fatal problems needs no re-validation
        loaded = self._read(entry["document"], validate=any(p.fatal for p in cached))
        loaded.problems = cached
        return loaded

    # -- reading and parsing -------------------------------------------------------------
    def _read_bytes(self) -> bytes | None:
        """The file's bytes, read once (the cache key and the parse use the same bytes);
        None, with a problem, when it cannot be read."""
        if self.data is not None:
            return self.data
        try:
            return read_registry_bytes(self.path)
        except InputProblem as problem:
            self._problem(ProblemKind.UNREADABLE, describe_input_problem(problem), "")
            return None

    def _parse(self, data: bytes) -> ParsedDocument | None:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            why = f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
            self._problem(ProblemKind.UNREADABLE, why, "", line=line, column=column)
            return None
        if not text.strip():
            self._problem(ProblemKind.SHAPE, "file is empty; a registry needs a `tools:` list", "")
            return None
        try:
            return parse_text(text, is_json=self.path.suffix.lower() in (".json", ".jsonl"))
        except SourceSyntaxError as exc:
            why = f"cannot parse: {exc.message}"
            self._problem(ProblemKind.UNREADABLE, why, "", line=exc.line, column=exc.column)
            return None

    def _problem(
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
    ) -> None:
        if line is None or column is None:
            line, column = self.source.locate(pointer, key=key)
        self.problems.append(
            LoadProblem(kind, message, self.display, pointer, line, column, tool, fatal)
        )


def _cache_payload(loaded: _LoadedFile) -> dict[str, Any]:
    problems = [
        [p.kind.value, p.message, p.pointer, p.line, p.column, p.tool, p.fatal]
        for p in loaded.problems
    ]
    comments = [[c.line, c.column, c.text] for c in loaded.file.comments]
    return {"document": loaded.file.document, "problems": problems, "comments": comments}
