"""`toolsel convert`: a whole registry in another shape (toolsel's own, or a provider's tool
list), with a note for each kind of field the target has no place for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolsel.registry.formats import ENTRY_FORMATS, MCP_PERMISSION_META
from toolsel.registry.model import Permission, ProblemKind, Registry, Tool

#: What each target is called in a note.
TARGET_TITLES = {
    "toolsel": "toolsel registries",
    "openai": "OpenAI Chat Completions tools",
    "openai-responses": "OpenAI Responses tools",
    "anthropic": "Anthropic Messages tools",
    "gemini": "Gemini function declarations",
    "mcp": "MCP tools",
}

#: Canonical fields beyond name, description and parameters that each provider's shape
#: holds (as `toolsel.emit` writes it); toolsel's own shape holds them all.
HELD: dict[str, frozenset[str]] = {
    "openai": frozenset({"strict"}),
    "openai-responses": frozenset({"strict"}),
    "anthropic": frozenset({"strict", "defer_loading"}),
    "gemini": frozenset(),
    "mcp": frozenset({"permission", "display_name", "annotations", "output_schema"}),
}


#: Each field a tool may carry beyond name, description and parameters, in the order notes
#: name them; a tool that carries a value for one loses it in a target that holds none.
CARRIED = (
    "display_name category permission tags requires conflicts aliases version deprecated "
    "deprecated_by search_hint always_include defer_loading parent_task strict annotations "
    "output_schema examples"
).split()
_OPTIONAL_TEXT = frozenset({"display_name", "category", "version", "deprecated_by", "search_hint"})


def _carries(registry: Registry, tool: Tool, field: str) -> bool:
    """Whether `tool` has a value for `field` that reading the target back would not give."""
    if field == "permission":
        return tool.permission is not Permission.READ
    if field == "examples":
        return bool(registry.examples_for(tool.name))
    value = getattr(tool, field)
    return value is not None if field in _OPTIONAL_TEXT else bool(value)


#: What toolsel itself writes in an MCP entry's `_meta` (no key of the source's own).
_TOOLSEL_META = {MCP_PERMISSION_META}
#: Keys of an entry that only say which shape it is, never data.
_STRUCTURAL = {
    "openai-chat": {"type", "function"},
    "openai-responses": {"type"},
    "openai-custom": {"type"},
    "anthropic": {"type"},
}


@dataclass(frozen=True, slots=True)
class ConversionNote:
    """Something the target cannot hold, or holds differently, for `tools`."""

    subject: str  # "`permission`", "`cache_control` (Anthropic)", "built-in tools"
    tools: tuple[str, ...]
    outcome: str  # what became of it: "OpenAI ... have no place for it; left out"


@dataclass(frozen=True, slots=True)
class Conversion:
    target: str
    document: dict[str, Any]
    notes: tuple[ConversionNote, ...]
    tool_count: int


def convert_registry(registry: Registry, target: str) -> Conversion:
    """`registry` as one document in `target`'s shape, and what it could not carry."""
    tools = list(registry.tools)
    if target == "toolsel":
        document = toolsel_document(registry)
    else:
        from toolsel.emit import EMITTERS

        document = EMITTERS[target](tools)
    notes = [*_lost_fields(registry, target), *_unread_keys(tools, target)]
    notes += _shape_notes(registry, target)
    return Conversion(target, document, tuple(notes), len(tools))


def _lost_fields(registry: Registry, target: str) -> list[ConversionNote]:
    if target == "toolsel":
        return []
    notes = []
    for field in CARRIED:
        if field in HELD[target]:
            continue
        names = tuple(t.name for t in registry.tools if _carries(registry, t, field))
        if names:
            outcome = f"left out: {TARGET_TITLES[target]} have no place for it"
            notes.append(ConversionNote(f"`{field}`", names, outcome))
    return notes


def _unread_keys(tools: list[Tool], target: str) -> list[ConversionNote]:
    """Keys of the source entries no canonical field holds (Anthropic's `cache_control`,
    MCP's `icons`, a typo): toolsel keeps `x-` extension keys, nothing keeps the rest."""
    found: dict[tuple[str, str], list[str]] = {}
    for tool in tools:
        for key in extra_keys(tool):
            if target == "toolsel" and key.startswith("x-"):
                continue
            found.setdefault((key, tool.source.format), []).append(tool.name)
    return [
        ConversionNote(
            f"unknown key `{key}`"
            if shape == "toolsel"
            else f"`{key}` ({ENTRY_FORMATS[shape].title})",
            tuple(names),
            "left out: toolsel does not read it",
        )
        for (key, shape), names in sorted(found.items())
    ]


def extra_keys(tool: Tool) -> list[str]:
    """The keys of a tool's own entry that are not one of its canonical fields."""
    fmt = ENTRY_FORMATS[tool.source.format]
    entry = _entry_keys(tool)
    fields = {pointer.split("/")[-1] for pointer in fmt.fields.values()}
    keys = []
    for key in entry:
        if key in fields or key in _STRUCTURAL.get(fmt.name, ()):
            continue
        if fmt.name == "docker-catalog" and key == "arguments":
            continue
        if key == "_meta" and isinstance(entry[key], dict) and set(entry[key]) <= _TOOLSEL_META:
            continue
        keys.append(str(key))
    return keys


def _entry_keys(tool: Tool) -> dict[str, Any]:
    """A tool's entry with OpenAI Chat's `function` members lifted beside the rest."""
    entry = tool.raw
    if tool.source.format == "openai-chat" and isinstance(entry.get("function"), dict):
        return {**entry, **entry["function"]}
    return entry


def _shape_notes(registry: Registry, target: str) -> list[ConversionNote]:
    notes = []
    builtins = [
        p.message.split(" is a built-in tool")[0]
        for p in registry.problems
        if p.kind is ProblemKind.BUILTIN_TOOL
    ]
    if builtins:
        notes.append(
            ConversionNote(
                "built-in tools", tuple(builtins), "left out: the provider runs them itself"
            )
        )
    custom = tuple(t.name for t in registry.tools if t.source.format == "openai-custom")
    if custom and target != "toolsel":
        notes.append(
            ConversionNote(
                "OpenAI custom tools (free-text input)",
                custom,
                "written with an empty parameter schema (the target has no free-text tools)",
            )
        )
    if target == "gemini":
        notes += _gemini_notes(registry.tools)
    return notes


def _gemini_notes(tools: tuple[Tool, ...]) -> list[ConversionNote]:
    from toolsel.emit import beyond_gemini_subset, gemini_parameters

    notes = []
    with_schema = tuple(t.name for t in tools if "$schema" in t.parameters)
    if with_schema:
        notes.append(ConversionNote("root `$schema`", with_schema, "left out: Gemini refuses it"))
    beyond = tuple(t.name for t in tools if beyond_gemini_subset(gemini_parameters(t)))
    if beyond:
        notes.append(
            ConversionNote(
                "parameters beyond Gemini's OpenAPI subset",
                beyond,
                "written as `parametersJsonSchema` (full JSON Schema) instead of `parameters`",
            )
        )
    return notes


#: The order fields are written in a toolsel registry entry.
TOOLSEL_FIELDS = (
    "name display_name description category permission version deprecated deprecated_by tags "
    "aliases requires conflicts search_hint always_include defer_loading parent_task strict "
    "examples annotations output_schema parameters"
).split()


def toolsel_document(registry: Registry) -> dict[str, Any]:
    """The registry in toolsel's own format: every field that has a value, in a fixed
    order; overlay examples merged into each tool's `examples`."""
    document: dict[str, Any] = {"version": 1}
    if registry.categories:
        document["categories"] = {
            name: {"description": category.description} if category.description else {}
            for name, category in registry.categories.items()
        }
    document["tools"] = [_toolsel_entry(registry, tool) for tool in registry.tools]
    return document


def _toolsel_entry(registry: Registry, tool: Tool) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    for field in TOOLSEL_FIELDS:
        if field == "examples":
            value: Any = list(registry.examples_for(tool.name))
        else:
            value = getattr(tool, field)
            value = value.value if field == "permission" else value
            value = list(value) if isinstance(value, tuple) else value
        # unset fields are left out; an empty schema is still the tool's parameters
        if field == "parameters" or value not in (None, False, [], {}):
            entry[field] = value
    # extension keys (`x-toolsel-ignore` too) are toolsel's: they travel as they are
    extensions = _entry_keys(tool).items()
    entry.update({k: v for k, v in extensions if isinstance(k, str) and k.startswith("x-")})
    return entry
