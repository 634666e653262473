"""Labelled cases, one format for `toolsel test`, `toolsel eval` and `toolsel learn --cases`.

A case says which tools a prompt should (and should not) be offered:

    prompt: deploy the billing service to production   # what the user asked (required)
    expect: [deploy_service]       # tools it should offer (test: within top_k); or `none`:
                                   # no tool should serve this prompt
    forbid: [deploy_legacy]        # tools it must not offer (test only)
    top_k: 5                       # test: how deep `expect` may be (default 8)
    method: hybrid                 # test: the scorer, as rank --method (default auto)
    permission: write              # the agent's permission ceiling, as rank --permission
    id: deploy-1                   # optional: what reports call the case
    name: deploy offers deploy_service

A case needs `prompt` and `expect` (`none` included) or `forbid`. `query` and `expected` (the keys `eval` read
before) are the other spelling of `prompt` and `expect`: they are read, with one note per
file. A file holds cases as YAML (`cases:` with a list, or a bare list), JSON (a list, or
`{"cases": [...]}`) or JSON lines (one case a line); which is told from the content, not the
name. Every problem is kept with its line and column; a file that holds no cases at all (a
registry, a transcript, binary data, nothing) is one error that says what was expected.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.cases.fields import CaseReader
from toolsel.cases.model import EXPECTED, CaseFile, CaseFormat
from toolsel.cases.sniff import (
    SNIFF_BYTES,
    SUFFIX_FORMAT,
    file_format,
    looks_like_case,
    not_cases,
    what_it_is,
    what_they_are,
)
from toolsel.errors import UsageError
from toolsel.inputs import InputProblem

if TYPE_CHECKING:
    from toolsel.registry.source import DuplicateKey

#: Largest YAML or JSON case file read whole (thousands of cases fit in far less); JSON
#: lines are read a line at a time, with no limit on the file.
MAX_CASES_BYTES = 16 * 1024 * 1024


def read_cases(path: Path) -> CaseFile:
    """Every case of a case file, in any of its formats, with every problem kept. Raises
    UsageError when the file cannot be read, cannot be parsed (YAML, JSON), or is not a
    case file (NotCases)."""
    from toolsel.inputs import check_path, display_path, read_bounded

    file = display_path(path)
    try:
        kind = check_path(path)
        if kind.is_dir:
            raise UsageError(f"{file}: is a directory; give a case file")
        whole = None if kind.is_file else read_bounded(path, MAX_CASES_BYTES)
        head = whole if whole is not None else _head(path)
        named = SUFFIX_FORMAT.get(Path(path).suffix.lower())
        found = file_format(file, head, named)
        if found is CaseFormat.JSON_LINES:
            return _read_lines(file, path, whole)
        data = whole if whole is not None else read_bounded(path, MAX_CASES_BYTES)
    except InputProblem as problem:
        raise UsageError(f"{file}: cannot read: {problem}") from None
    return _read_document(file, data, found, named)


def _head(path: Path) -> bytes:
    try:
        with Path(path).open("rb") as handle:
            return handle.read(SNIFF_BYTES)
    except OSError as error:
        from toolsel.inputs import os_reason

        raise InputProblem(os_reason(error)) from None


def _read_lines(file: str, path: Path, whole: bytes | None) -> CaseFile:
    from toolsel.inputs import jsonl_records

    reader = CaseReader(file)
    if whole is not None:
        reader.lines(jsonl_records(io.BytesIO(whole)))
    else:
        try:
            handle = Path(path).open("rb")  # noqa: SIM115 - the with below closes it
        except OSError as error:
            from toolsel.inputs import os_reason

            raise UsageError(f"{file}: cannot read: {os_reason(error)}") from None
        with handle:
            reader.lines(jsonl_records(handle))
    return reader.result(CaseFormat.JSON_LINES)


# -- YAML and JSON ----------------------------------------------------------------------------


def _read_document(file: str, data: bytes, fmt: CaseFormat, named: CaseFormat | None) -> CaseFile:
    from toolsel.registry.source import SourceSyntaxError, escape_token, parse_text

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise UsageError(
            f"{file}:{line}:{column}: not valid UTF-8 (byte 0x{data[exc.start]:02x}); "
            "save the file as UTF-8"
        ) from None
    if not text.strip():
        raise not_cases(file, "it is empty", named)
    try:
        parsed = parse_text(text, is_json=fmt is CaseFormat.JSON)
    except SourceSyntaxError as exc:
        raise UsageError(
            f"{file}:{exc.line}:{exc.column}: cannot parse it as {fmt}: {exc.message}"
        ) from None
    document, locate = parsed.value, parsed.source.locate
    reader = CaseReader(file)
    base = ""
    if isinstance(document, dict) and "cases" in document:
        base = "/cases"
        for key in document:
            if key != "cases":
                line, column = locate(f"/{escape_token(str(key))}", key=True)
                reader.problem(
                    line, column, f"unknown top-level key {key!r}; a case file has `cases:`"
                )
        entries = document["cases"]
    else:
        entries = document
    if not isinstance(entries, list):
        raise not_cases(file, what_it_is(document), fmt)
    if not entries:
        raise UsageError(f"{file}: has no cases; expected {EXPECTED[fmt]}")
    if not any(looks_like_case(e) for e in entries):
        raise not_cases(file, what_they_are(entries), fmt)
    duplicates: dict[int, list[DuplicateKey]] = {}
    prefix = f"{base}/"
    for duplicate in parsed.duplicate_keys:
        index = duplicate.pointer.removeprefix(prefix).split("/", 1)[0]
        if duplicate.pointer.startswith(prefix) and index.isdigit():
            duplicates.setdefault(int(index), []).append(duplicate)
    for i, entry in enumerate(entries):
        pointer = f"{base}/{i}"

        def where(relative: str, key: bool = False, pointer: str = pointer) -> tuple[int, int]:
            return locate(pointer + relative, key=key)

        reader.entry(entry, where, duplicates.get(i, ()))
    return reader.result(fmt)
