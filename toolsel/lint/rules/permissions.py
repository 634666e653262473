"""TS501-TS503, TS513: permissions: a readable `permission`, annotations that agree with
it, and descriptions of tools that change things saying what they change."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.registry.formats import MCP_PERMISSION_META
from toolsel.registry.model import Permission, ProblemKind, Tool
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


UNKNOWN_PERMISSION = Rule(
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


TS502 = Rule(
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


TS503 = Rule(
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
    opening = tool.description.split(maxsplit=1)[:1]
    return _named_for(tool, READ_ONLY_VERBS | OBSERVE_VERBS) or (
        bool(words)
        and (
            (len(words) > 2 and words[1] in READ_ONLY_VERBS | OBSERVE_VERBS)
            or (bool(opening) and opening[0].lower() in OBSERVE_VERBS)
        )
        and not SIDE_EFFECTS.search(tool.description)
    )


def _named_for(tool: Tool, verbs: frozenset[str]) -> bool:
    """The name leads (or ends) with one of `verbs` (`get_pod`, `pods_list`, `listIssues`)
    and the description states no change."""
    words = split_name(tool.name)
    return (
        bool(words)
        and (words[0] in verbs or words[-1] in verbs)
        and not SIDE_EFFECTS.search(tool.description)
    )


def missing_annotations(context: LintContext) -> Iterator[Hit]:
    """MCP's defaults for a tool without annotations are `readOnlyHint: false` and
    `destructiveHint: true`: clients treat it as able to destroy data, and ask before each
    call (toolsel ranks it as `dangerous`). For a tool whose name and description say it only
    reads, the annotations are missing: add `readOnlyHint: true`. (Annotations that are
    there and say destructive are TS514's.)"""
    for tool in context.tools:
        if tool.source.format not in ("mcp", "docker-catalog") or not _named_for(
            tool, READ_ONLY_VERBS
        ):
            continue
        if defaulted_permission(tool):
            yield context.hit(
                tool,
                "name",
                message=f"{tool.name!r} has no readOnlyHint or destructiveHint, so MCP clients "
                "treat it as destructive, yet its name and description say it only reads; "
                "add `annotations: {readOnlyHint: true}`",
            )


TS513 = Rule(
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
