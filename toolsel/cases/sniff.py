"""Telling what a file holds: its case format from its name and content, and, when it holds
no cases, what it looks like instead (a registry, a transcript, ...)."""

from __future__ import annotations

from typing import Any

from toolsel.cases.model import EXPECTED, CaseFormat, NotCases

#: Keys that make a mapping look like a case at all (else the file is not a case file).
CASE_MARKERS = frozenset({"prompt", "query", "expect", "expected", "forbid"})
#: How much of a file is looked at to tell its format.
SNIFF_BYTES = 64 * 1024

#: What a file's name says it holds (another name: the content decides).
SUFFIX_FORMAT = {
    ".yaml": CaseFormat.YAML,
    ".yml": CaseFormat.YAML,
    ".json": CaseFormat.JSON,
    ".jsonl": CaseFormat.JSON_LINES,
    ".ndjson": CaseFormat.JSON_LINES,
}

_SUFFIX_OF = {CaseFormat.YAML: ".yaml", CaseFormat.JSON: ".json", CaseFormat.JSON_LINES: ".jsonl"}


def file_format(file: str, head: bytes, named: CaseFormat | None) -> CaseFormat:
    """The format to read: the one the name says (`.yaml`, `.json`, `.jsonl`), else the one
    the content is in. Content in another format than its name says is an error at the
    first line that shows it (YAML reads JSON, so JSON named `.yaml` is read)."""
    found, line = _sniff(file, head, named)
    if named is None or named is found or (named is CaseFormat.YAML and found is CaseFormat.JSON):
        return found
    if named is CaseFormat.JSON and found is CaseFormat.YAML:
        return named  # the JSON parser says where it stops being JSON
    if named is CaseFormat.JSON_LINES:
        what = "not JSON lines: this line is not a JSON object of its own"
    else:
        what = f"not {named}: this line starts another JSON object"
    raise NotCases(
        f"{file}:{line}:1: {what} (the file looks like {found}); expected {EXPECTED[named]}; "
        f"or name a {found} case file {_SUFFIX_OF[found]}"
    )


def _sniff(file: str, head: bytes, named: CaseFormat | None) -> tuple[CaseFormat, int]:
    """The format the content is in, and the line that shows it: JSON lines when its first
    line is a JSON object of its own (and not a whole one-line `{"cases": ...}` file), or
    when it is not but a later line starting a line is (a broken first line); JSON when it
    starts with `[` or `{`; else YAML."""
    from toolsel.inputs import binary_reason

    reason = binary_reason(head)
    if reason:
        raise not_cases(file, reason, named)
    lines = [
        (number, line.strip())
        for number, line in enumerate(head.removeprefix(b"\xef\xbb\xbf").splitlines(), start=1)
        if line.strip()
    ]
    if not lines:
        raise not_cases(file, "it is empty", named)
    number, first = lines[0]
    second = lines[1][0] if len(lines) > 1 else number
    if first.startswith(b"["):
        return CaseFormat.JSON, number
    if not first.startswith(b"{"):
        return CaseFormat.YAML, number
    if len(head) >= SNIFF_BYTES and b"\n" not in head:  # a first line too long to look at
        return (CaseFormat.JSON if named is CaseFormat.JSON else CaseFormat.JSON_LINES), number
    value = _json_object(first)
    if value is not None:
        one_line_file = len(lines) == 1 and len(head) < SNIFF_BYTES
        if one_line_file and "cases" in value:
            return CaseFormat.JSON, number
        return CaseFormat.JSON_LINES, second
    later = next((n for n, line in lines[1:20] if _json_object(line) is not None), None)
    if first != b"{" and later is not None:
        return CaseFormat.JSON_LINES, later  # pretty-printed JSON indents its inner objects
    return CaseFormat.JSON, number


def _json_object(line: bytes) -> dict[str, Any] | None:
    """The line as a JSON object, if it is one on its own starting the line."""
    import orjson

    if not line.startswith(b"{"):
        return None
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def not_cases(file: str, why: str, fmt: CaseFormat | None) -> NotCases:
    expected = (
        EXPECTED[fmt]
        if fmt is not None
        else f"{EXPECTED[CaseFormat.JSON_LINES]}, or YAML {EXPECTED[CaseFormat.YAML]}"
    )
    return NotCases(f"{file}: not a case file: {why}; expected {expected}")


def looks_like_case(entry: Any) -> bool:
    return isinstance(entry, dict) and any(k in CASE_MARKERS for k in entry)


def what_it_is(document: Any) -> str:
    if isinstance(document, dict):
        if set(document) & TRANSCRIPT_KEYS:
            return "it looks like a transcript, which `replay` and `learn --transcripts` read"
        if "tools" in document:
            return "it looks like a tool registry (it has `tools:`)"
        if "examples" in document:
            return "it looks like an examples overlay (it has `examples:`)"
        if looks_like_case(document):
            return "it is one case on its own; put it in a list under `cases:`"
        keys = ", ".join(f"`{k}`" for k in list(document)[:3])
        return f"a mapping of {keys}, with no `cases:`"
    if isinstance(document, str):
        return "it is a single string"
    return "it is empty" if document is None else f"it is a single {type(document).__name__} value"


def what_they_are(entries: list[Any]) -> str:
    if all(isinstance(e, str) for e in entries):
        return "a list of strings, where each case is a mapping with `prompt` and `expect`"
    if all(isinstance(e, dict) for e in entries):
        keys = {k for e in entries for k in e}
        if "name" in keys and keys & {"description", "inputSchema", "parameters", "function"}:
            return "it looks like a list of tool definitions, a registry"
        shown = ", ".join(f"`{k}`" for k in sorted(map(str, keys))[:4])
        return f"no entry has `prompt` or `expect` (they have {shown})"
    return "no entry is a mapping with `prompt` and `expect`"


TRANSCRIPT_KEYS = frozenset({"type", "role", "message", "messages", "uuid", "sessionId", "payload"})


def what_lines_are(keys: set[str]) -> str:
    if keys & TRANSCRIPT_KEYS:
        return "it looks like a transcript, which `replay` and `learn --transcripts` read"
    if "name" in keys and keys & {"description", "inputSchema", "parameters", "function"}:
        return "it looks like tool definitions, a registry"
    if not keys:
        return "no line is a JSON object"
    shown = ", ".join(f"`{k}`" for k in sorted(keys)[:4])
    return f"no line has `prompt` or `expect` (they have {shown})"
