"""TS514: MCP annotations that say the opposite of the tool's name and description."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.rules.permissions import READ_ONLY_VERBS, annotated_destructive, only_observes
from toolsel.registry.model import Tool
from toolsel.text import split_name

#: Verbs that write or delete, leading a name (`delete_file`) or ending a namespaced one
#: (`browser_pdf_save`).
WRITE_VERBS = frozenset(
    {
        "delete", "remove", "create", "update", "write", "set", "send", "post", "put", "patch",
        "add", "insert", "upload", "move", "rename", "drop", "destroy", "kill", "install",
        "uninstall", "deploy", "publish", "edit", "modify", "replace", "clear", "reset",
        "purge", "cancel", "submit", "merge", "push", "commit", "overwrite", "erase", "wipe",
        "save",
    }
)  # fmt: skip
#: A description that says the call deletes or overwrites something, as a statement of what
#: it does ("Deletes the file", "a file with the same name is replaced"), not as an adjective
#: ("lists deleted items").
DESTROYS = re.compile(
    r"\b(?:deletes|removes|overwrites|replaces|drops|destroys|wipes|purges|truncates|erases"
    r"|(?:is|are|will be|gets|get) (?:deleted|removed|overwritten|replaced|destroyed|erased))\b",
    re.IGNORECASE,
)
#: Words that turn the statement around ("never replaces the current version").
NEGATED = re.compile(r"\b(?:never|not|no|without|cannot)\b|n't\b", re.IGNORECASE)


def says_it_destroys(description: str) -> bool:
    """A statement that the call deletes or overwrites something, not negated in the three
    words before it."""
    for match in DESTROYS.finditer(description):
        before = description[: match.start()].split()[-3:]
        if not NEGATED.search(" ".join(before)):
            return True
    return False


def writes_by_name(words: list[str]) -> bool:
    """The name leads with a writing verb, or ends with one after a namespace
    (`browser_pdf_save`) and has no reading verb, which would make the last word a noun
    (`get_latest_commit`, `list_blog_post`)."""
    if not words:
        return False
    if words[0] in WRITE_VERBS:
        return True
    return (
        len(words) > 2
        and words[-1] in WRITE_VERBS
        and not any(word in READ_ONLY_VERBS for word in words)
    )


def _contradiction(tool: Tool) -> tuple[str, str] | None:
    """The annotation that contradicts the tool's own words, and why; None when they agree."""
    notes = tool.annotations
    if not isinstance(notes, dict):
        return None
    name = repr(tool.name)
    if notes.get("readOnlyHint") is True:
        words = split_name(tool.name)
        if writes_by_name(words) or says_it_destroys(tool.description):
            return "readOnlyHint", (
                f"{name} is annotated `readOnlyHint: true`, yet its name or description says "
                "it writes or deletes; clients will run it without asking"
            )
        return None
    if annotated_destructive(tool) and only_observes(tool):
        key = "destructiveHint" if "destructiveHint" in notes else "readOnlyHint"
        return key, (
            f"{name} is annotated destructive ({key}: {str(notes[key]).lower()}), yet its "
            "name and description only read, look or move around; set `destructiveHint: false` "
            "(or `readOnlyHint: true` if it changes nothing)"
        )
    if notes.get("destructiveHint") is False and says_it_destroys(tool.description):
        return "destructiveHint", (
            f"{name} is annotated `destructiveHint: false`, yet its description says it "
            "deletes or overwrites; clients will not warn before it does"
        )
    return None


def annotation_contradicts_description(context: LintContext) -> Iterator[Hit]:
    """MCP clients decide whether to ask before a call from the annotations alone, so an
    annotation that says the opposite of the tool's name and description misleads them:
    `readOnlyHint: true` on a tool that deletes or writes (a writing verb leading its name, or
    ending a namespaced one: `browser_pdf_save`; run without asking),
    `destructiveHint: false` on one whose description says it overwrites or deletes, or a
    destructive label (`destructiveHint: true`, or `readOnlyHint: false` with the default)
    on a tool that only reads, looks or moves around (hover, screenshot, navigate, `get_`,
    `list_`, or a description opening "Scroll ..."): the
    user is asked to confirm every harmless call. The fix is the annotation, not the
    description."""
    for tool in context.tools:
        found = _contradiction(tool)
        if found is not None:
            key, message = found
            yield context.hit(tool, "annotations", key, message=message)


TS514 = Rule(
    "TS514",
    "annotation-contradicts-description",
    Severity.WARNING,
    "MCP annotations agree with the tool's name and description",
    bad=(
        "- name: browser_hover\n  description: Hover over an element on the page.\n"
        "  inputSchema: {type: object}\n  annotations: {readOnlyHint: false, destructiveHint: true}\n"
    ),
    good=(
        "- name: browser_hover\n  description: Hover over an element on the page.\n"
        "  inputSchema: {type: object}\n  annotations: {readOnlyHint: false, destructiveHint: false}\n"
    ),
    check=annotation_contradicts_description,
)
