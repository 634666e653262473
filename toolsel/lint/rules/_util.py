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


def has_field(tool: Tool, field: str) -> bool:
    """The field is written in the tool's entry in the file."""
    value: Any = tool.raw
    for token in split_pointer(tool.source.fields.get(field, "/" + field)):
        if not isinstance(value, dict) or token not in value:
            return False
        value = value[token]
    return True


def registry_hit(context: LintContext, message: str, *, key: bool = True, **kwargs: Any) -> Hit:
    """A finding about the registry as a whole, placed at the first file's tool list."""
    first = context.registry.files[0]
    pointer = "/tools" if isinstance(first.document, dict) and "tools" in first.document else ""
    return Hit(message, first.path, pointer, None, key=key, **kwargs)


def name_pattern_hits(
    context: LintContext, profile: str, pattern: re.Pattern[str], who: str
) -> Iterator[Hit]:
    """The profile's tools whose name does not match the provider's documented `pattern`."""
    for tool in context.profile_tools(profile):
        if not pattern.fullmatch(tool.name):
            message = f"name {tool.name!r} does not match ^{pattern.pattern}$ ({who})"
            yield context.hit(tool, "name", message=message)


def tool_count_hits(context: LintContext, provider: str, advice: str) -> Iterator[Hit]:
    """A provider's hard tool-count limit (error) and its recommended maximum (info: advice
    about one request, while a registry is what a client selects a request's tools from);
    the options are `<provider>-max-tools` and `<provider>-soft-max-tools`."""
    count = len(context.tools)
    hard = context.option(f"{provider.lower()}-max-tools")
    soft = context.option(f"{provider.lower()}-soft-max-tools")
    if count > hard:
        yield registry_hit(context, f"{count} tools; {provider} accepts at most {hard}")
    elif count > soft:
        yield registry_hit(
            context,
            f"{count} tools; {provider} {advice} {soft} in one request "
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
