"""Helpers shared by rule modules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity
from toolsel.registry.model import Tool
from toolsel.registry.source import split_pointer

_MISSING: Any = object()


def load_problems(context: LintContext, rule_id: str) -> Iterator[Hit]:
    """Problems the loader found (parse errors, types, unknown keys) as hits of `rule_id`."""
    for problem in context.registry.problems:
        if problem.rule == rule_id:
            yield Hit(
                problem.message,
                problem.file,
                problem.pointer,
                problem.tool,
                line=problem.line,
                column=problem.column,
            )


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


def tool_count_hits(
    context: LintContext, provider: str, hard: str, soft: str, wording: tuple[str, str]
) -> Iterator[Hit]:
    """A provider's hard tool-count limit (error) and its recommended maximum (warning)."""
    count = len(context.tools)
    if count > context.option(hard):
        yield registry_hit(
            context, f"{count} tools; {provider} {wording[0]} {context.option(hard)}"
        )
    elif count > context.option(soft):
        yield registry_hit(
            context,
            f"{count} tools; {provider} {wording[1]} {context.option(soft)}",
            severity=Severity.WARNING,
        )
