"""TS1xx: tool names every provider accepts and agents can tell apart."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.ranking.fields import stem
from toolsel.text import split_name

GENERIC_NAMES = frozenset(
    {
        "search", "get", "run", "execute", "exec", "query", "tool", "fetch", "call", "do",
        "process", "handle", "test", "tests", "action", "function", "api", "invoke",
    }
)  # fmt: skip
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
    enable disable toggle mark
    reply issue share complete refine claim submit request decide choose select pick adjust
    aggregate authenticate authorize capture clear comment concat join split combine enhance
    erase flip rotate follow freeze fund investigate invoke call manage mention mux pause
    resume poll recall remember forget suggest tell trim crop resize step triage geocode
    interrupt diagnose dump relate link attach detach subscribe unsubscribe activate install
    uninstall upgrade downgrade register verify inspect evaluate measure record play stop
    report log print preview visit browse crawl scrape sort filter group rank score tag label
    annotate highlight mark convert encode decode encrypt decrypt sign hash compress extract
    zip unzip mount unmount attach bind map reduce transform normalize tidy clean purge
    prune retry queue enqueue dispatch notify alert warn remind greet chat speak say reply
    respond answer summarise summarize draft compose write rewrite paraphrase proofread
    correct match replace swap fill solve predict forecast simulate emulate debug
    optimize lock unlock hold release tweet retweet post like unlike vote rate
    review accept decline assign reassign transfer withdraw deposit charge bill invoice
    quote price buy sell checkout ship deliver return exchange heartbeat watch observe
    ingest init initialize initialise exec enter exit discover pass""".split()
)
#: Prefixes that make a verb of a verb: `unfollow`, `redeploy`, `deactivate`, `disconnect`.
VERB_PREFIXES = ("un", "re", "de", "dis", "pre", "auto")


def _is_verb(word: str) -> bool:
    return word in VERBS or any(
        word.startswith(prefix) and word[len(prefix) :] in VERBS for prefix in VERB_PREFIXES
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


@dataclass(frozen=True, slots=True)
class NameRule:
    """A provider's documented tool-name rule: the pattern it states, the characters it
    allows, what the first one must be, and the longest name."""

    provider: str
    pattern: str
    chars: str  # a regex character class body
    first: str | None  # a character class body the first character must match, or None
    max_length: int

    def allows(self, ch: str) -> bool:
        return re.fullmatch(f"[{self.chars}]", ch) is not None


#: The name rules of the model APIs (provider-constraints.md 1.1): Anthropic's docs and
#: OpenAI's error messages, and python-genai's FunctionDeclaration (2026-08).
NAME_RULES = {
    "openai": NameRule("OpenAI", "^[a-zA-Z0-9_-]{1,64}$", "a-zA-Z0-9_-", None, 64),
    "anthropic": NameRule("Anthropic", "^[a-zA-Z0-9_-]{1,64}$", "a-zA-Z0-9_-", None, 64),
    "gemini": NameRule(
        "Gemini", "^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$", "A-Za-z0-9_.:-", "A-Za-z_", 128
    ),
}
#: Providers with a name rule of their own in their profile (TS421, TS441): when that
#: profile is a target, its rule reports the name and the TS10x rules leave it out.
PROFILE_NAME_RULES = ("anthropic", "gemini")


def name_rules(context: LintContext) -> list[NameRule]:
    """The name rules of the providers the chosen targets send tools to, in a fixed order."""
    wanted = set(context.config.providers)
    wanted -= {p for p in PROFILE_NAME_RULES if context.profile_active(p)}
    return [rule for key, rule in NAME_RULES.items() if key in wanted]


def _who(rules: list[NameRule]) -> str:
    """ "OpenAI (^...$) and Gemini (^...$)": each provider with the pattern it documents."""
    parts = [f"{r.provider} ({r.pattern})" for r in rules]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def portable_name(context: LintContext) -> Iterator[Hit]:
    """Each targeted model API documents its own name rule: OpenAI and Anthropic
    `^[a-zA-Z0-9_-]{1,64}$` (a leading digit is fine), Gemini
    `^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$` (a letter or `_` first; dots and colons allowed). The
    default `portable` target checks all three, so names match their intersection,
    `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`. Each finding names the providers that reject the name
    and the patterns they document. Dots and slashes (TS103) and length (TS102) have rules
    of their own; under an MCP-only target, TS461 applies instead."""
    rules = name_rules(context)
    for tool in context.tools:
        name = tool.name
        problems: dict[str, list[NameRule]] = {}
        for name_rule in rules:
            if not name:
                problems.setdefault("is empty", []).append(name_rule)
                continue
            bad = sorted({c for c in name if c not in "./" and not name_rule.allows(c)})
            if bad:
                what = f"contains {', '.join(repr(c) for c in bad)}"
                problems.setdefault(what, []).append(name_rule)
            if name_rule.first and not re.fullmatch(f"[{name_rule.first}]", name[0]):
                problems.setdefault(f"starts with {name[0]!r}", []).append(name_rule)
        for what, rejecting in problems.items():
            yield context.hit(
                tool,
                "name",
                message=f"name {name!r} {what}, which {_who(rejecting)} reject{'s' if len(rejecting) == 1 else ''}",
            )


TS101 = Rule(
    "TS101",
    "portable-name",
    Severity.ERROR,
    "Name uses only characters the targeted providers accept",
    bad="- name: read file\n  description: d\n",
    good="- name: read_file\n  description: d\n",
    check=portable_name,
)


def name_too_long(context: LintContext) -> Iterator[Hit]:
    """OpenAI and Anthropic's documentation cap names at 64 characters, Gemini at 128; MCP
    clients that prefix `server__` often push names over it. Info only under an MCP-only
    target (checked against 64)."""
    rules = name_rules(context)
    if context.mcp_only:
        for tool in context.tools:
            if len(tool.name) > 64:
                yield context.hit(
                    tool,
                    "name",
                    message=f"name is {len(tool.name)} characters; clients that send it to OpenAI or Anthropic allow 64",
                    severity=Severity.INFO,
                )
        return
    for tool in context.tools:
        over = [r for r in rules if len(tool.name) > r.max_length]
        if over:
            limit = min(r.max_length for r in over)
            yield context.hit(
                tool,
                "name",
                message=f"name is {len(tool.name)} characters, over the {limit} that {_who(over)} allow{'s' if len(over) == 1 else ''}",
            )


TS102 = Rule(
    "TS102",
    "name-too-long",
    Severity.ERROR,
    "Name is no longer than the targeted providers allow",
    bad="- name: " + "a" * 65 + "\n  description: d\n",
    good="- name: read_file\n  description: d\n",
    check=name_too_long,
)


def dot_or_slash(context: LintContext) -> Iterator[Hit]:
    """MCP allows `.` (and once `/`) in names; OpenAI and Anthropic reject both with a 400,
    Gemini accepts `.` but not `/`. This is the most common real failure when MCP tools are
    passed to a model API."""
    rules = name_rules(context)
    for tool in context.tools:
        for ch in "./":
            if ch not in tool.name:
                continue
            rejecting = [r for r in rules if not r.allows(ch)]
            if rejecting:
                yield context.hit(
                    tool,
                    "name",
                    message=f"name {tool.name!r} contains {ch!r}, which {_who(rejecting)} reject{'s' if len(rejecting) == 1 else ''}; use '_'",
                )


TS103 = Rule(
    "TS103",
    "dot-or-slash-in-name",
    Severity.ERROR,
    "Name has no `.` or `/` where the targeted providers reject them",
    bad="- name: files.read\n  description: d\n",
    good="- name: files_read\n  description: d\n",
    check=dot_or_slash,
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


TS104 = Rule(
    "TS104",
    "mixed-naming-styles",
    Severity.INFO,
    "One naming style across the registry",
    bad="- name: read_file\n  description: d\n- name: writeFile\n  description: d\n- name: list_dir\n  description: d\n",
    good="- name: read_file\n  description: d\n- name: write_file\n  description: d\n",
    check=mixed_styles,
)


def gemini_style(context: LintContext) -> Iterator[Hit]:
    """Gemini's best practice asks for names without spaces, periods or dashes. Advice, so
    info even when `gemini` is a target: Gemini accepts both (`[A-Za-z0-9_.:-]`), and TS441
    reports the names it rejects. Silent when no target sends to Gemini."""
    for tool in context.tools:
        if "-" in tool.name or "." in tool.name:
            yield context.hit(
                tool,
                "name",
                message=f"name {tool.name!r} has '-' or '.'; Gemini recommends names without them",
            )


TS105 = Rule(
    "TS105",
    "gemini-name-style",
    Severity.INFO,
    "No `-` or `.` in names meant for Gemini",
    bad="- name: read-file\n  description: d\n",
    good="- name: read_file\n  description: d\n",
    providers=("gemini",),
    check=gemini_style,
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


TS106 = Rule(
    "TS106",
    "namespace-cohesion",
    Severity.INFO,
    "Tools of one category share a prefix or suffix",
    bad="".join(f"- name: file_op{i}\n  description: d\n  category: files\n" for i in range(21))
    + "- name: zap\n  description: d\n  category: files\n",
    good="".join(f"- name: file_op{i}\n  description: d\n  category: files\n" for i in range(22)),
    check=namespace_cohesion,
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


TS107 = Rule(
    "TS107",
    "generic-name",
    Severity.WARNING,
    "Name is not a bare generic word",
    bad="- name: search\n  description: d\n",
    good="- name: search_documents\n  description: d\n",
    check=generic_name,
)


def name_without_verb(context: LintContext) -> Iterator[Hit]:
    """`get_weather` says what calling it does; `user_profile` does not. A one-word name
    (Claude Code's `Bash`, `Glob`) is the tool's own name, not a phrase that could start
    with a verb, and a tool described in another language is not held to English verbs."""
    for tool in context.tools:
        words = split_name(tool.name)
        if len(words) < 2 or any(_is_verb(w) for w in words):
            continue
        if not context.in_other_language(tool):
            yield context.hit(
                tool,
                "name",
                message=f"name {tool.name!r} has no verb; start with what it does (get_, list_, create_, ...)",
            )


TS108 = Rule(
    "TS108",
    "name-without-verb",
    Severity.INFO,
    "Name contains a verb",
    bad="- name: user_profile\n  description: d\n",
    good="- name: get_user_profile\n  description: d\n",
    check=name_without_verb,
)
