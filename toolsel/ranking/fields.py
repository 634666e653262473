"""The searchable text of a tool, kept by field so each field can carry its own weight."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from toolsel.text import STOPWORDS, split_name

if TYPE_CHECKING:
    from toolsel.registry.model import Registry, Tool

#: Field weights, chosen on a 1,500-query tuning sample of each benchmark's dev split
#: (benchmarks/quality.py): parameters at 1.0 (not 0.5) was worth +2 NDCG@10 on ToolLens;
#: name above 2 and category above 0.5 gained nothing anywhere.
#: Example prompts (`examples`, and overlays) weigh 2: chosen on the 80/20 dev splits
#: (benchmarks/quality.py), where 2 beat 0.5 and 1 with many examples per tool.
FIELD_WEIGHTS = {
    "name": 2.0,
    "hints": 2.0,
    "category": 0.5,
    "description": 1.0,
    "parameters": 1.0,
    "examples": 2.0,
}
FIELD_NAMES = tuple(FIELD_WEIGHTS)
_TOKEN = re.compile(r"[a-z0-9]+")


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
    """The lower-case words of `text` before stemming, names split into their words."""
    if "'" in text or "’" in text:
        text = _CONTRACTION.sub(" ", text)
    words: list[str] = []
    for chunk in text.split():
        if chunk.isalnum() and chunk.islower():
            words.append(chunk)  # what split_name gives such a word, without its regexes
        else:
            words.extend(split_name(chunk))
    return _TOKEN.findall(" ".join(words))


def tokens(text: str) -> list[str]:
    return [stem(w) for w in _words(text) if w not in STOPWORDS]


def surface_words(text: str) -> dict[str, str]:
    """Each search term of `text` and the word it came from (the first, when words share a
    stem): an explanation shows `committed`, not the term `committ`."""
    found: dict[str, str] = {}
    for word in _words(text):
        if word not in STOPWORDS:
            found.setdefault(stem(word), word)
    return found


def tool_fields(tool: Tool, registry: Registry, *, examples: bool = True) -> dict[str, list[str]]:
    category = registry.categories.get(tool.category or "")
    params = tool.parameters.get("properties", {})
    param_text = " ".join(
        f"{name} {sub.get('description', '') if isinstance(sub, dict) else ''}"
        for name, sub in (params.items() if isinstance(params, dict) else [])
    )
    return {
        "name": tokens(tool.name),
        "hints": tokens(
            " ".join([tool.display_name or "", tool.search_hint or "", *tool.aliases, *tool.tags])
        ),
        "category": tokens(f"{tool.category or ''} {category.description if category else ''}"),
        "description": tokens(tool.description),
        "parameters": tokens(param_text),
        "examples": [w for e in registry.examples_for(tool.name) for w in tokens(e)]
        if examples
        else [],
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
