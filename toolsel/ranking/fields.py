"""The searchable text of a tool, kept by field so each field can carry its own weight."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from toolsel.text import STOPWORDS, split_name, unicode_words

if TYPE_CHECKING:
    from toolsel.registry.model import Registry, Tool

#: Field weights, chosen on a 1,500-query tuning sample of each benchmark's dev split
#: (benchmarks/quality.py): parameters at 1.0 (not 0.5) was worth +2 NDCG@10 on ToolLens;
#: name above 2 and category above 0.5 gained nothing anywhere.
#: Example prompts (`examples`, and overlays) weigh 2: chosen on the 80/20 dev splits
#: (benchmarks/quality.py), where 2 beat 0.5 and 1 with many examples per tool.
#: `values` holds data, not intent: parameter examples ("e.g. example.com"), enum values,
#: defaults, quoted strings, URLs and paths, from parameter and tool descriptions alike. It
#: weighs 0.2 so that one rare word in an example ("supabase", "example.com") cannot send
#: a prompt to the tool whose example it is (see docs/quality.md).
FIELD_WEIGHTS = {
    "name": 2.0,
    "hints": 2.0,
    "category": 0.5,
    "description": 1.0,
    "parameters": 1.0,
    "examples": 2.0,
    "values": 0.5,
}
FIELD_NAMES = tuple(FIELD_WEIGHTS)
#: The most times a word counts in a field: a name word counts once (`list_lists` is not
#: twice about lists), and so does an example value, however often the examples repeat it,
#: so a word that only examples hold adds at most 0.5 (half a description's mention).
FIELD_CAPS = {"name": 1, "values": 1}
_TOKEN = re.compile(r"[a-z0-9]+")
#: The glue of a conversational prompt, never what is asked for ("please", "hey", "gonna").
#: Question words ("what", "how") stay: "how old is the cache" is a fair match for a tool
#: that says "how old it is" (dropping them lost as much as it won on the sets).
FILLER = frozenset(
    """please pls plz thanks thank thx hey hi hello ok okay wanna gonna lets maybe
    probably actually really""".split()
)
IGNORED = STOPWORDS | FILLER


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: enough to match `files`/`file` and `deploying`/`deploy`.
    (Cached: a registry repeats its words, and building a 10k-tool index stems 500k.)"""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


#: A negated auxiliary ("don't", "isn't": the whole word) and the suffix of a possessive or
#: other contraction ("user's", "we're", "I'll"), which would otherwise leave terms such as
#: `don`, `t` and `s` that match any text with an apostrophe.
_CONTRACTION = re.compile(r"\b\w+n['’]t\b|(?<=\w)['’](?:s|t|re|ve|ll|d|m)\b", re.I)


def _words(text: str) -> list[str]:
    """The lower-case words of `text` before stemming, names split into their words, in any
    script (`toolsel.text.unicode_words`: folded, accents off, pairs of characters for a
    script without spaces)."""
    if "'" in text or "’" in text:
        text = _CONTRACTION.sub(" ", text)
    words: list[str] = []
    for chunk in text.split():
        if chunk.isalnum() and chunk.islower():
            words.append(chunk)  # what split_name gives such a word, without its regexes
        else:
            words.extend(split_name(chunk))
    joined = " ".join(words)
    return _TOKEN.findall(joined) if joined.isascii() else unicode_words(joined)


def tokens(text: str) -> list[str]:
    return [stem(w) for w in _words(text) if w not in IGNORED]


def surface_words(text: str) -> dict[str, str]:
    """Each search term of `text` and the word it came from (the first, when words share a
    stem): an explanation shows `committed`, not the term `committ`."""
    found: dict[str, str] = {}
    for word in _words(text):
        if word not in IGNORED:
            found.setdefault(stem(word), word)
    return found


#: Where a description gives example values: "e.g. x", "for example x", "example: x" up to
#: the end of the parenthesis or sentence, and URLs. In a parameter's description, also
#: quoted or back-quoted text and words with dots or slashes inside (paths, domains, ids).
_EXAMPLE = (
    r"""\(\s*(?:e\.?\s?g\.?|for\s+example|examples?|ex\.)[:,]?[^)]*\)"""
    r"""|\b(?:e\.g\.|eg\.|for\s+example|examples?\s*:)[:,]?(?:[^.;\n]|\.(?=\S))*(?:[.;\n]|$)"""
    r"""|\b[a-z][a-z0-9+.-]*://\S+"""
)
_DESCRIPTION_EXAMPLE = re.compile(_EXAMPLE, re.I)
_PARAMETER_EXAMPLE = re.compile(
    _EXAMPLE + r"""|`[^`]*`|"[^"]*"|'[^'\s][^']*'|\S*[a-z0-9][./\\][a-z0-9]\S*""", re.I
)
#: Nested parameters looked into (a schema's `properties` inside `properties`, arrays' items).
_PARAMETER_DEPTH = 3


def split_values(text: str, *, parameter: bool = False) -> tuple[str, str]:
    """(what the text says a thing is for, the example values it gives); a `parameter`'s
    description also gives up its quoted text and paths."""
    if not text:
        return "", ""
    pattern = _PARAMETER_EXAMPLE if parameter else _DESCRIPTION_EXAMPLE
    values = [m.group(0) for m in pattern.finditer(text)]
    if not values:
        return text, ""
    return pattern.sub(" ", text), " ".join(values)


def _parameters(schema: object, depth: int = 0) -> tuple[list[str], list[str]]:
    """(names and descriptions, example values) of a parameters schema's properties."""
    intent: list[str] = []
    values: list[str] = []
    if not isinstance(schema, dict) or depth > _PARAMETER_DEPTH:
        return intent, values
    items = schema.get("items")
    if isinstance(items, dict):
        more = _parameters(items, depth + 1)
        intent += more[0]
        values += more[1]
    params = schema.get("properties")
    for name, sub in params.items() if isinstance(params, dict) else ():
        intent.append(str(name))
        if not isinstance(sub, dict):
            continue
        description = sub.get("description")
        if isinstance(description, str):
            said, given = split_values(description, parameter=True)
            intent.append(said)
            values.append(given)
        for key in ("enum", "examples"):
            listed = sub.get(key)
            if isinstance(listed, list):
                values.extend(str(v) for v in listed if isinstance(v, str | int | float))
        for key in ("default", "const", "example"):
            if isinstance(sub.get(key), str | int | float) and not isinstance(sub.get(key), bool):
                values.append(str(sub[key]))
        more = _parameters(sub, depth + 1)
        intent += more[0]
        values += more[1]
    return intent, values


def tool_fields(tool: Tool, registry: Registry, *, examples: bool = True) -> dict[str, list[str]]:
    category = registry.categories.get(tool.category or "")
    intent, values = _parameters(tool.parameters)
    description, given = split_values(tool.description)
    return {
        "name": tokens(tool.name),
        "hints": tokens(
            " ".join([tool.display_name or "", tool.search_hint or "", *tool.aliases, *tool.tags])
        ),
        "category": tokens(f"{tool.category or ''} {category.description if category else ''}"),
        "description": tokens(description),
        "parameters": tokens(" ".join(intent)),
        "examples": [w for e in registry.examples_for(tool.name) for w in tokens(e)]
        if examples
        else [],
        "values": tokens(" ".join([given, *values])),
    }


#: Names the recipe below: cached tool vectors are keyed by it, so a change re-embeds.
EMBED_RECIPE = "name-description-parameters/3"


def embed_text(tool: Tool) -> str:
    """The text a tool is embedded as: its name as words, its description, then parameter
    names and descriptions. Chosen on the dev splits (benchmarks/embed_tune.py): adding tags
    or the category cost up to 3 NDCG@10 points; see docs/quality.md."""
    params = tool.parameters.get("properties", {})
    parts = [" ".join(split_name(tool.name)), tool.description.strip()]
    if isinstance(params, dict) and params:
        parts.append("; ".join(_parameter_text(name, sub) for name, sub in params.items()))
    return ". ".join(stripped for p in parts if (stripped := p.rstrip(". ")))


def _parameter_text(name: str, schema: object) -> str:
    description = schema.get("description") if isinstance(schema, dict) else None
    text = description.strip().rstrip(".") if isinstance(description, str) else ""
    return f"{name}: {text}" if text else name
