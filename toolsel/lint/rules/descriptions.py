"""TS2xx: descriptions the model can select by."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import DESCRIPTION_PAIRS, LintContext
from toolsel.lint.model import Hit, Severity, rule
from toolsel.lint.rules._util import has_field, lacking_phrase
from toolsel.registry.model import Permission, Tool
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


TS201 = rule(
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


TS202 = rule(
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


TS203 = rule(
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


TS204 = rule(
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


TS205 = rule(
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


TS206 = rule(
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


TS207 = rule(
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


TS208 = rule(
    "TS208",
    "no-output-statement",
    Severity.INFO,
    "Description of a read tool says what it returns",
    bad="- name: a\n  description: Looks up the weather for a city.\n",
    good="- name: a\n  description: Looks up the weather. Returns the temperature in Celsius.\n",
    check=no_output,
)


def confusable_tools(context: LintContext) -> Iterator[Hit]:
    """Two tools whose descriptions are similar (TF-IDF cosine at or above
    `overlap-threshold`, 0.6), when neither names the other, are how an agent comes to
    call `delete_file` when the user asked to remove a database record. Say in each
    description how it differs from the other. Sentences that many descriptions repeat word
    for word (a preamble shared by at least 20% of the tools, and at least 3) are left out
    of the comparison: they do not tell tools apart, and they would make every pair look
    alike; so are sentences the two share word for word (a boilerplate tail such as "Error
    Responses: 400: Bad request"). A pair whose names already tell them apart
    (`pods_get`/`pods_delete`, `nodes_top`/`pods_top`), each description saying its own
    name's difference, is not noted. Uses sparse nearest neighbours, so 50k-tool registries
    lint in bounded memory. Info: similar wording alone does not prove an agent confuses
    them."""
    tools = context.described_tools
    threshold = float(context.option("overlap-threshold"))
    for i, j, score in context.description_pairs():
        first, second = tools[i], tools[j]
        if first.name == second.name:
            continue
        if first.name in second.description or second.name in first.description:
            continue
        if names_tell_apart(first, second):
            continue
        score = min(score, similarity_without_shared_sentences(first, second))
        if score < threshold:
            continue
        yield context.hit(
            second,
            "description",
            message=f"descriptions of {first.name!r} and {second.name!r} are {score:.0%} similar (TF-IDF cosine) and neither names the other; say when to use each",
        )


TS209 = rule(
    "TS209",
    "confusable-tools",
    Severity.INFO,
    "No two descriptions are near-duplicates",
    uses=(DESCRIPTION_PAIRS,),
    bad=(
        "- name: delete_file\n  description: Deletes a record from the system permanently.\n"
        "- name: delete_record\n  description: Deletes a record from the system.\n"
    ),
    good=(
        "- name: delete_file\n  description: Deletes one file from the workspace disk.\n"
        "- name: delete_record\n  description: Deletes one row from a database table.\n"
    ),
    check=confusable_tools,
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


TS210 = rule(
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


TS211 = rule(
    "TS211",
    "description-mostly-example",
    Severity.INFO,
    "Description is not mostly examples",
    bad="- name: a\n  description: \"Runs. e.g. run(cmd='ls -la /tmp && echo done && cat file.txt | grep foo')\"\n",
    good="- name: a\n  description: Runs a shell command in the sandbox and returns its output.\n",
    check=mostly_example,
)


def _stems(text: str) -> set[str]:
    from toolsel.ranking.fields import stem

    return {stem(w) for w in content_words(text)}


def names_tell_apart(first: Tool, second: Tool) -> bool:
    """The names differ by words (a verb, an object) that each description says, every one
    of them: so an agent reading either tool sees what sets it apart (`remove_item` and
    `delete_record` whose descriptions both speak of items are not told apart)."""
    from toolsel.ranking.fields import stem

    a = {stem(w) for w in split_name(first.name)}
    b = {stem(w) for w in split_name(second.name)}
    only_a, only_b = a - b, b - a
    if not only_a or not only_b:
        return False
    return only_a <= _stems(first.description) and only_b <= _stems(second.description)


_SENTENCE = re.compile(r"(?<=[.!?:])\s+|\n+")


def similarity_without_shared_sentences(first: Tool, second: Tool) -> float:
    """Cosine of the two descriptions' word sets once the sentences they share word for word
    are left out (1.0 when nothing is shared: the pair's own score stands)."""
    a = [s.strip() for s in _SENTENCE.split(first.description) if s.strip()]
    b = [s.strip() for s in _SENTENCE.split(second.description) if s.strip()]
    shared = set(a) & set(b)
    if not shared:
        return 1.0
    rest_a = _stems(" ".join(s for s in a if s not in shared))
    rest_b = _stems(" ".join(s for s in b if s not in shared))
    if not rest_a or not rest_b:
        return 1.0 if rest_a == rest_b else 0.0
    return float(len(rest_a & rest_b) / (len(rest_a) * len(rest_b)) ** 0.5)


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


TS212 = rule(
    "TS212",
    "boilerplate-description",
    Severity.WARNING,
    "Description is more than boilerplate around the name",
    bad="- name: get_weather\n  description: This tool calls get_weather.\n",
    good="- name: get_weather\n  description: Today's forecast for a city, in Celsius.\n",
    check=boilerplate_description,
)


#: An identifier written as a tool name is: words joined by `_`, or camelCase (a hyphenated
#: word counts only in backticks: "read-only" and "up-to-date" are English).
_IDENTIFIER = (
    r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+"
    r"|(?<=`)[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?=`)"
)
#: Last words of a data field's name, not a tool's ("use originating_flow_id when
#: retrying").
FIELD_WORDS = frozenset(
    {
        "id", "ids", "name", "names", "url", "urls", "uri", "path", "paths", "key", "keys",
        "type", "count", "status", "date", "time", "token", "value", "values", "mode", "size",
        "limit", "offset", "cursor", "number", "code", "format", "field", "fields", "flag",
    }
)  # fmt: skip
#: How a description points at another tool: "call X", "use X first", "the tracker's X",
#: "pass the JSON to X", "X tool".
NAMED_TOOL = re.compile(
    r"(?:\b(?:call|calls|calling|called|use|uses|using|invoke|invokes|invoking|try|prefer|"
    r"via|then|first)\s+(?:the\s+|a\s+)?`?|['\u2019]s\s+`?|"
    r"\b(?:pass|passes|passed|send|sends|give|feed|hand|forward)\b[^.\n]{0,60}?\bto\s+`?)"
    r"(" + _IDENTIFIER + r")`?(?=\W|$)"
)


def names_unknown_tool(context: LintContext) -> Iterator[Hit]:
    """A description that tells the agent to call, use or pass results to a tool this
    registry does not have ("pass the JSON straight to entry_add", a tool of another
    server) sends it after a tool it cannot call. Only a name in such a context counts, and
    not one that is a property of any tool's input or output here, nor one named like a data
    field (`..._id`, `..._name`), nor an existing tool's name or alias (namespaced
    `mcp__server__name` too)."""
    known = {name.lower() for name in context.names}
    known |= {re.split(r"__|[./:]", name)[-1].lower() for name in context.names}  # server.tool
    for tool in context.tools:
        known |= {a.lower() for a in tool.aliases}
    fields = _parameter_names(context)
    for tool in context.tools:
        for match in NAMED_TOOL.finditer(tool.description):
            name = match.group(1)
            folded = name.lower()
            if folded in known or folded in fields or folded.replace("-", "_") in known:
                continue
            if split_name(name)[-1] in FIELD_WORDS:
                continue  # a field of the data, not a tool
            yield context.hit(
                tool,
                "description",
                message=f"the description points to {name!r}, which is not a tool of this "
                "registry; name a tool the agent can call, or add it",
            )
            break


TS213 = rule(
    "TS213",
    "description-names-unknown-tool",
    Severity.WARNING,
    "A description names only tools that exist",
    bad="- name: convert\n  description: Returns the rates; pass them to expense_to_invoice.\n",
    good="- name: convert\n  description: Returns the rates; pass them to make_invoice.\n- name: make_invoice\n  description: Makes an invoice from expenses and rates.\n",
    check=names_unknown_tool,
)


def _parameter_names(context: LintContext) -> set[str]:
    """Every property name of every tool's input and output schemas."""
    from toolsel.lint.schema import walk_schema

    found: set[str] = set()
    for tool in context.tools:
        nodes = list(context.schema_nodes(tool))
        if isinstance(tool.output_schema, dict):
            nodes.extend(walk_schema(tool.output_schema))
        found.update(n.property_name.lower() for n in nodes if n.property_name is not None)
    return found
