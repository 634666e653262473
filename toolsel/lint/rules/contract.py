"""TS5xx: the registry's own contract: dependencies, deprecation, metadata (`permissions`
holds the permission rules)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.registry.formats import SEMVER
from toolsel.suggest import did_you_mean

KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def unknown_reference(context: LintContext) -> Iterator[Hit]:
    """A dangling reference cannot be resolved; the message suggests the closest name."""
    names = context.names
    for tool in context.tools:
        for field in ("requires", "conflicts"):
            for index, other in enumerate(getattr(tool, field)):
                if other not in names:
                    yield context.hit(
                        tool,
                        field,
                        index,
                        message=f"`{field}` names unknown tool {other!r}{did_you_mean(other, names)}",
                    )


TS504 = Rule(
    "TS504",
    "unknown-reference",
    Severity.ERROR,
    "`requires` and `conflicts` name existing tools",
    bad="- name: a\n  description: d\n  requires: [missing_tool]\n",
    good="- name: a\n  description: d\n  requires: [b]\n- name: b\n  description: d\n",
    check=unknown_reference,
)


def asymmetric_conflict(context: LintContext) -> Iterator[Hit]:
    """toolsel treats a conflict as mutual either way; declaring both sides says the author
    meant it."""
    for tool in context.tools:
        for index, other_name in enumerate(tool.conflicts):
            other = context.registry.get(other_name)
            if other is not None and tool.name not in other.conflicts:
                yield context.hit(
                    tool,
                    "conflicts",
                    index,
                    message=f"{tool.name!r} conflicts with {other_name!r}, but {other_name!r} does not list {tool.name!r}",
                )


TS505 = Rule(
    "TS505",
    "asymmetric-conflict",
    Severity.WARNING,
    "Conflicts are declared on both sides",
    bad="- name: a\n  description: d\n  conflicts: [b]\n- name: b\n  description: d\n",
    good="- name: a\n  description: d\n  conflicts: [b]\n- name: b\n  description: d\n  conflicts: [a]\n",
    check=asymmetric_conflict,
)


def requires_cycle(context: LintContext) -> Iterator[Hit]:
    """A cycle cannot be loaded in order. Each cycle is reported once, as its full path
    (`a -> b -> c -> a`), at the first tool's `requires` entry; self-requires count."""
    from toolsel.graph import find_cycles, requires_graph

    for cycle in find_cycles(requires_graph(context.registry)):
        tool = context.registry.get(cycle[0])
        if tool is None:
            continue
        index = tool.requires.index(cycle[1]) if cycle[1] in tool.requires else 0
        yield context.hit(tool, "requires", index, message="requires cycle: " + " -> ".join(cycle))


TS506 = Rule(
    "TS506",
    "requires-cycle",
    Severity.ERROR,
    "No cycles in `requires`",
    bad="- name: a\n  description: d\n  requires: [b]\n- name: b\n  description: d\n  requires: [a]\n",
    good="- name: a\n  description: d\n  requires: [b]\n- name: b\n  description: d\n",
    check=requires_cycle,
)


def unsatisfiable(context: LintContext) -> Iterator[Hit]:
    """A tool that requires a tool it conflicts with, or whose `requires` closure holds two
    tools that conflict, can never be offered."""
    from toolsel.graph import conflict_graph, conflicts_within, load_order, requires_graph

    requires = requires_graph(context.registry)
    conflicts = conflict_graph(context.registry)
    for tool in context.tools:
        if not tool.requires:
            continue
        direct = set()
        for index, other in enumerate(tool.requires):
            if other in conflicts.get(tool.name, ()):
                direct.add(other)
                yield context.hit(
                    tool,
                    "requires",
                    index,
                    message=f"{tool.name!r} both requires and conflicts with {other!r}",
                )
        for a, b in conflicts_within(conflicts, load_order(requires, [tool.name])):
            if tool.name in (a, b) and {a, b} - {tool.name} <= direct:
                continue
            yield context.hit(
                tool,
                "requires",
                message=f"requirements of {tool.name!r} include conflicting tools {a!r} and {b!r}",
            )


TS507 = Rule(
    "TS507",
    "unsatisfiable-requirements",
    Severity.ERROR,
    "Requirements do not conflict",
    bad="- name: a\n  description: d\n  requires: [b]\n  conflicts: [b]\n- name: b\n  description: d\n",
    good="- name: a\n  description: d\n  requires: [b]\n- name: b\n  description: d\n",
    check=unsatisfiable,
)


def deprecation_path(context: LintContext) -> Iterator[Hit]:
    """`deprecated: true` without `deprecated_by` leaves agents no migration path (warning);
    an unknown or self `deprecated_by` is an error; one that points at another deprecated
    tool is a warning."""
    names = context.names
    for tool in context.tools:
        target = tool.deprecated_by
        if tool.deprecated and not target:
            yield context.hit(
                tool,
                "deprecated",
                message=f"{tool.name!r} is deprecated but names no replacement in `deprecated_by`",
            )
        if not target:
            continue
        if not tool.deprecated:
            yield context.hit(
                tool,
                "deprecated_by",
                message="`deprecated_by` without `deprecated: true`",
                key=True,
            )
        if target == tool.name:
            yield context.hit(
                tool,
                "deprecated_by",
                message="`deprecated_by` names the tool itself",
                severity=Severity.ERROR,
            )
        elif target not in names:
            yield context.hit(
                tool,
                "deprecated_by",
                message=f"`deprecated_by` names unknown tool {target!r}{did_you_mean(target, names)}",
                severity=Severity.ERROR,
            )
        else:
            replacement = context.registry.get(target)
            if replacement is not None and replacement.deprecated:
                yield context.hit(
                    tool, "deprecated_by", message=f"replacement {target!r} is itself deprecated"
                )


TS508 = Rule(
    "TS508",
    "deprecation-path",
    Severity.WARNING,
    "Deprecated tools name a live replacement",
    bad="- name: a\n  description: d\n  deprecated: true\n",
    good="- name: a\n  description: d\n  deprecated: true\n  deprecated_by: b\n- name: b\n  description: d\n",
    check=deprecation_path,
)


def requires_deprecated(context: LintContext) -> Iterator[Hit]:
    """A live tool that needs a deprecated one will break when the old tool is removed."""
    for tool in context.tools:
        if tool.deprecated:
            continue
        for index, other_name in enumerate(tool.requires):
            other = context.registry.get(other_name)
            if other is not None and other.deprecated:
                hint = f"; use {other.deprecated_by!r}" if other.deprecated_by else ""
                yield context.hit(
                    tool,
                    "requires",
                    index,
                    message=f"requires deprecated tool {other_name!r}{hint}",
                )


TS509 = Rule(
    "TS509",
    "requires-deprecated",
    Severity.WARNING,
    "Live tools do not require deprecated ones",
    bad="- name: a\n  description: d\n  requires: [b]\n- name: b\n  description: d\n  deprecated: true\n  deprecated_by: a\n",
    good="- name: a\n  description: d\n  requires: [b]\n- name: b\n  description: d\n",
    check=requires_deprecated,
)


def category(context: LintContext) -> Iterator[Hit]:
    """Categories group tools for filtering and ranking. When the registry declares
    `categories:` (or the `allowed-categories` option is set), a tool's category must be one
    of them. Tools read from OpenAI, Anthropic or MCP lists are skipped: those formats have
    no category field."""
    allowed = set(context.option("allowed-categories")) or set(context.registry.categories)
    for tool in context.tools:
        if tool.source.format != "toolsel":
            continue  # provider tool lists have no categories to declare
        if not tool.category:
            yield context.hit(
                tool, "name", message=f"tool {tool.name!r} has no `category`", key=True
            )
        elif allowed and tool.category not in allowed:
            yield context.hit(
                tool,
                "category",
                message=f"category {tool.category!r} is not declared{did_you_mean(tool.category, allowed)}",
            )


TS510 = Rule(
    "TS510",
    "category",
    Severity.INFO,
    "Every tool has a known category",
    bad="- name: a\n  description: d\n",
    good="- name: a\n  description: d\n  category: files\n",
    check=category,
)


def tag_hygiene(context: LintContext) -> Iterator[Hit]:
    """Consistent tags make `--tag` filters predictable."""
    for tool in context.tools:
        counts = Counter(tool.tags)
        for index, tag in enumerate(tool.tags):
            if not KEBAB.fullmatch(tag):
                yield context.hit(
                    tool, "tags", index, message=f"tag {tag!r} is not lowercase kebab-case"
                )
            if counts[tag] > 1 and tool.tags.index(tag) != index:
                yield context.hit(tool, "tags", index, message=f"tag {tag!r} is repeated")


TS511 = Rule(
    "TS511",
    "tag-hygiene",
    Severity.INFO,
    "Tags are lowercase kebab-case and unique",
    bad="- name: a\n  description: d\n  tags: [Files, files]\n",
    good="- name: a\n  description: d\n  tags: [files, read-only]\n",
    check=tag_hygiene,
)


def semver(context: LintContext) -> Iterator[Hit]:
    """`MAJOR.MINOR.PATCH[-pre][+build]`, so changes to a tool's contract are traceable."""
    for tool in context.tools:
        if tool.version is not None and not SEMVER.fullmatch(tool.version):
            yield context.hit(
                tool,
                "version",
                message=f"version {tool.version!r} is not SemVer (MAJOR.MINOR.PATCH)",
            )


TS512 = Rule(
    "TS512",
    "semver",
    Severity.WARNING,
    "`version` is SemVer",
    bad="- name: a\n  description: d\n  version: v1\n",
    good="- name: a\n  description: d\n  version: 1.2.0\n",
    check=semver,
)
