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
    """Why a backtracking engine can take exponential time on `pattern` (proved: the
    pattern reads some text two ways around a loop; see `toolsel.ambiguity`), or None when
    it cannot, or when the pattern cannot be analysed (no verdict is not a guess)."""
    from toolsel.ambiguity import exponential

    return exponential(pattern)
