"""TS5xx: the registry's own contract: permissions, dependencies, deprecation, metadata."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity, loader_rule, rule
from toolsel.registry.formats import MCP_PERMISSION_META, SEMVER
from toolsel.registry.model import Permission, ProblemKind, Tool
from toolsel.suggest import did_you_mean
from toolsel.text import split_name

#: Verbs by which a description states what a call changes: its consequences ("deletes",
#: "cannot be undone"), or plainly the change it makes ("Creates a new page", "Uninstall a
#: Helm release", "Close the browser page", "Make selective edits"). Each stem is followed
#: by the inflections it takes, so "running pods", "additional" or "important" do not count.
CHANGE_VERBS = (
    "delet(?:e|es|ed|ing|ion)", "remov(?:e|es|ed|ing|al)", "destroy(?:s|ed|ing)?", "drops?",
    "dropped", "overwrit(?:e|es|ing|ten)", "modif(?:y|ies|ied|ying|ication)",
    "terminat(?:e|es|ed|ing)", "revok(?:e|es|ed|ing)", "restart(?:s|ed|ing)?",
    "shut(?:s|ting)? down", "deploy(?:s|ed|ing|ment)?", "wip(?:e|es|ed|ing)",
    "purg(?:e|es|ed|ing)", "kill(?:s|ed|ing)?", "truncat(?:e|es|ed|ing)",
    "reset(?:s|ting)?", "roll(?:s|ed)? ?back", "migrat(?:e|es|ed|ing|ion)",
    "charg(?:e|es|ed|ing)", "sends?", "sent", "publish(?:es|ed|ing)?",
    "execut(?:e|es|ed|ing|ion)", "runs?", "creat(?:e|es|ed|ing|ion)", "updat(?:e|es|ed|ing)",
    "writ(?:e|es|ing|ten)", "wrote", "edit(?:s|ed|ing)?", "sets?", "adds?", "added",
    "adding", "insert(?:s|ed|ing)?", "upload(?:s|ed|ing)?", "mov(?:e|es|ed|ing)",
    "renam(?:e|es|ed|ing)", "install(?:s|ed|ing)?", "uninstall(?:s|ed|ing)?",
    "clos(?:e|es|ed|ing)", "stop(?:s|ped|ping)?", "start(?:s|ed)?", "cancel(?:s|s|led|ling)?",
    "archiv(?:e|es|ed|ing)", "submit(?:s|ted|ting)?", "post(?:s|ed|ing)?", "push(?:es|ed|ing)?",
    "commit(?:s|ted|ting)?", "merg(?:e|es|ed|ing)", "appl(?:y|ies|ied|ying)",
    "enabl(?:e|es|ed|ing)", "disabl(?:e|es|ed|ing)", "scal(?:e|es|ed|ing) (?:up|down|to)",
    "patch(?:es|ed|ing)?", "replac(?:e|es|ed|ing)", "sav(?:e|es|ed|ing)",
    "assign(?:s|ed|ing)?", "transfer(?:s|red|ring)?", "approv(?:e|es|ed|ing)",
    "reject(?:s|ed|ing)?", "lock(?:s|ed|ing)?", "unlock(?:s|ed|ing)?", "pa(?:y|ys|id|ying)",
    "refund(?:s|ed|ing)?", "book(?:s|ed|ing)?", "schedul(?:e|es|ed|ing)",
    "invit(?:e|es|ed|ing)", "shar(?:e|es|ed|ing)", "grant(?:s|ed|ing)?",
    "chang(?:e|es|ed|ing)", "alter(?:s|ed|ing)?", "mutat(?:e|es|ed|ing)",
    "toggl(?:e|es|ed|ing)", "paus(?:e|es|ed|ing)", "resum(?:e|es|ed|ing)",
    "clear(?:s|ed|ing)?", "reboot(?:s|ed|ing)?", "fill(?:s|ed|ing)?", "click(?:s|ed|ing)?",
    "typ(?:e|es|ed|ing) (?:text|into|in)", "press(?:es|ed|ing)? (?:an? |the )?(?:[\\w-]+ )?(?:keys?|mouse|buttons?)",
    "select(?:s|ed|ing)? (?:an? |the )?options?", "open(?:s|ed|ing)? (?:an? )?new",
    "(?:un)?cordon(?:s|ed|ing)?", "drain(?:s|ed|ing)?", "evict(?:s|ed|ing|ion)?",
    "append(?:s|ed|ing)?",
    "drag(?:s|ged|ging)?", "upgrad(?:e|es|ed|ing)", "downgrad(?:e|es|ed|ing)",
    "restor(?:e|es|ed|ing)", "revert(?:s|ed|ing)?", "attach(?:es|ed|ing)?",
    "detach(?:es|ed|ing)?", "unmount(?:s|ed|ing)?", "spawn(?:s|ed|ing)?",
    "launch(?:es|ed|ing)?", "register(?:s|ed|ing)?", "unregister(?:s|ed|ing)?",
    "subscrib(?:e|es|ed|ing)", "unsubscrib(?:e|es|ed|ing)", "rotat(?:e|es|ed|ing)",
    "invalidat(?:e|es|ed|ing)", "irreversibl[ey]", "permanent(?:ly)?", "cannot be undone",
    "confirm(?:s|ed|ing|ation)?", "side[- ]effects?", "in production",
)  # fmt: skip
#: A change verb, not the first half of a hyphenated name (`Set-Cookie` is a header).
SIDE_EFFECTS = re.compile(r"\b(?:" + "|".join(CHANGE_VERBS) + r")\b(?!-\w)", re.IGNORECASE)
#: A name or description that says the tool only reads.
READ_ONLY_VERBS = frozenset(
    {
        "get", "list", "search", "read", "fetch", "find", "query", "show", "describe",
        "view", "inspect", "count", "lookup", "look", "browse", "explain", "summarize",
        "retrieve", "check", "status", "info", "stat", "stats", "top", "logs", "diff",
        "preview", "validate", "lint", "test", "ping", "whoami", "history", "resolve",
        "discover", "version", "versions", "health", "usage", "schema", "capabilities",
    }
)  # fmt: skip
#: Names of tools that look or move around without changing anything that lasts: a browser's
#: hover, scroll or screenshot, a viewer's navigate or resize. Not read-only (the page or
#: window changes), but never destructive.
OBSERVE_VERBS = frozenset(
    {
        "hover", "screenshot", "snapshot", "navigate", "scroll", "resize", "wait", "capture",
        "zoom", "focus", "highlight", "back", "forward", "reload", "refresh", "goto", "visit",
    }
)  # fmt: skip
KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


UNKNOWN_PERMISSION = loader_rule(
    "TS501",
    "unknown-permission",
    Severity.ERROR,
    "`permission` is read, write, admin or dangerous",
    bad="- name: a\n  description: d\n  permission: superuser\n",
    good="- name: a\n  description: d\n  permission: admin\n",
    problem=ProblemKind.UNKNOWN_PERMISSION,
    explanation="""An unreadable permission cannot be gated; toolsel treats it as `dangerous`.""",
)


def permission_annotations(context: LintContext) -> Iterator[Hit]:
    """`read` needs `readOnlyHint: true`; `readOnlyHint: true` on a write, admin or dangerous
    tool is an error; a `dangerous` tool with `destructiveHint: false` is a warning
    (`destructiveHint` defaults to true)."""
    for tool in context.tools:
        notes = tool.annotations
        if not isinstance(notes, dict) or tool.source.format == "mcp":
            continue
        read_only = notes.get("readOnlyHint")
        if tool.permission is Permission.READ and read_only is not True:
            yield context.hit(
                tool, "annotations", message="permission is `read` but `readOnlyHint` is not true"
            )
        elif tool.permission is not Permission.READ and read_only is True:
            yield context.hit(
                tool,
                "annotations",
                "readOnlyHint",
                message=f"`readOnlyHint: true` contradicts permission `{tool.permission}`",
            )
        if tool.permission is Permission.DANGEROUS and notes.get("destructiveHint") is False:
            yield context.hit(
                tool,
                "annotations",
                "destructiveHint",
                message="`destructiveHint: false` on a dangerous tool",
                severity=Severity.WARNING,
            )


TS502 = rule(
    "TS502",
    "permission-contradicts-annotations",
    Severity.ERROR,
    "`permission` agrees with MCP annotations",
    bad="- name: a\n  description: d\n  permission: write\n  annotations: {readOnlyHint: true}\n",
    good="- name: a\n  description: d\n  permission: read\n  annotations: {readOnlyHint: true}\n",
    check=permission_annotations,
)


def side_effects(context: LintContext) -> Iterator[Hit]:
    """Consequential calls should be validated with the user, and the model can only do that
    when the description says what the call changes or destroys. A plain statement of the
    change counts ("Creates a new page", "Uninstall a Helm release", "Close the browser
    page"). Only a permission the author gave is checked: an MCP tool without annotations is
    `dangerous` by the protocol's defaults, not by its author's word, so that is TS513's
    note (the annotations are missing), not a fault of its description; and a tool
    annotated destructive whose name and description say it only reads or looks (hover,
    screenshot, navigate) has wrong annotations (TS514), not a description that hides its
    effects."""
    for tool in context.tools:
        if tool.permission not in (Permission.ADMIN, Permission.DANGEROUS):
            continue
        if defaulted_permission(tool) or SIDE_EFFECTS.search(tool.description):
            continue
        if annotated_destructive(tool) and only_observes(tool):
            continue  # the annotations, not the description, are wrong: TS514 says so
        yield context.hit(
            tool,
            "description",
            message=f"{tool.permission} tool does not say what it changes or whether it can be undone",
        )


TS503 = rule(
    "TS503",
    "undeclared-side-effects",
    Severity.WARNING,
    "Admin and dangerous tools state their side effects",
    bad="- name: a\n  description: Handles the cluster.\n  permission: dangerous\n",
    good="- name: a\n  description: Permanently deletes the cluster; cannot be undone.\n  permission: dangerous\n",
    check=side_effects,
)


def defaulted_permission(tool: Tool) -> bool:
    """The tool's permission is MCP's default (`destructiveHint` true), not stated: an MCP
    (or Docker catalog) tool whose annotations give neither hint."""
    if tool.source.format not in ("mcp", "docker-catalog"):
        return False
    meta = tool.raw.get("_meta")
    if isinstance(meta, dict) and MCP_PERMISSION_META in meta:
        return False
    notes = tool.annotations
    return not (isinstance(notes, dict) and ("readOnlyHint" in notes or "destructiveHint" in notes))


def annotated_destructive(tool: Tool) -> bool:
    """The tool's own annotations call it destructive: `destructiveHint: true`, or
    `readOnlyHint: false` with `destructiveHint` left at its default (true)."""
    notes = tool.annotations
    if not isinstance(notes, dict) or notes.get("readOnlyHint") is True:
        return False
    hint = notes.get("destructiveHint")
    return hint is True or (hint is None and notes.get("readOnlyHint") is False)


def only_observes(tool: Tool) -> bool:
    """The name leads (or ends) with a reading or looking verb (`get_pod`, `browser_hover`,
    `take_screenshot`; after a namespace word: `API-query-data-source`), or the description
    opens with a looking one ("Scroll mouse wheel" for `browser_mouse_wheel`), and the
    description states no change."""
    words = split_name(tool.name)
    verbs = READ_ONLY_VERBS | OBSERVE_VERBS
    opening = tool.description.split(maxsplit=1)[:1]
    return (
        bool(words)
        and (
            words[0] in verbs
            or words[-1] in verbs
            or (len(words) > 2 and words[1] in verbs)
            or (bool(opening) and opening[0].lower() in OBSERVE_VERBS)
        )
        and not SIDE_EFFECTS.search(tool.description)
    )


def says_it_only_reads(tool: Tool) -> bool:
    """The name leads with a reading verb (`get_pod`, `pods_list`, `listIssues`) and the
    description states no change."""
    words = split_name(tool.name)
    return (
        bool(words)
        and (words[0] in READ_ONLY_VERBS or (len(words) > 1 and words[-1] in READ_ONLY_VERBS))
        and not SIDE_EFFECTS.search(tool.description)
    )


def missing_annotations(context: LintContext) -> Iterator[Hit]:
    """MCP's defaults for a tool without annotations are `readOnlyHint: false` and
    `destructiveHint: true`: clients treat it as able to destroy data, and ask before each
    call (toolsel ranks it as `dangerous`). For a tool whose name and description say it only
    reads, the annotations are missing: add `readOnlyHint: true`. (Annotations that are
    there and say destructive are TS514's.)"""
    for tool in context.tools:
        if tool.source.format not in ("mcp", "docker-catalog") or not says_it_only_reads(tool):
            continue
        if defaulted_permission(tool):
            yield context.hit(
                tool,
                "name",
                message=f"{tool.name!r} has no readOnlyHint or destructiveHint, so MCP clients "
                "treat it as destructive, yet its name and description say it only reads; "
                "add `annotations: {readOnlyHint: true}`",
            )


TS513 = rule(
    "TS513",
    "missing-annotations",
    Severity.INFO,
    "An MCP tool that only reads says so in its annotations",
    bad="- name: get_pod\n  description: Returns one pod.\n  inputSchema: {type: object}\n",
    good=(
        "- name: get_pod\n  description: Returns one pod.\n  inputSchema: {type: object}\n"
        "  annotations: {readOnlyHint: true}\n"
    ),
    check=missing_annotations,
)


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


TS504 = rule(
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


TS505 = rule(
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


TS506 = rule(
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


TS507 = rule(
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


TS508 = rule(
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


TS509 = rule(
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


TS510 = rule(
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


TS511 = rule(
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


TS512 = rule(
    "TS512",
    "semver",
    Severity.WARNING,
    "`version` is SemVer",
    bad="- name: a\n  description: d\n  version: v1\n",
    good="- name: a\n  description: d\n  version: 1.2.0\n",
    check=semver,
)
