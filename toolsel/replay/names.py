"""Display names, as Craft Agents OSS shows tool calls (its `tool-matching.ts`): the
registry's `display_name`, then a mapping of well-known agent tools, then the name turned
into Title Case."""

from __future__ import annotations

import re

from toolsel.registry.model import Registry

KNOWN = {
    "Glob": "Finding Files", "Grep": "Searching Files", "Read": "Reading File", "Write": "Writing File",
    "Edit": "Editing File", "MultiEdit": "Editing File", "Bash": "Running Command", "Task": "Running Agent",
    "Agent": "Running Agent", "WebFetch": "Fetching URL", "WebSearch": "Searching Web",
    "TodoWrite": "Updating Tasks", "NotebookEdit": "Editing Notebook",
}  # fmt: skip
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def display_name(name: str, registry: Registry | None = None) -> str:
    tool = registry.get(name) if registry is not None else None
    if tool is not None and tool.display_name:
        return tool.display_name
    short = name.split("__")[-1] if name.startswith("mcp__") else name
    if short in KNOWN:
        return KNOWN[short]
    words = _CAMEL.sub(" ", short).replace("_", " ").replace("-", " ").split()
    return " ".join(w[:1].upper() + w[1:] for w in words) or name
