"""The examples overlay as a file: written sorted with each example's provenance in a
comment, and read back for `--merge`."""

from __future__ import annotations

import re
from pathlib import Path

from toolsel.errors import UsageError
from toolsel.learn.model import Example, Learned
from toolsel.text import visible

OVERLAY_HEADER = "# toolsel examples overlay (written by `toolsel learn`; edit freely)\n"


# -- writing ----------------------------------------------------------------------------------


def overlay_text(learned: Learned) -> str:
    """The overlay as YAML: tools sorted, examples sorted, each with where it came from in
    a comment, so a learned overlay diffs cleanly in review."""
    lines = [OVERLAY_HEADER.rstrip("\n"), "examples:"]
    for tool, examples in learned.examples.items():
        lines.append(f"  {_quoted(tool)}:")
        lines += (f"    - {_quoted(e.text)}  # {visible(e.source)}" for e in examples)
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar that reads back exactly: JSON's escapes, plus
    every character that is not printable (line and paragraph separators, bidi and other
    format characters) escaped, so nothing in a prompt or a tool name can fold, hide or
    reorder the file. Characters beyond the Basic Multilingual Plane are written as they
    are, or as `\\U0001F680` when not printable; never as a surrogate pair, which YAML does
    not read. A lone surrogate (from a JSON `\\ud800`), which no UTF-8 file can hold, is
    written as U+FFFD."""
    from json.encoder import encode_basestring  # json.dumps of a str, without its layers

    dumped = encode_basestring(text)
    if dumped.isprintable():  # the common case, checked in one call
        return dumped
    out = []
    for ch in dumped:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        elif "\ud800" <= ch <= "\udfff":
            out.append("\\ufffd")
        elif ord(ch) > 0xFFFF:
            out.append(f"\\U{ord(ch):08x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)


def read_overlay(path: Path) -> list[Example]:
    """The examples of an existing overlay (for `--merge`); refuses anything else."""
    from toolsel.inputs import InputProblem, read_bounded
    from toolsel.registry.layout import is_overlay
    from toolsel.registry.source import SourceSyntaxError, parse_text

    try:
        data = read_bounded(path, 100 * 1024 * 1024).decode("utf-8")
        document = parse_text(data, is_json=path.suffix.lower() == ".json").value
    except (InputProblem, UnicodeDecodeError, SourceSyntaxError) as problem:
        raise UsageError(f"{path}: cannot read it as an overlay: {problem}") from None
    if not is_overlay(document) or not isinstance(document.get("examples"), dict):
        raise UsageError(
            f"{path}: not an examples overlay (no top-level `examples:` mapping)",
            hint="learn writes and merges overlays only; pass another -o",
        )
    sources = _comment_sources(data)
    found: list[Example] = []
    for tool, prompts in document["examples"].items():
        for prompt in prompts if isinstance(prompts, list) else []:
            if isinstance(prompt, str):
                found.append(Example(str(tool), prompt, sources.get(prompt, str(path))))
    return found


_SOURCE_COMMENT = re.compile(r'^\s*-\s*("(?:[^"\\]|\\.)*")\s+#\s*(\S.*?)\s*$')


def _comment_sources(text: str) -> dict[str, str]:
    """Example text -> the provenance comment `learn` wrote after it, so that `--merge`
    keeps where each kept example came from."""
    import yaml

    sources: dict[str, str] = {}
    for line in text.splitlines():
        match = _SOURCE_COMMENT.match(line)
        if match:
            try:
                value = yaml.safe_load(match.group(1))  # a double-quoted YAML scalar
            except yaml.YAMLError:
                continue
            if isinstance(value, str):
                sources.setdefault(value, match.group(2))
    return sources


def is_overlay_file(path: Path) -> bool:
    """Whether `path` holds an overlay (or nothing): the only files `learn -o` overwrites."""
    try:
        if path.stat().st_size:
            read_overlay(path)
    except (OSError, UsageError):
        return False
    return True
