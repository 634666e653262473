"""Text helpers shared by lint and ranking: name splitting, words, sentences."""

from __future__ import annotations

import re
import unicodedata

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\-.\s/:]+")
_WORD = re.compile(r"[a-z0-9]+")

STOPWORDS = frozenset(
    """a an and are as at be been but by can could do does for from has have if in into is it
    its of on or over should so such than that the their them then there these this those to
    under up was were when where which while will with you your yours we our us i me my all any
    each other some not no nor only own same too very just also may might must""".split()
)


def split_name(name: str) -> list[str]:
    """`mcp__github__createIssue` -> ['mcp', 'github', 'create', 'issue']."""
    words: list[str] = []
    for chunk in _SEPARATORS.split(name):
        words.extend(part.lower() for part in _CAMEL.split(chunk) if part)
    return words


_SEPARATORS_GONE = str.maketrans("", "", "_-. \t\n\r\f\v\x1c\x1d\x1e\x1f")


def fold_name(name: str) -> str:
    """Case-folded with separators removed: `getUser`, `get_user` and `get-user` fold equal."""
    if name.isascii():  # what the pattern below does, an order of magnitude faster
        return name.translate(_SEPARATORS_GONE).casefold()
    return re.sub(r"[_\-.\s]", "", name).casefold()


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOPWORDS and len(w) > 1}


_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def sentence_count(text: str) -> int:
    stripped = text.strip()
    if not stripped:
        return 0
    ends = len(_SENTENCE_END.findall(stripped))
    return ends + (0 if stripped[-1] in ".!?" else 1)


def estimate_tokens(text: str) -> int:
    """Rough token estimate (about four characters a token), as providers' guides suggest."""
    return max(1, (len(text) + 3) // 4)


def is_select(query: str) -> bool:
    """Whether a prompt is a `select:` lookup (any case), without importing `toolsel.select`."""
    return query[:7].lower() == "select:"


# -- text from inputs, made safe to show (toolsel.render.escape builds on it) ----------


#: Categories shown as they are although ``str.isprintable`` says no: spaces other than
#: U+0020, private-use characters, and code points newer than Python's Unicode tables.
_SHOWN = frozenset({"Zs", "Co", "Cn"})
#: The zero-width joiner builds emoji sequences; it cannot move or hide text on its own.
_JOINER = "\u200d"
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, *, newlines: bool = False) -> str:
    """`text` with every unsafe character escaped; ``newlines=True`` keeps line feeds and
    tabs (for multi-line blocks such as a system-prompt listing)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        shown = ch.isprintable() or ch == _JOINER or (newlines and ch in "\n\t")
        out.append(ch if shown or unicodedata.category(ch) in _SHOWN else _escape(ch))
    return "".join(out)
