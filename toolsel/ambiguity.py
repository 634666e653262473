"""Whether a backtracking regex engine can take exponential time on a pattern: a proof, not
a guess.

A backtracking matcher (Python's `re`, JavaScript's, Java's, most JSON Schema validators')
takes exponential time on some input exactly when the pattern's NFA has *exponential
degree of ambiguity* (EDA): a state `q` and a string `w` with two different paths from `q`
back to `q` reading `w` (Weideman, van der Merwe, Berglund and Watson, "Analyzing matching
time behavior of backtracking regular expression matchers by using ambiguity of NFA",
CIAA 2016; the criterion of Allauzen, Mohri and Rastogi, 2008). Repeating `w` then doubles
the paths each time, and a failing suffix makes the matcher try them all.

The check: build the pattern's Glushkov automaton (one state per character position, no
empty moves), then look in the product automaton, whose states are pairs of positions and
whose moves read a character both sides can read, for a strongly connected component that
holds a diagonal pair `(q, q)` and an off-diagonal pair `(p, r)`: two paths that part and
meet again on the same text. `^[.\\-A-Za-z0-9]+([=!,]{1,2}[./\\-A-Za-z0-9]+)+$` is linear
(the separator cannot be read by the class around it), `^(a+)+$` and `(a|ab)*c` are not.

What is approximated, always towards finding ambiguity (so a linear verdict is proved):
lookarounds and anchors are ignored, a counted repetition over `COUNT_LIMIT` is taken as
unbounded, and `\\w`, `\\d`, `\\s` are read with their ASCII members plus the rest of Unicode
as word characters. Patterns with backreferences, or too big to analyse within bounds, get
no verdict (None), never a guess.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

#: A counted repetition up to this many rounds is unrolled; beyond, it is taken as `*`.
COUNT_LIMIT = 32
#: Past this many positions the pattern is not analysed (no verdict); so the product
#: automaton has at most 80,200 pairs of them.
MAX_POSITIONS = 400

MAX_CHAR = 0x10FFFF
Ranges = tuple[tuple[int, int], ...]
ALL: Ranges = ((0, MAX_CHAR),)
_UNICODE_SPACES = (
    0x85,
    0xA0,
    0x1680,
    *range(0x2000, 0x200B),
    0x2028,
    0x2029,
    0x202F,
    0x205F,
    0x3000,
)


class Unanalysable(Exception):
    """The pattern is outside what the analysis proves things about."""


def _normal(ranges: list[tuple[int, int]]) -> Ranges:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return tuple(merged)


def _complement(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= MAX_CHAR:
        out.append((start, MAX_CHAR))
    return tuple(out)


def _intersects(a: Ranges, b: Ranges) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


_DIGIT = ((48, 57),)
_SPACE = _normal([(9, 13), (32, 32), *((c, c) for c in _UNICODE_SPACES)])
_WORD = _normal(
    [(48, 57), (65, 90), (95, 95), (97, 122), *_complement(_normal([(0, 127), *_SPACE]))]
)
_CATEGORIES: dict[str, Ranges] = {
    "CATEGORY_DIGIT": _DIGIT,
    "CATEGORY_NOT_DIGIT": _complement(_DIGIT),
    "CATEGORY_SPACE": _SPACE,
    "CATEGORY_NOT_SPACE": _complement(_SPACE),
    "CATEGORY_WORD": _WORD,
    "CATEGORY_NOT_WORD": _complement(_WORD),
}


@dataclass
class _Fragment:
    first: set[int]
    last: set[int]
    nullable: bool


@dataclass
class _Automaton:
    chars: list[Ranges] = field(default_factory=list)
    follow: list[set[int]] = field(default_factory=list)
    #: moves made twice, by two parts of the pattern (`(\w*)*`: the inner and the outer
    #: loop both go from a word character to the next): two paths where a set keeps one
    doubled: set[tuple[int, int]] = field(default_factory=set)

    def link(self, sources: set[int], targets: set[int]) -> None:
        for p in sources:
            self.doubled.update((p, q) for q in self.follow[p] & targets)
            self.follow[p] |= targets

    def position(self, chars: Ranges) -> _Fragment:
        if len(self.chars) >= MAX_POSITIONS:
            raise Unanalysable("too many positions")
        self.chars.append(chars)
        self.follow.append(set())
        p = len(self.chars) - 1
        return _Fragment({p}, {p}, False)

    def concat(self, a: _Fragment, b: _Fragment) -> _Fragment:
        self.link(a.last, b.first)
        return _Fragment(
            a.first | (b.first if a.nullable else set()),
            b.last | (a.last if b.nullable else set()),
            a.nullable and b.nullable,
        )

    def star(self, a: _Fragment) -> _Fragment:
        self.link(a.last, a.first)
        return _Fragment(set(a.first), set(a.last), True)


EMPTY = _Fragment(set(), set(), True)


def _charset(op: str, argument: Any) -> Ranges:
    if op == "LITERAL":
        return ((argument, argument),)
    if op == "NOT_LITERAL":
        return _complement(((argument, argument),))
    if op == "ANY":
        return _complement(((10, 10),))
    members: list[tuple[int, int]] = []
    negate = False
    for member_op, member in argument:  # IN
        kind = str(member_op)
        if kind == "NEGATE":
            negate = True
        elif kind == "LITERAL":
            members.append((member, member))
        elif kind == "RANGE":
            members.append((member[0], member[1]))
        elif kind == "CATEGORY":
            members.extend(_CATEGORIES.get(str(member), ALL))
        else:
            raise Unanalysable(f"class member {kind}")
    ranges = _normal(members)
    return _complement(ranges) if negate else ranges


def _build(automaton: _Automaton, items: Any) -> _Fragment:
    import re._parser as parser  # type: ignore[import-not-found]  # the stdlib parser, 3.11+

    fragment = EMPTY
    for op, argument in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            part = automaton.position(_charset(name, argument))
        elif name == "SUBPATTERN":
            part = _build(automaton, argument[-1])
        elif name == "ATOMIC_GROUP":
            part = _build(automaton, argument)
        elif name == "BRANCH":
            branches = [_build(automaton, branch) for branch in argument[1]]
            part = _Fragment(
                set().union(*(b.first for b in branches)),
                set().union(*(b.last for b in branches)),
                any(b.nullable for b in branches),
            )
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = argument
            unbounded = high == parser.MAXREPEAT or high > COUNT_LIMIT
            part = _repeat(automaton, body, min(low, COUNT_LIMIT), None if unbounded else high)
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue  # zero-width: ignoring it can only add ambiguity
        else:  # GROUPREF and kin: not a regular language
            raise Unanalysable(name)
        fragment = automaton.concat(fragment, part)
    return fragment


def _repeat(automaton: _Automaton, body: Any, low: int, high: int | None) -> _Fragment:
    fragment = EMPTY
    for _ in range(low):
        fragment = automaton.concat(fragment, _build(automaton, body))
    if high is None:
        return automaton.concat(fragment, automaton.star(_build(automaton, body)))
    optional = EMPTY  # x{0,k} as (x(x(...)?)?)?: one way to match each count
    for _ in range(high - low):
        inner = automaton.concat(_build(automaton, body), optional)
        optional = _Fragment(inner.first, inner.last, True)
    return automaton.concat(fragment, optional)


def exponential(pattern: str) -> str | None:
    """A short reason when a backtracking engine can take exponential time on `pattern`
    (a string read two ways around a loop), None when it cannot (proved), and None too when
    the pattern cannot be analysed (see the module docstring): no verdict is not a verdict."""
    import re._parser as parser

    try:
        parsed = parser.parse(pattern)
        automaton = _Automaton()
        _build(automaton, parsed)
    except (parser.error, RecursionError, OverflowError, ValueError, Unanalysable):
        return None
    found = _doubled_loop(automaton)
    if found is None:
        found = _ambiguous_loop(automaton)
    if found is None:
        return None
    return (
        f"the same text can be read two ways around a repetition (at {_shown(automaton.chars[found])}), "
        "and each more round doubles the ways a backtracking engine tries"
    )


def _ambiguous_loop(automaton: _Automaton) -> int | None:
    """A position `q` whose pair `(q, q)` shares a strongly connected component of the
    product automaton with a pair of two different positions, or None."""
    from toolsel.graph import components

    follow, chars = automaton.follow, automaton.chars

    def moves(pair: tuple[int, int]) -> Iterator[tuple[int, int]]:
        p, r = pair
        for a in follow[p]:
            for b in follow[r]:
                if _intersects(chars[a], chars[b]):
                    yield (a, b) if a <= b else (b, a)  # unordered: (p, r) is (r, p)

    looping = [(q, q) for q in range(len(chars)) if q in _reach(follow, q)]
    for component in components(looping, moves):
        diagonal = [p for p, r in component if p == r]
        if diagonal and any(p != r for p, r in component):
            return diagonal[0]
    return None


def _doubled_loop(automaton: _Automaton) -> int | None:
    """A move made twice that lies on a loop: two paths around it read the same text."""
    for p, q in sorted(automaton.doubled):
        if automaton.chars[q] and (p == q or p in _reach(automaton.follow, q)):
            return q
    return None


def _reach(follow: list[set[int]], start: int) -> set[int]:
    seen: set[int] = set()
    todo = list(follow[start])
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend(follow[p])
    return seen


def _shown(chars: Ranges) -> str:
    if len(chars) == 1 and chars[0][0] == chars[0][1]:
        return repr(chr(chars[0][0]))
    if chars == _complement(((10, 10),)):
        return "any character"
    return "a character of a class"
