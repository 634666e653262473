"""TS2xx: descriptions the model can select by, each read on its own (`neighbours` reads
one against the other tools)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.rules._util import has_field, lacking_phrase
from toolsel.registry.model import Permission
from toolsel.text import content_words, sentence_count, split_name
from toolsel.text import words as text_words

USAGE = re.compile(
    r"\b(use (this|it|when|for|to|only)|call (this|it)|when (the user|you|a user|an agent)|"
    r"useful (for|when)|use \w+ instead|for \w+ing|intended for|designed for|good for|best for|prefer)\b",
    re.IGNORECASE,
)
LIMITS = re.compile(
    r"\b(does not|doesn't|do not|don't|only|cannot|can't|instead|not for|never|must not|"
    r"won't|will not|unless|except|limited to|at most|up to|fails? (if|when))\b",
    re.IGNORECASE,
)
OUTPUT = re.compile(
    r"\b(returns?|outputs?|responds? with|yields?|gives back|produces?|reports?|prints?|"
    r"shows?|lists?|answers?)\b",
    re.IGNORECASE,
)
#: A placeholder note: a marker in capitals (as code comments write them), or "todo:" in any
#: case, that opens the text, a sentence or a line ("TODO write this", "Reads a file. TODO:
#: mention limits."), up to the end of its sentence. A marker inside a sentence ("find TODO
#: comments", "+1 XXX-XXXX") is a search term or a format, and the English word "todo" ("adds
#: an item to the todo list") is neither.
PLACEHOLDER_NOTE = re.compile(
    r"(?:^|(?<=[.!?;])\s+|\n\s*)(?:(?:TODO|TBD|FIXME|XXX)\b|(?i:todo|tbd|fixme)\s*:)[^.!?\n]*"
)
LOREM = re.compile(r"\blorem ipsum\b", re.IGNORECASE)
#: Quoted text and code: what a description quotes is an example, never a placeholder.
QUOTED = re.compile(
    r"```.*?(?:```|$)|`[^`\n]*`|\"[^\"\n]*\"|(?<!\w)'[^'\n]*'(?!\w)|\u201c[^\u201d\n]*\u201d",
    re.DOTALL,
)
#: A description up to this long that holds a placeholder note is unfinished; a longer one
#: is a placeholder only when its notes are at least half of it.
SHORT_PLACEHOLDER_CHARS = 200
PLACEHOLDER_WHOLE = frozenset(
    {"description", "n/a", "na", "none", "-", "...", "tbd", "todo", "desc", "tool"}
)
#: A fenced block, or an inline example up to the end of its sentence (`for example a list
#: of contacts, a draft, or data to enter.`), not of its line: the sentences after it are
#: description again.
EXAMPLE = re.compile(
    r"```.*?(```|$)|\b(e\.g\.|example:|for example)[^\n]*?(?=[.;](?:\s|$)|\n|$)",
    re.IGNORECASE | re.DOTALL,
)


def empty_description(context: LintContext) -> Iterator[Hit]:
    """A blank description gives the model no selection signal at all."""
    for tool in context.tools:
        if has_field(tool, "description") and not tool.description.strip():
            yield context.hit(
                tool,
                "description",
                message="description is empty; say what the tool does and when to use it",
            )


TS201 = Rule(
    "TS201",
    "empty-description",
    Severity.ERROR,
    "Description is not empty",
    bad="- name: a\n  description: '   '\n",
    good="- name: a\n  description: Reads a file.\n",
    check=empty_description,
)


def description_too_short(context: LintContext) -> Iterator[Hit]:
    """One-line descriptions are "underspecified": they rarely say when to use the tool."""
    minimum = context.option("min-description-chars")
    for tool in context.tools:
        length = len(tool.description.strip())
        if 0 < length < minimum:
            yield context.hit(
                tool,
                "description",
                message=f"description is {length} character{'s' if length != 1 else ''} (min {minimum}); say what it does, when to use it and what it returns",
            )


TS202 = Rule(
    "TS202",
    "description-too-short",
    Severity.INFO,
    "Description has at least `min-description-chars` (40) characters",
    bad="- name: a\n  description: Reads.\n",
    good="- name: a\n  description: Reads a UTF-8 text file from the workspace and returns it.\n",
    check=description_too_short,
)


def too_few_sentences(context: LintContext) -> Iterator[Hit]:
    """Anthropic's guidance asks for at least 3-4 sentences per tool description: what it
    does, when to use it, what it returns and its limits."""
    minimum = context.option("min-sentences")
    for tool in context.tools:
        count = sentence_count(tool.description)
        if 0 < count < minimum:
            yield context.hit(
                tool,
                "description",
                message=f"description has {count} sentence{'s' if count != 1 else ''} (min {minimum})",
            )


TS203 = Rule(
    "TS203",
    "too-few-sentences",
    Severity.INFO,
    "Description has at least `min-sentences` (3) sentences",
    bad="- name: a\n  description: Reads a file from disk and returns its text.\n",
    good="- name: a\n  description: Reads a file. Use it to inspect code. Returns the text.\n",
    check=too_few_sentences,
)


def description_too_long(context: LintContext) -> Iterator[Hit]:
    """OpenAI's Chat Completions API has rejected descriptions over 1024 characters
    (`string_above_max_length`). An error when `openai` is a target; not checked when the
    targets send tools to other APIs only."""
    maximum = context.option("max-description-chars")
    severity = Severity.ERROR if context.targets_any("openai", "openai-strict") else None
    for tool in context.tools:
        if len(tool.description) > maximum:
            yield context.hit(
                tool,
                "description",
                message=f"description is {len(tool.description)} characters (max {maximum})",
                severity=severity,
            )


TS204 = Rule(
    "TS204",
    "description-too-long",
    Severity.WARNING,
    "Description has at most `max-description-chars` (1024) characters",
    bad="- name: a\n  description: " + "word " * 210 + "\n",
    good="- name: a\n  description: Reads a file.\n",
    providers=("openai",),
    check=description_too_long,
)


def restates_name(context: LintContext) -> Iterator[Hit]:
    """A description that only repeats the name's words (`read_file`: "Reads the file") adds
    nothing: 73% of MCP tools in one study had this smell. Reported when fewer than 4 words
    are not in the name, or 80% or more of its words are."""
    for tool in context.tools:
        words = content_words(tool.description)
        if not words:
            continue
        name_words = set(split_name(tool.name)) | {w.rstrip("s") for w in split_name(tool.name)}
        novel = {w for w in words if w not in name_words and w.rstrip("s") not in name_words}
        overlap = 1 - len(novel) / len(words)
        if len(novel) < 4 or overlap >= 0.8:
            yield context.hit(
                tool,
                "description",
                message=f"description mostly restates the name {tool.name!r}; add when to use it and what it returns",
            )


TS205 = Rule(
    "TS205",
    "description-restates-name",
    Severity.INFO,
    "Description says more than the name",
    bad="- name: read_file\n  description: Read file.\n",
    good="- name: read_file\n  description: Returns the text of one workspace file by path.\n",
    check=restates_name,
)


def no_usage_guidance(context: LintContext) -> Iterator[Hit]:
    """ "Use this when …" is the single most useful sentence for selection; 89% of MCP tools
    lack usage guidance."""
    yield from lacking_phrase(
        context, USAGE, 'description does not say when to use the tool ("Use this when ...")'
    )


TS206 = Rule(
    "TS206",
    "no-usage-guidance",
    Severity.INFO,
    "Description says when to use the tool",
    bad="- name: a\n  description: Reads a file from disk and returns the text.\n",
    good="- name: a\n  description: Reads a file. Use this when you need the exact text.\n",
    check=no_usage_guidance,
)


def no_limitations(context: LintContext) -> Iterator[Hit]:
    """Saying what a tool does *not* do ("does not delete", "only reads") is what separates
    it from its neighbours; 90% of MCP tools leave limitations unstated."""
    yield from lacking_phrase(
        context, LIMITS, 'description states no limitation ("does not ...", "only ...")'
    )


TS207 = Rule(
    "TS207",
    "no-limitations",
    Severity.INFO,
    "Description states a limitation or boundary",
    bad="- name: a\n  description: Reads a file and returns the text.\n",
    good="- name: a\n  description: Reads a file. Does not follow symlinks.\n",
    check=no_limitations,
)


def no_output(context: LintContext) -> Iterator[Hit]:
    """The model needs to know what comes back to plan its next step."""
    yield from lacking_phrase(
        context,
        OUTPUT,
        'description does not say what the tool returns ("Returns ...")',
        lambda tool: tool.permission is Permission.READ,
    )


TS208 = Rule(
    "TS208",
    "no-output-statement",
    Severity.INFO,
    "Description of a read tool says what it returns",
    bad="- name: a\n  description: Looks up the weather for a city.\n",
    good="- name: a\n  description: Looks up the weather. Returns the temperature in Celsius.\n",
    check=no_output,
)


def is_placeholder(description: str) -> bool:
    """The description is a placeholder, not one that mentions a marker: it is a stock word
    ("description", "n/a", "todo"), lorem ipsum, or a TODO/TBD/FIXME/XXX note that is the
    whole of a short description or at least half of a long one. Quoted text and code are
    examples, never placeholders."""
    text = description.strip()
    if text.lower().rstrip(".") in PLACEHOLDER_WHOLE:
        return True
    prose = QUOTED.sub(" ", text)
    if LOREM.search(prose):
        return True
    notes = sum(len(match.group()) for match in PLACEHOLDER_NOTE.finditer(prose))
    return notes > 0 and (len(text) <= SHORT_PLACEHOLDER_CHARS or 2 * notes >= len(text))


def placeholder(context: LintContext) -> Iterator[Hit]:
    """A placeholder left in place of a description: a TODO, TBD, FIXME or XXX note ("TODO
    write this", "Reads a file. TODO: mention limits."), lorem ipsum, or a description that
    is just "description", "n/a" or "todo". A description that names a marker as a search
    term ("find TODO comments"), quotes it, or says "todo" in a sentence (a to-do list tool)
    is not one; nor is a long description with one stray note (most of it is real)."""
    for tool in context.tools:
        if is_placeholder(tool.description):
            text = tool.description.strip()
            yield context.hit(
                tool,
                "description",
                message=f"description is placeholder text ({text[:40]!r}); write the real description",
            )


TS210 = Rule(
    "TS210",
    "placeholder-description",
    Severity.ERROR,
    "Description is not placeholder text",
    bad="- name: a\n  description: TODO write this\n",
    good="- name: a\n  description: Reads a file.\n",
    check=placeholder,
)


def mostly_example(context: LintContext) -> Iterator[Hit]:
    """Prioritise descriptions over examples; examples can hurt reasoning models. Reported
    when examples make up more than `example-ratio` (0.5) of the text."""
    ratio = float(context.option("example-ratio"))
    for tool in context.tools:
        text = tool.description
        if not text.strip():
            continue
        example_chars = sum(len(m.group(0)) for m in EXAMPLE.finditer(text))
        if example_chars / len(text) > ratio:
            yield context.hit(
                tool,
                "description",
                message=f"{example_chars / len(text):.0%} of the description is examples; describe the tool first",
            )


TS211 = Rule(
    "TS211",
    "description-mostly-example",
    Severity.INFO,
    "Description is not mostly examples",
    bad="- name: a\n  description: \"Runs. e.g. run(cmd='ls -la /tmp && echo done && cat file.txt | grep foo')\"\n",
    good="- name: a\n  description: Runs a shell command in the sandbox and returns its output.\n",
    check=mostly_example,
)


#: What a boilerplate description says about the tool being a tool.
META_WORDS = frozenset(
    {
        "tool", "tools", "function", "functions", "method", "endpoint", "api", "mcp", "wrapper",
        "handler", "implementation", "implements", "invoke", "invokes", "command", "operation",
    }
)  # fmt: skip
#: Words a description may hold around a tool's name and still say nothing of what it does.
FILLER = META_WORDS | frozenset(
    {
        "this", "the", "a", "an", "is", "it", "server", "call", "calls", "calling", "run", "runs",
        "execute", "executes", "perform", "performs", "use", "used", "uses", "for", "to", "of",
        "that", "which", "around", "action", "provides", "description", "name", "named",
        "called", "here", "s",
    }
)  # fmt: skip


def boilerplate_description(context: LintContext) -> Iterator[Hit]:
    """A description made only of the tool's name and boilerplate about being a tool ("This
    tool calls get_weather", "get_weather function", "Tool: get_weather", "Wrapper around
    the get_weather API") says no more than an empty one: the model can only guess from the
    name. A plain restatement such as "Get the weather" is TS205's (info); this one needs
    the boilerplate, and nothing else left."""
    for tool in context.tools:
        text = tool.description.strip()
        if not text:
            continue  # TS201
        name_words = set(split_name(tool.name)) | {tool.name.lower()}
        words = text_words(text)
        left = [
            w
            for w in words
            if w not in FILLER and w not in name_words and w.rstrip("s") not in name_words
        ]
        if not left and META_WORDS & set(words):
            yield context.hit(
                tool,
                "description",
                message=f"the description is only boilerplate around the name {tool.name!r}; "
                "say what the tool does, when to use it and what it returns",
            )


TS212 = Rule(
    "TS212",
    "boilerplate-description",
    Severity.WARNING,
    "Description is more than boilerplate around the name",
    bad="- name: get_weather\n  description: This tool calls get_weather.\n",
    good="- name: get_weather\n  description: Today's forecast for a city, in Celsius.\n",
    check=boilerplate_description,
)
