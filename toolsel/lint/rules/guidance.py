"""TS214: "use this when..." guidance copied from one tool into another."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity, rule
from toolsel.registry.model import Tool

#: A sentence that tells the model when to pick this tool.
GUIDANCE = re.compile(
    r"\b(?:use (?:this|it)(?: tool| function)?(?: only)? (?:when|to|for|if|whenever)"
    r"|call (?:this|it)(?: tool)? (?:when|to|for|if|whenever)|useful (?:when|for)"
    r"|(?:use|call) when)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_NOT_WORD = re.compile(r"[^\w]+")
#: Guidance shorter than this, in words, says too little to be told apart ("Use it to
#: search.") and is reported by TS206/TS209 if at all.
MIN_GUIDANCE_WORDS = 5


def _guidance(tool: Tool) -> Iterator[str]:
    """The tool's guidance sentences, normalised: lower case, words only."""
    for sentence in _SENTENCE.split(tool.description):
        if GUIDANCE.search(sentence):
            words = _NOT_WORD.sub(" ", sentence.lower()).split()
            if len(words) >= MIN_GUIDANCE_WORDS:
                yield " ".join(words)


def copied_guidance(context: LintContext) -> Iterator[Hit]:
    """A sentence that says when to use a tool ("Use this when the user asks for a
    report") tells the model which tool to pick only if no other tool says the same:
    copied word for word into a second tool, it sends the model to both. Reported on the
    second and later tools, naming the first; say what sets each tool apart."""
    first_with: dict[str, Tool] = {}
    for tool in context.tools:
        for sentence in dict.fromkeys(_guidance(tool)):
            first = first_with.setdefault(sentence, tool)
            if first is not tool:
                yield context.hit(
                    tool,
                    "description",
                    message=f"its 'use this when' guidance is copied word for word from "
                    f"{first.name!r}; say when to use this tool rather than that one",
                )
                break


TS214 = rule(
    "TS214",
    "copied-usage-guidance",
    Severity.WARNING,
    "No two tools give the same 'use this when' guidance",
    bad=(
        "- name: list_orders\n  description: Lists orders. Use this when the user asks about "
        "their purchases.\n- name: list_refunds\n  description: Lists refunds. Use this when "
        "the user asks about their purchases.\n"
    ),
    good=(
        "- name: list_orders\n  description: Lists orders. Use this when the user asks about "
        "their purchases.\n- name: list_refunds\n  description: Lists refunds. Use this when "
        "the user asks for money back.\n"
    ),
    check=copied_guidance,
)
