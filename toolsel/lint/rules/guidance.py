"""TS214: "use this when..." guidance copied from one tool into another."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import takewhile

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.registry.model import Tool

#: A sentence that tells the model when to pick this tool.
GUIDANCE = re.compile(
    r"\b(?:use (?:this|it)(?: tool| function)?(?: only)? (?:when|to|for|if|whenever)"
    r"|call (?:this|it)(?: tool)? (?:when|to|for|if|whenever)|useful (?:when|for)"
    r"|(?:use|call) when)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_NOT_WORD = re.compile(r"[^\w]+")
#: A list item; a lead-in sentence ending in ":" ("Use this tool when you need to:") says
#: nothing until the items after it.
_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")
#: A list item that documents one action of a tool that takes an `action` argument
#: ("- note_update: ... Use when the task asks to amend a comment."): its guidance picks
#: the action once the tool is chosen, so tools sharing the action share it rightly.
_ACTION_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*`?[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+`?\s*:")
#: Guidance shorter than this, in words, says too little to be told apart ("Use it to
#: search.") and is reported by TS206/TS209 if at all.
MIN_GUIDANCE_WORDS = 5


def _statements(description: str) -> Iterator[str]:
    """The description's sentences, a lead-in ending in ":" joined to the list items that
    follow it, and without the items that document one action."""
    lines = [line for line in description.splitlines() if line.strip()]
    index = 0
    while index < len(lines):
        index += 1
        if _ACTION_ITEM.match(lines[index - 1]):
            continue
        *sentences, last = _SENTENCE.split(lines[index - 1].strip())
        yield from sentences
        if last.endswith(":"):
            items = list(takewhile(_LIST_ITEM.match, lines[index:]))
            index += len(items)
            last = " ".join([last, *items])
        yield last


def _guidance(tool: Tool) -> Iterator[str]:
    """The tool's guidance sentences, normalised: lower case, words only."""
    for sentence in _statements(tool.description):
        if GUIDANCE.search(sentence):
            words = _NOT_WORD.sub(" ", sentence.lower()).split()
            if len(words) >= MIN_GUIDANCE_WORDS:
                yield " ".join(words)


def copied_guidance(context: LintContext) -> Iterator[Hit]:
    """A sentence that says when to use a tool ("Use this when the user asks for a
    report") tells the model which tool to pick only if no other tool says the same:
    copied word for word into a second tool, it sends the model to both. Reported on the
    second and later tools, naming the first; say what sets each tool apart. A lead-in
    ("Use this tool when you need to:") is compared with the list after it, and the
    guidance of one action in a list of a tool's actions ("- note_update: ... Use when
    the task asks to amend a comment.") is not compared: it picks the action, not the
    tool."""
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


TS214 = Rule(
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
