"""TS1xx: tool names every provider accepts and agents can tell apart."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity, rule
from toolsel.ranking.fields import stem
from toolsel.text import split_name

PORTABLE_CHARS = re.compile(r"[A-Za-z_][A-Za-z0-9_\-./]*")
GENERIC_NAMES = frozenset(
    {
        "search",
        "get",
        "run",
        "execute",
        "exec",
        "query",
        "tool",
        "fetch",
        "call",
        "do",
        "process",
        "handle",
        "test",
        "tests",
        "action",
        "function",
        "api",
        "invoke",
    }
)
VERBS = frozenset(
    """get list create update delete remove add set search find query read write patch run
    execute fetch send post put check validate deploy build start stop restart open close
    compute calculate convert translate summarize generate analyze lookup look describe show
    upload download sync merge move copy rename edit insert fill click navigate scroll type
    schedule cancel approve reject notify invite lint test format parse render export import
    publish subscribe resolve assign archive restore backup rollback scale monitor count
    estimate explain fix apply review compare diff clone fork push pull grep scan index fetch
    load save store drop kill terminate reset revoke grant rotate tail watch ping plan
    transcribe classify extract detect recommend book order pay refund track trace ask page
    migrate commit launch wait confirm connect disconnect login logout
    enable disable toggle mark""".split()
)


def _style(name: str) -> str | None:
    if "-" in name:
        return "kebab-case"
    if "_" in name:
        return "snake_case" if name == name.lower() else "mixed_Snake"
    if name[:1].islower() and any(c.isupper() for c in name):
        return "camelCase"
    if name[:1].isupper() and any(c.islower() for c in name):
        return "PascalCase"
    return None  # one lowercase word fits every style


@rule(
    "TS101",
    "portable-name",
    Severity.ERROR,
    "Name uses only characters every provider accepts",
    bad="- name: read file\n  description: d\n",
    good="- name: read_file\n  description: d\n",
)
def portable_name(context: LintContext) -> Iterator[Hit]:
    """Portable names match `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, the intersection of what
    Anthropic, OpenAI and Gemini accept. Dots and slashes (TS103) and length (TS102) have
    rules of their own. Under an MCP-only target, TS461 applies instead."""
    if context.mcp_only:
        return
    for tool in context.tools:
        name = tool.name
        if not name or not PORTABLE_CHARS.fullmatch(name):
            bad = sorted({c for c in name if not re.match(r"[A-Za-z0-9_\-./]", c)})
            reason = (
                "is empty"
                if not name
                else f"starts with {name[0]!r}"
                if not re.match(r"[A-Za-z_]", name[0])
                else f"contains {', '.join(repr(c) for c in bad)}"
            )
            yield context.hit(
                tool,
                "name",
                message=f"name {name!r} {reason}; use letters, digits, '_' and '-', starting with a letter or '_'",
            )


@rule(
    "TS102",
    "name-too-long",
    Severity.ERROR,
    "Name is at most 64 characters",
    bad="- name: " + "a" * 65 + "\n  description: d\n",
    good="- name: read_file\n  description: d\n",
)
def name_too_long(context: LintContext) -> Iterator[Hit]:
    """OpenAI and Anthropic's documentation cap names at 64 characters; MCP clients that
    prefix `server__` often push names over it. Info only under an MCP-only target."""
    severity = Severity.INFO if context.mcp_only else None
    for tool in context.tools:
        if len(tool.name) > 64:
            yield context.hit(
                tool,
                "name",
                message=f"name is {len(tool.name)} characters (max 64)",
                severity=severity,
            )


@rule(
    "TS103",
    "dot-or-slash-in-name",
    Severity.ERROR,
    "Name has no `.` or `/`",
    bad="- name: files.read\n  description: d\n",
    good="- name: files_read\n  description: d\n",
)
def dot_or_slash(context: LintContext) -> Iterator[Hit]:
    """MCP allows `.` (and once `/`) in names; OpenAI and Anthropic reject both with a 400.
    This is the most common real failure when MCP tools are passed to a model API."""
    if context.mcp_only:
        return
    for tool in context.tools:
        found = [c for c in "./" if c in tool.name]
        if found:
            yield context.hit(
                tool,
                "name",
                message=f"name {tool.name!r} contains {' and '.join(repr(c) for c in found)}, which OpenAI and Anthropic reject; use '_'",
            )


@rule(
    "TS104",
    "mixed-naming-styles",
    Severity.WARNING,
    "One naming style across the registry",
    bad="- name: read_file\n  description: d\n- name: writeFile\n  description: d\n- name: list_dir\n  description: d\n",
    good="- name: read_file\n  description: d\n- name: write_file\n  description: d\n",
)
def mixed_styles(context: LintContext) -> Iterator[Hit]:
    """Names mixing snake_case, camelCase and kebab-case look like different systems and are
    harder to guess. The minority styles are reported. Names with a `mcp__` prefix keep their
    server's style and are not counted."""
    styles = {t.name: _style(t.name) for t in context.tools if not t.name.startswith("mcp__")}
    counts = Counter(s for s in styles.values() if s)
    if len(counts) < 2:
        return
    dominant, _ = max(counts.items(), key=lambda item: (item[1], item[0] == "snake_case"))
    for tool in context.tools:
        style = styles.get(tool.name)
        if style and style != dominant:
            yield context.hit(
                tool,
                "name",
                message=f"name {tool.name!r} is {style}; most names here are {dominant}",
            )


@rule(
    "TS105",
    "gemini-name-style",
    Severity.INFO,
    "No `-` or `.` in names meant for Gemini",
    bad="- name: read-file\n  description: d\n",
    good="- name: read_file\n  description: d\n",
)
def gemini_style(context: LintContext) -> Iterator[Hit]:
    """Gemini's best practice asks for names without spaces, periods or dashes.
    Info by default; a warning when `gemini` is a target."""
    severity = Severity.WARNING if "gemini" in context.targets else None
    for tool in context.tools:
        if "-" in tool.name or "." in tool.name:
            yield context.hit(
                tool,
                "name",
                message=f"name {tool.name!r} has '-' or '.'; Gemini recommends names without them",
                severity=severity,
            )


@rule(
    "TS106",
    "namespace-cohesion",
    Severity.INFO,
    "Tools of one category share a prefix or suffix",
    bad="".join(f"- name: file_op{i}\n  description: d\n  category: files\n" for i in range(21))
    + "- name: zap\n  description: d\n  category: files\n",
    good="".join(f"- name: file_op{i}\n  description: d\n  category: files\n" for i in range(22)),
)
def namespace_cohesion(context: LintContext) -> Iterator[Hit]:
    """With more than `namespace-threshold` (20) tools, namespacing (`github_*`, `*_file`)
    helps the model tell groups apart. When a clear majority of a category's tools share a
    first or last name word (two thirds or more, plurals folded), the others are reported."""
    if len(context.tools) <= context.option("namespace-threshold"):
        return
    by_category = defaultdict(list)
    for tool in context.tools:
        if tool.category:
            by_category[tool.category].append(tool)
    for category, tools in by_category.items():
        if len(tools) < 3:
            continue
        parts = {t.name: [stem(w) for w in split_name(t.name)] or [t.name] for t in tools}
        firsts = Counter(p[0] for p in parts.values())
        lasts = Counter(p[-1] for p in parts.values())
        word, count, where = max(
            [(w, c, "prefix") for w, c in firsts.items()]
            + [(w, c, "suffix") for w, c in lasts.items()],
            key=lambda item: (item[1], item[2] == "prefix", item[0]),
        )
        if count == len(tools) or count * 3 < len(tools) * 2:  # act only on a clear majority
            continue
        for tool in tools:
            words = parts[tool.name]
            if (words[0] if where == "prefix" else words[-1]) != word:
                yield context.hit(
                    tool,
                    "name",
                    message=f"{count} of {len(tools)} tools in category {category!r} share the {where} {word!r}; {tool.name!r} does not",
                )


@rule(
    "TS107",
    "generic-name",
    Severity.WARNING,
    "Name is not a bare generic word",
    bad="- name: search\n  description: d\n",
    good="- name: search_documents\n  description: d\n",
)
def generic_name(context: LintContext) -> Iterator[Hit]:
    """Bare names like `search`, `get`, `run` or `do_it` collide as soon as two servers are
    aggregated, and tell the model nothing about what is searched or run."""
    for tool in context.tools:
        lowered = tool.name.lower()
        if (
            lowered in GENERIC_NAMES
            or lowered.startswith("do_")
            or re.fullmatch(r"test\d*", lowered)
        ):
            yield context.hit(
                tool,
                "name",
                message=f"name {tool.name!r} is generic; say what it acts on, e.g. '{lowered}_<object>'",
            )


@rule(
    "TS108",
    "name-without-verb",
    Severity.INFO,
    "Name contains a verb",
    bad="- name: user_profile\n  description: d\n",
    good="- name: get_user_profile\n  description: d\n",
)
def name_without_verb(context: LintContext) -> Iterator[Hit]:
    """`get_weather` says what calling it does; `weather` does not."""
    for tool in context.tools:
        words = split_name(tool.name)
        if words and not any(w in VERBS for w in words):
            yield context.hit(
                tool,
                "name",
                message=f"name {tool.name!r} has no verb; start with what it does (get_, list_, create_, ...)",
            )
