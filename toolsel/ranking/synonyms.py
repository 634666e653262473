"""Words users say for what tools do: `hybrid` looks each prompt word's alternatives up in
the registry's own vocabulary, at a reduced weight, so "erase", "wipe" and "get rid of"
reach a tool that says "delete", and "go to" and "visit" reach one that says "navigate".

The table is deliberately small and general (agent verbs and the nouns every registry
shares), written from how people phrase requests to agents, not from any one registry:
a registry's own words always count in full, and an alternative only counts where the
prompt's word is not in the tool's text (see `expansions`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

#: Words that mean the same to someone asking an agent for something, each group both
#: ways. Kept to unambiguous groups; a word with two senses is in ONE_WAY instead.
GROUPS: tuple[tuple[str, ...], ...] = (
    ("delete", "remove", "erase", "wipe", "purge", "destroy", "discard", "trash"),
    ("create", "make", "add", "new", "generate"),
    ("search", "find", "locate", "lookup", "grep", "seek"),
    ("get", "fetch", "retrieve", "obtain"),
    ("update", "modify", "change", "edit", "alter", "amend", "tweak"),
    ("navigate", "visit", "browse", "goto"),
    ("run", "execute", "exec", "launch", "invoke", "trigger"),
    ("stop", "kill", "terminate", "halt", "abort"),
    ("send", "notify", "message", "dm", "ping"),
    ("save", "store", "persist"),
    ("summarize", "summarise", "summary", "recap", "tldr", "digest"),
    ("schedule", "book", "arrange"),
    ("meeting", "appointment", "event"),
    ("directory", "folder", "dir"),
    ("repository", "repo", "codebase"),
    ("image", "picture", "photo", "pic"),
    ("database", "db"),
    ("email", "mail", "inbox"),
    ("user", "account"),
    ("weather", "forecast"),
    ("bug", "defect"),
    ("price", "cost"),
    ("url", "link", "website", "webpage", "site", "page"),
    ("log", "logs"),
    ("refresh", "reload", "resync"),
)
#: Words with more senses than one: each reaches these, but not back ("open a file" and
#: "open a page"; "show" is any way of getting something to look at).
ONE_WAY: dict[str, tuple[str, ...]] = {
    "open": ("navigate", "read", "view"),
    "go": ("navigate",),
    "show": ("list", "get", "view", "display", "read"),
    "see": ("list", "get", "view", "read"),
    "display": ("list", "show", "view"),
    "look": ("search", "find", "view"),
    "check": ("status", "get", "view", "verify"),
    "tell": ("get", "describe"),
    "drop": ("delete", "remove"),
    "clear": ("delete", "remove", "reset"),
    "cancel": ("delete", "stop"),
    "set": ("update", "configure"),
    "write": ("save", "create"),
    "read": ("get", "view"),
    "download": ("fetch", "get"),
    "pull": ("fetch", "download", "refresh"),  # git's pull is a word of its own too
    "sync": ("refresh",),
    "every": ("list",),
    "what": ("get", "describe"),
    "rid": ("delete", "remove"),  # "get rid of"
    "ticket": ("issue",),
    "problem": ("issue", "error"),
    "crash": ("error",),
    "broken": ("error",),
    "changed": ("status", "diff"),
    "changes": ("status", "diff"),
}
#: What an alternative counts for, against the prompt's own word (chosen on the
#: conversational sets: see docs/quality.md).
WEIGHT = 0.3


@functools.cache
def table() -> dict[str, tuple[str, ...]]:
    """Each search term (stemmed, as `fields.tokens` makes them) and its alternatives."""
    from toolsel.ranking.fields import stem

    found: dict[str, list[str]] = {}
    for group in GROUPS:
        stems = list(dict.fromkeys(stem(w) for w in group))
        for word in stems:
            found.setdefault(word, []).extend(s for s in stems if s != word)
    for word, targets in ONE_WAY.items():
        found.setdefault(stem(word), []).extend(stem(t) for t in targets)
    return {word: tuple(dict.fromkeys(t for t in ts if t != word)) for word, ts in found.items()}


def sources(terms: list[str], vocabulary: dict[str, int]) -> dict[str, str]:
    """Each alternative `expansions` adds, and the prompt's term that called for it (the
    first, when several did): what an explanation shows as `meeting -> event`."""
    alternatives, said = table(), set(terms)
    return {
        other: term
        for term in reversed(terms)  # the first term that calls for it wins
        for other in alternatives.get(term, ())
        if other not in said and other in vocabulary
    }


def expansions(
    terms: list[str], vocabulary: dict[str, int], idf: Sequence[float] = ()
) -> dict[str, float]:
    """The alternatives to add to a prompt's terms: those the registry uses and the prompt
    does not, each at WEIGHT (times how often a word calling for it occurs). With `idf` (by
    vocabulary position), an alternative rarer than the prompt's own word is scaled down to
    count no more than that word would: a common word must not pull in every tool that
    uses a rare alternative as if the prompt had named it (a word the registry never uses
    is not scaled)."""
    alternatives = table()
    said = set(terms)
    extra: dict[str, float] = {}
    for term in terms:
        for other in alternatives.get(term, ()):
            if other in said or other not in vocabulary:
                continue
            weight = WEIGHT
            if idf and term in vocabulary:
                own, theirs = idf[vocabulary[term]], idf[vocabulary[other]]
                if theirs > own:
                    weight *= own / theirs
            extra[other] = extra.get(other, 0.0) + weight
    return extra
