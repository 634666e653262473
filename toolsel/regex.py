"""Regular expressions from registries: run in RE2, never in a backtracking engine.

A schema's `pattern` is written by whoever wrote the registry, and the text it is matched
against comes from a transcript: Python's `re` takes exponential time on patterns such as
`^(a+)+$`. RE2 (google-re2) runs in time linear in the text. Its syntax covers what tool
schemas use; a pattern it cannot run (lookaround, backreferences) is refused with the
reason, never run another way. `catastrophic` says which patterns a backtracking engine
(most providers' validators, and Python's) would run in exponential time.
"""

from __future__ import annotations

import functools
from typing import Any

#: RE2's memory budget per compiled pattern (its default is 8 MB).
MAX_MEMORY = 8 << 20


class UnsafePattern(ValueError):
    """The pattern cannot be run safely; the message says why."""


@functools.lru_cache(maxsize=4096)
def compile_safe(pattern: str) -> Any:
    """The pattern compiled by RE2, or UnsafePattern with RE2's reason."""
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would print parse errors on stderr
    options.max_mem = MAX_MEMORY
    try:
        return re2.compile(pattern, options)
    except (re2.error, TypeError, ValueError) as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise UnsafePattern(f"pattern {pattern!r} is not supported by RE2 ({reason})") from None


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches anywhere in `text` (JSON Schema's `pattern` semantics)."""
    return compile_safe(pattern).search(text) is not None


def catastrophic(pattern: str) -> str | None:
    """Why a backtracking engine could take exponential time on `pattern`, or None: an
    unbounded repetition of something that itself repeats without bound (`(a+)+`,
    `(\\w*)*`), or of alternatives that can match the same text (`(a|ab)*`). A repetition
    whose every round starts with a character the inner repetition cannot match
    (`( [a-z]*)*`, `(,\\d+)*`) is safe: the rounds cannot trade characters."""
    import re._parser as parser  # type: ignore[import-not-found]  # the stdlib parser, 3.11+

    try:
        parsed = parser.parse(pattern)
    except (parser.error, RecursionError, OverflowError, ValueError):
        return None  # not a Python regex at all: TS302 and RE2 report that
    stack: list[Any] = [parsed]
    while stack:
        for op, argument in stack.pop():
            name = str(op)
            if name in REPEATS:
                _, high, body = argument
                if _unbounded(high):
                    if _overlapping_branches(body):
                        return "it repeats alternatives that can match the same text"
                    if _inner_unbounded_repeat(body) and not _delimited(body):
                        return "it repeats without bound inside another unbounded repetition"
                stack.append(body)
            elif name == "SUBPATTERN":
                stack.append(argument[-1])
            elif name == "BRANCH":
                stack.extend(argument[1])
            elif name in ("ASSERT", "ASSERT_NOT"):
                stack.append(argument[1])
    return None


REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


def _unbounded(high: Any) -> bool:
    import re._parser as parser

    return bool(high == parser.MAXREPEAT or high > 1000)


def _inner_repeats(body: Any) -> list[Any]:
    """The unbounded repetitions anywhere inside `body`: (low, high, item body)."""
    found = []
    stack = [body]
    while stack:
        for op, argument in stack.pop():
            name = str(op)
            if name in REPEATS:
                if _unbounded(argument[1]):
                    found.append(argument)
                stack.append(argument[2])
            elif name == "SUBPATTERN":
                stack.append(argument[-1])
            elif name == "BRANCH":
                stack.extend(argument[1])
    return found


def _inner_unbounded_repeat(body: Any) -> bool:
    return bool(_inner_repeats(body))


def _delimited(body: Any) -> bool:
    """Each round of `body` starts, or ends, with a literal character that none of the
    unbounded repetitions inside it can match."""
    items = list(body)
    while len(items) == 1 and str(items[0][0]) == "SUBPATTERN":
        items = list(items[0][1][-1])
    inner = [list(repeat[2]) for repeat in _inner_repeats(body)]
    if not items or any(len(i) != 1 for i in inner):
        return False
    for edge in (items[0], items[-1]):
        if str(edge[0]) == "LITERAL" and not any(_can_match(i[0], chr(edge[1])) for i in inner):
            return True
    return False


def _can_match(item: Any, char: str) -> bool:
    """Whether one regex item can match `char` (True when unsure)."""
    op, argument = str(item[0]), item[1]
    if op == "LITERAL":
        return bool(chr(argument) == char)
    if op == "NOT_LITERAL":
        return bool(chr(argument) != char)
    if op == "ANY":
        return char != "\n"
    if op == "CATEGORY":
        return _in_category(str(argument), char)
    if op == "IN":
        matched, negate = False, False
        for member_op, member in argument:
            kind = str(member_op)
            if kind == "NEGATE":
                negate = True
            elif kind == "LITERAL":
                matched |= chr(member) == char
            elif kind == "RANGE":
                matched |= member[0] <= ord(char) <= member[1]
            elif kind == "CATEGORY":
                matched |= _in_category(str(member), char)
            else:
                return True
        return matched != negate
    return True


def _in_category(category: str, char: str) -> bool:
    tests = {
        "CATEGORY_DIGIT": char.isdigit(),
        "CATEGORY_NOT_DIGIT": not char.isdigit(),
        "CATEGORY_SPACE": char.isspace(),
        "CATEGORY_NOT_SPACE": not char.isspace(),
        "CATEGORY_WORD": char.isalnum() or char == "_",
        "CATEGORY_NOT_WORD": not (char.isalnum() or char == "_"),
    }
    return tests.get(category, True)


def _overlapping_branches(body: Any) -> bool:
    """A group of alternatives, two of which can start with the same character."""
    for op, argument in body:
        if str(op) == "SUBPATTERN":
            return _overlapping_branches(argument[-1])
        if str(op) != "BRANCH":
            continue
        starts: list[Any] = []
        for branch in argument[1]:
            if not branch:
                return True  # an empty alternative matches what every other one does
            first_op, first_argument = branch[0]
            if str(first_op) != "LITERAL":
                return True  # a class, a wildcard or a group: may overlap; be careful
            if first_argument in starts:
                return True
            starts.append(first_argument)
    return False
