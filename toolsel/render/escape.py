"""Text from inputs made safe to show: every character that could act on a terminal, a log
viewer or an XML parser instead of being seen (C0 and C1 controls, DEL, bidirectional
overrides, zero-width and other format characters, line separators, undecodable bytes) is
replaced by a visible escape such as ``\\x1b`` or ``\\u202e``.

Rich markup is never interpreted in human output (consoles are made with ``markup=False``),
so ``[bold red]x[/]`` or ``[link=…]`` in a tool name is shown as written."""

from __future__ import annotations

import unicodedata

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


def visible_path(path: object) -> str:
    """A file name for people: undecodable bytes as ``\\xNN``, controls escaped."""
    return visible(str(path))


def xml_text(text: str) -> str:
    """Character data for XML 1.0 (JUnit): escaped, with unsafe characters made visible,
    since XML cannot carry most control characters at all."""
    from xml.sax.saxutils import escape

    return escape(visible(text, newlines=True))


def xml_attr(text: str) -> str:
    """A quoted XML attribute value, made visible the same way."""
    from xml.sax.saxutils import quoteattr

    return quoteattr(visible(text))
