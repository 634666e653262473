"""Text from inputs made safe to show: every character that could act on a terminal, a log
viewer or an XML parser instead of being seen (C0 and C1 controls, DEL, bidirectional
overrides, zero-width and other format characters, line separators, undecodable bytes) is
replaced by a visible escape such as ``\\x1b`` or ``\\u202e``.

Rich markup is never interpreted in human output (consoles are made with ``markup=False``),
so ``[bold red]x[/]`` or ``[link=…]`` in a tool name is shown as written."""

from __future__ import annotations

from toolsel.text import visible as visible  # re-exported: the renderers' one import


def xml_text(text: str) -> str:
    """Character data for XML 1.0 (JUnit): escaped, with unsafe characters made visible,
    since XML cannot carry most control characters at all."""
    from xml.sax.saxutils import escape

    return escape(visible(text, newlines=True))


def xml_attr(text: str) -> str:
    """A quoted XML attribute value, made visible the same way."""
    from xml.sax.saxutils import quoteattr

    return quoteattr(visible(text))
