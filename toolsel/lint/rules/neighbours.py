"""TS209, TS213: a description read against the registry's other tools: one so like
another's that an agent confuses the two, or one that points to a tool that is not there."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import DESCRIPTION_PAIRS, LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.registry.model import Tool
from toolsel.text import content_words, split_name


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


TS209 = Rule(
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


#: An identifier written as a tool name is: words joined by `_`, or camelCase (a hyphenated
#: word counts only in backticks: "read-only" and "up-to-date" are English).
_IDENTIFIER = (
    r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+"
    r"|(?<=`)[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?=`)"
)
#: Last words of a data field's name, not a tool's ("use originating_flow_id when
#: retrying", "backdating via created_at", "override it via override_params").
FIELD_WORDS = frozenset(
    {
        "id", "ids", "iid", "iids", "name", "names", "url", "urls", "uri", "path", "paths",
        "key", "keys", "type", "count", "status", "date", "time", "at", "token", "value",
        "values", "mode", "size", "limit", "offset", "cursor", "number", "code", "format",
        "field", "fields", "flag", "params",
    }
)  # fmt: skip
#: First words of a flag's name (`with_statistics`), not a tool's.
FLAG_WORDS = frozenset({"with"})
#: How a description points at another tool: "call X", "use X first", "the tracker's X",
#: "pass the JSON to X", "X tool".
NAMED_TOOL = re.compile(
    r"(?:\b(?:call|calls|calling|called|use|uses|using|invoke|invokes|invoking|try|prefer|"
    r"via|then|first)\s+(?:the\s+|a\s+)?`?|['\u2019]s\s+`?|"
    r"\b(?:pass|passes|passed|send|sends|give|feed|hand|forward)\b[^.\n]{0,60}?\bto\s+`?)"
    r"(" + _IDENTIFIER + r")`?(?=\W|$)"
)
#: A qualified name's member, right after the name: `merge_request.update`, `work_item.get`.
_MEMBER = re.compile(r"`?\.([A-Za-z][A-Za-z0-9_]*)")


def names_unknown_tool(context: LintContext) -> Iterator[Hit]:
    """A description that tells the agent to call, use or pass results to a tool this
    registry does not have ("pass the JSON straight to entry_add", a tool of another
    server) sends it after a tool it cannot call. Only a name in such a context counts, and
    not an existing tool's name or alias (namespaced `mcp__server__name` too, or without the
    prefix all the registry's tools share: `merge_request.update` for
    `gitlab_merge_request`), nor one named like a data field (`..._id`, `..._at`,
    `with_...`), nor a term of the registry: a property of any tool's input or output, an
    enum value of any parameter (an action-based tool's `note_update`), or a name a
    description documents as one (a list item's head, `- note_update: note_id*, body*`, or
    one of a list of names, `{id, name, path_with_namespace}`), also as a tool's member
    (`work_item.get` for the action `work_item_get`). A name that carries the prefix all the
    tools share (`gitlab_tag_delete`) is a tool's name even in such a list."""
    prefix = _shared_prefix([name.lower() for name in context.names])
    known = _tool_names(context, prefix)
    terms = _registry_terms(context)
    for tool in context.tools:
        for match in NAMED_TOOL.finditer(tool.description):
            name = match.group(1)
            if _is_known(name, known):
                continue
            if not (prefix and name.lower().startswith(prefix)) and (
                _is_known(name, terms) or _names_a_member(tool.description, match, terms)
            ):
                continue  # a term; a name with every tool's prefix is a tool's, in any list
            words = split_name(name)
            if words[-1] in FIELD_WORDS or words[0] in FLAG_WORDS:
                continue  # a field of the data, not a tool
            yield context.hit(
                tool,
                "description",
                message=f"the description points to {name!r}, which is not a tool of this "
                "registry; name a tool the agent can call, or add it",
            )
            break


def _is_known(name: str, known: set[str]) -> bool:
    folded = name.lower()
    return folded in known or folded.replace("-", "_") in known


def _names_a_member(description: str, match: re.Match[str], terms: set[str]) -> bool:
    """`work_item.get` where `work_item_get` is a term: an action written as a member."""
    member = _MEMBER.match(description, match.end(1))
    return member is not None and f"{match.group(1)}_{member.group(1)}".lower() in terms


TS213 = Rule(
    "TS213",
    "description-names-unknown-tool",
    Severity.WARNING,
    "A description names only tools that exist",
    bad="- name: convert\n  description: Returns the rates; pass them to expense_to_invoice.\n",
    good="- name: convert\n  description: Returns the rates; pass them to make_invoice.\n- name: make_invoice\n  description: Makes an invoice from expenses and rates.\n",
    check=names_unknown_tool,
)


def _tool_names(context: LintContext, prefix: str) -> set[str]:
    """Every name a tool can be called by here, folded: its name, its last part when
    namespaced (`server.tool`), its aliases, and its name without `prefix`, the one every
    tool of the registry shares (`gitlab_`)."""
    names = [name.lower() for name in context.names]
    known = set(names)
    known |= {re.split(r"__|[./:]", name)[-1] for name in names}  # server.tool
    known |= {a.lower() for tool in context.tools for a in tool.aliases}
    known |= {name[len(prefix) :] for name in names if prefix and len(name) > len(prefix)}
    return known


def _shared_prefix(names: list[str]) -> str:
    """The words every name starts with (`gitlab_`), when there are at least two names."""
    if len(names) < 2:
        return ""
    common, last = min(names), max(names)  # the sorted ends share what every name shares
    while not last.startswith(common):
        common = common[:-1]
    return common[: max(common.rfind("_"), common.rfind("-")) + 1]


#: An identifier as documentation writes it: a required mark (`project_id*`), alternatives
#: (`created_at/updated_at`), a member (`badge_add.group_id`). It starts a word, and each
#: part needs its separator, so a long run of letters is tried once, not from every letter.
_TERM = r"(?<![A-Za-z0-9_*./])[A-Za-z][A-Za-z0-9_]*\*?(?:[./][A-Za-z][A-Za-z0-9_]*\*?)*`?"
#: Between a list's names: a comma, or a slash with spaces (`a/b` is one name's
#: alternatives), so no text can be split into names in more than one way.
_BETWEEN = r"(?:,[ \t]*|[ \t]+/[ \t]+)`?"
#: A list item's head made only of names: `- note_update:`, `- note_get / note_delete:`.
_ITEM_HEAD = re.compile(
    r"^[ \t]*(?:[-*\u2022]|\d+[.)])[ \t]+`?" + _TERM + r"(?:" + _BETWEEN + _TERM + r")*:",
    re.MULTILINE,
)
#: Three or more names in a row: `{id, name, path_with_namespace}`, `project_id*, body*, sort`.
_NAME_LIST = re.compile(_TERM + r"(?:,[ \t]*`?" + _TERM + r"){2,}")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _registry_terms(context: LintContext) -> set[str]:
    """Names the registry defines as data or actions, folded: every property of every
    tool's input and output, every enum value, and the names descriptions document (list
    heads and lists of names: where a catalog without schemas lists an action-based tool's
    actions and parameters)."""
    from toolsel.lint.schema import walk_schema

    found: set[str] = set()
    for tool in context.tools:
        nodes = list(context.schema_nodes(tool))
        if isinstance(tool.output_schema, dict):
            nodes.extend(walk_schema(tool.output_schema))
        for node in nodes:
            if node.property_name is not None:
                found.add(node.property_name.lower())
            found |= _enum_values(node.schema)
        for pattern in (_ITEM_HEAD, _NAME_LIST):
            for match in pattern.finditer(tool.description):
                found |= {word.lower() for word in _WORD.findall(match.group(0))}
    return found


def _enum_values(schema: dict[str, object]) -> set[str]:
    values = schema.get("enum")
    listed = list(values) if isinstance(values, list) else []
    listed.append(schema.get("const"))
    return {value.lower() for value in listed if isinstance(value, str)}
