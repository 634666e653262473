"""`visible`: what could act on a terminal is shown as an escape; everything else is kept."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from toolsel.render.escape import visible, xml_attr, xml_text


def test_controls_become_escapes() -> None:
    assert visible("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert visible("t\x9bx\x7f") == "t\\x9bx\\x7f"
    assert visible("x\u202ey\u2066") == "x\\u202ey\\u2066"
    assert visible("tag\U000e0041") == "tag\\U000e0041"  # ASCII smuggling in tag characters
    assert visible("line\u2028") == "line\\u2028"
    assert visible("a\nb\tc") == "a\\nb\\tc"
    assert visible("a\nb\tc\x1b", newlines=True) == "a\nb\tc\\x1b"


def test_readable_text_is_kept() -> None:
    for text in (
        "read_file",
        "café – naïve",
        "日本語",
        "no\u00a0break",
        "👩\u200d💻",
        "[bold]x[/]",
    ):
        assert visible(text) == text


def test_undecodable_bytes_show_as_bytes() -> None:
    name = b"caf\xe9.yaml".decode("utf-8", "surrogateescape")
    assert visible(name) == "caf\\xe9.yaml"


def test_xml_helpers_produce_legal_xml() -> None:
    import xml.etree.ElementTree as ET

    attr, text = xml_attr("x\x1b\x00<"), xml_text("y\x07&\nz")
    root = ET.fromstring(f"<a b={attr}>{text}</a>")
    assert root.get("b") == "x\\x1b\\x00<" and root.text == "y\\x07&\nz"


UNSAFE = {"Cc", "Cf", "Cs", "Zl", "Zp"}


@given(st.text())
def test_nothing_unsafe_survives(text: str) -> None:
    shown = visible(text)
    for ch in shown:
        assert ch == "\u200d" or unicodedata.category(ch) not in UNSAFE
    if text.isprintable():
        assert shown == text
