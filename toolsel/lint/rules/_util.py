"""Helpers shared by rule modules."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity
from toolsel.lint.schema import SchemaNode
from toolsel.registry.model import Tool
from toolsel.registry.source import split_pointer

_MISSING: Any = object()


def raw_field(tool: Tool, field: str) -> Any:
    """The field as written in the file, or _MISSING when absent."""
    value: Any = tool.raw
    for token in split_pointer(tool.source.fields.get(field, "/" + field)):
        if not isinstance(value, dict) or token not in value:
            return _MISSING
        value = value[token]
    return value


def has_field(tool: Tool, field: str) -> bool:
    return raw_field(tool, field) is not _MISSING


def registry_hit(context: LintContext, message: str, **kwargs: Any) -> Hit:
    """A finding about the registry as a whole, placed at the first file's tool list."""
    first = context.registry.files[0]
    pointer = "/tools" if isinstance(first.document, dict) and "tools" in first.document else ""
    return Hit(message, first.path, pointer, None, key=True, **kwargs)


def name_pattern_hits(
    context: LintContext, profile: str, pattern: re.Pattern[str], who: str
) -> Iterator[Hit]:
    """The profile's tools whose name does not match the provider's documented `pattern`."""
    for tool in context.profile_tools(profile):
        if not pattern.fullmatch(tool.name):
            message = f"name {tool.name!r} does not match ^{pattern.pattern}$ ({who})"
            yield context.hit(tool, "name", message=message)


def tool_count_hits(
    context: LintContext, provider: str, hard: str, soft: str, wording: tuple[str, str]
) -> Iterator[Hit]:
    """A provider's hard tool-count limit (error) and its recommended maximum (info: advice
    about one request, while a registry is what a client selects a request's tools from)."""
    count = len(context.tools)
    if count > context.option(hard):
        yield registry_hit(
            context, f"{count} tools; {provider} {wording[0]} {context.option(hard)}"
        )
    elif count > context.option(soft):
        yield registry_hit(
            context,
            f"{count} tools; {provider} {wording[1]} {context.option(soft)} in one request "
            "(`toolsel rank` or `select:` picks them)",
            severity=Severity.INFO,
        )


def unsupported_keywords(
    context: LintContext,
    profile: str,
    keywords: tuple[str, ...],
    reason: str,
    tools: Iterable[Tool] | None = None,
) -> Iterator[Hit]:
    """Each use of a schema keyword the profile's provider rejects, at the keyword."""
    for tool in tools if tools is not None else context.profile_tools(profile):
        for node in context.schema_nodes(tool):
            for keyword in keywords:
                if keyword in node.schema:
                    yield context.schema_hit(
                        tool, f"{node.pointer}/{keyword}", f"`{keyword}` {reason}", key=True
                    )


def lacking_phrase(
    context: LintContext,
    phrase: re.Pattern[str],
    message: str,
    applies: Callable[[Tool], bool] = lambda tool: True,
) -> Iterator[Hit]:
    """Tools whose non-empty English description has no match for `phrase` (an English
    phrase: a description in another language cannot have it)."""
    for tool in context.tools:
        if (
            tool.description.strip()
            and applies(tool)
            and not phrase.search(tool.description)
            and not context.in_other_language(tool)
        ):
            yield context.hit(tool, "description", message=message)


def schema_nodes(context: LintContext) -> Iterator[tuple[Tool, SchemaNode]]:
    """Every subschema of every tool's parameters."""
    for tool in context.tools:
        for node in context.schema_nodes(tool):
            yield tool, node


def property_nodes(context: LintContext) -> Iterator[tuple[Tool, SchemaNode]]:
    """Every subschema that is the value of a `properties` entry (a parameter)."""
    for tool, node in schema_nodes(context):
        if node.property_name is not None:
            yield tool, node
