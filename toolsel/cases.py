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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from toolsel.errors import UsageError
from toolsel.inputs import BadLine, InputProblem, JsonLine
from toolsel.ranking.options import Method
from toolsel.registry.permission import Permission

if TYPE_CHECKING:
    from toolsel.registry.source import DuplicateKey

_Choice = TypeVar("_Choice", Method, Permission)

#: The keys of a case, as documented.
CASE_KEYS = ("prompt", "expect", "forbid", "top_k", "method", "permission", "id", "name")
#: `expect: none` (the word, not a list): no tool should serve the prompt. A tool named
#: `none` is written as a list, `expect: [none]`.
NONE = "none"
#: The other spelling (what `eval` read before): read, with a note.
OTHER_SPELLING = {"query": "prompt", "expected": "expect"}
#: Keys that make a mapping look like a case at all (else the file is not a case file).
_CASE_MARKERS = frozenset({"prompt", "query", "expect", "expected", "forbid"})
#: Largest YAML or JSON case file read whole (thousands of cases fit in far less); JSON
#: lines are read a line at a time, with no limit on the file.
MAX_CASES_BYTES = 16 * 1024 * 1024
#: How much of a file is looked at to tell its format.
SNIFF_BYTES = 64 * 1024
#: After this many JSON lines without a case key, the file is not a case file.
_LINES_BEFORE_GIVING_UP = 50

EXAMPLE_LINE = '{"prompt": "deploy the billing service", "expect": ["deploy_service"]}'
EXAMPLE_YAML = "cases: [{prompt: deploy the billing service, expect: [deploy_service]}]"


class CaseFormat(StrEnum):
    YAML = "YAML"
    JSON = "JSON"
    JSON_LINES = "JSON lines"


#: What a file's name says it holds (another name: the content decides).
_SUFFIX_FORMAT = {
    ".yaml": CaseFormat.YAML,
    ".yml": CaseFormat.YAML,
    ".json": CaseFormat.JSON,
    ".jsonl": CaseFormat.JSON_LINES,
    ".ndjson": CaseFormat.JSON_LINES,
}

_SUFFIX_OF = {
    CaseFormat.YAML: ".yaml",
    CaseFormat.JSON: ".json",
    CaseFormat.JSON_LINES: ".jsonl",
}

_EXPECTED = {
    CaseFormat.JSON_LINES: f"one case a line, like {EXAMPLE_LINE}",
    CaseFormat.YAML: f"`cases:` with a list of cases, like `{EXAMPLE_YAML}`",
    CaseFormat.JSON: f'a list of cases or {{"cases": [...]}}, like [{EXAMPLE_LINE}]',
}


@dataclass(frozen=True, slots=True)
class Case:
    """One labelled case; an optional key that was not given is None (the command's
    default applies)."""

    prompt: str
    expect: tuple[str, ...] = ()
    forbid: tuple[str, ...] = ()
    top_k: int | None = None
    method: Method | None = None
    permission: Permission | None = None
    id: str | None = None
    name: str | None = None
    line: int = 0
    column: int = 0
    #: `expect: none`: no tool should serve this prompt (a search that always answers
    #: offers a wrong tool); `expect` is then empty
    expect_none: bool = False

    @property
    def label(self) -> str:
        """What a report calls it: its name, else its id, else its prompt."""
        return self.name or self.id or self.prompt


@dataclass(frozen=True, slots=True)
class CaseProblem:
    """A case (or part of the file) that could not be read: where, and why."""

    line: int
    column: int  # 1-based; 0 when the whole line is meant
    message: str

    def located(self, file: str) -> str:
        """`file:line:col: message`."""
        column = f":{self.column}" if self.column else ""
        return f"{file}:{self.line}{column}: {self.message}"


@dataclass(frozen=True, slots=True)
class CaseFile:
    """What a case file holds: the readable cases, the problems (in file order), and notes
    (the other spelling used, a format other than the name says)."""

    file: str
    format: CaseFormat
    cases: tuple[Case, ...]
    problems: tuple[CaseProblem, ...] = ()
    notes: tuple[str, ...] = ()
    #: keys the readable cases use, as written (`forbid`, `query`, ...): what a command ignores
    keys: frozenset[str] = frozenset()

    @property
    def listed_problems(self) -> tuple[CaseProblem, ...]:
        """The problems a command lists before refusing the file: all but the first, which
        the refusal names (`refusal`)."""
        return self.problems[1:]

    def refusal(self, why: str) -> UsageError:
        """One line refusing the file: its first problem with its place, how many there
        are, and `why` that stops the command."""
        if not self.problems:
            return UsageError(f"{self.file}: {why}")
        count = len(self.problems)
        of = f" (the first of {count} problems)" if count > 1 else ""
        return UsageError(f"{self.problems[0].located(self.file)}{of}; {why}")

    def no_cases(self, what: str = "") -> UsageError:
        """The file has no case a command can use: `what` (default: none could be read),
        and the format expected."""
        return self.refusal(f"{what or 'no case could be read'}; expected {_EXPECTED[self.format]}")


class NotCases(UsageError):
    """The file holds no cases at all: a registry, a transcript, binary data, nothing."""


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
        named = _SUFFIX_FORMAT.get(Path(path).suffix.lower())
        found = _format(file, head, named)
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


def _format(file: str, head: bytes, named: CaseFormat | None) -> CaseFormat:
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
        f"{file}:{line}:1: {what} (the file looks like {found}); expected {_EXPECTED[named]}; "
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
        raise _not_cases(file, reason, named)
    lines = [
        (number, line.strip())
        for number, line in enumerate(head.removeprefix(b"\xef\xbb\xbf").splitlines(), start=1)
        if line.strip()
    ]
    if not lines:
        raise _not_cases(file, "it is empty", named)
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


def _not_cases(file: str, why: str, fmt: CaseFormat | None) -> NotCases:
    expected = (
        _EXPECTED[fmt]
        if fmt is not None
        else f"{_EXPECTED[CaseFormat.JSON_LINES]}, or YAML {_EXPECTED[CaseFormat.YAML]}"
    )
    return NotCases(f"{file}: not a case file: {why}; expected {expected}")


# -- JSON lines -------------------------------------------------------------------------------


def _read_lines(file: str, path: Path, whole: bytes | None) -> CaseFile:
    from toolsel.inputs import jsonl_records

    reader = _Reader(file)
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
        raise _not_cases(file, "it is empty", named)
    try:
        parsed = parse_text(text, is_json=fmt is CaseFormat.JSON)
    except SourceSyntaxError as exc:
        raise UsageError(
            f"{file}:{exc.line}:{exc.column}: cannot parse it as {fmt}: {exc.message}"
        ) from None
    document, locate = parsed.value, parsed.source.locate
    reader = _Reader(file)
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
        raise _not_cases(file, _what_it_is(document), fmt)
    if not entries:
        raise UsageError(f"{file}: has no cases; expected {_EXPECTED[fmt]}")
    if not any(_looks_like_case(e) for e in entries):
        raise _not_cases(file, _what_they_are(entries), fmt)
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


# -- one case ---------------------------------------------------------------------------------

#: Where something sits: (pointer relative to the case, whether the key is meant) -> (line, col).
Locate = Callable[..., tuple[int, int]]


class _Reader:
    """Collects cases, problems and the keys used, in file order."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.cases: list[Case] = []
        self.problems: list[CaseProblem] = []
        self.keys: set[str] = set()  # of every entry (to tell what a file that is not cases is)
        self.used: set[str] = set()  # of the cases read
        self.case_like = 0

    def problem(self, line: int, column: int, message: str) -> None:
        self.problems.append(CaseProblem(line, column, message))

    def lines(self, records: Iterable[JsonLine | BadLine]) -> None:
        seen = 0
        for record in records:
            if isinstance(record, BadLine):
                self.problem(record.line, record.column, record.error)
                continue
            seen += 1
            if not isinstance(record.value, dict):
                self.problem(record.line, 1, f"expected a JSON object a line, like {EXAMPLE_LINE}")
            else:
                self.entry(record.value, _line_locator(record))
            if not self.case_like and seen >= _LINES_BEFORE_GIVING_UP:
                break
        if not self.case_like and seen:
            raise _not_cases(self.file, _what_lines_are(self.keys), CaseFormat.JSON_LINES)

    def entry(self, entry: Any, locate: Locate, duplicates: Iterable[DuplicateKey] = ()) -> None:
        line, column = locate("")
        if _looks_like_case(entry):
            self.case_like += 1
        if not isinstance(entry, dict):
            self.problem(line, column, "a case must be a mapping with `prompt` and `expect`")
            return
        before = len(self.problems)
        for duplicate in duplicates:
            self.problem(
                duplicate.line,
                duplicate.column,
                f"key {duplicate.key!r} given twice in one case "
                f"(first at line {duplicate.first_line}); keep one",
            )
        case = _Fields(entry, locate, self).case(line, column)
        self.keys.update(str(k) for k in entry)
        if case is not None and len(self.problems) == before:
            self.cases.append(case)
            self.used.update(entry)

    def result(self, fmt: CaseFormat) -> CaseFile:
        notes: tuple[str, ...] = ()
        used = [k for k in OTHER_SPELLING if k in self.used]
        if used:
            which = " and ".join(f"`{k}`" for k in used)
            canonical = " and ".join(f"`{OTHER_SPELLING[k]}`" for k in used)
            notes = (
                *notes,
                f"note: {self.file} uses {which}, the other spelling of {canonical}; "
                "both are read (see Case files in docs/commands.md)",
            )
        return CaseFile(
            self.file,
            fmt,
            tuple(self.cases),
            tuple(sorted(self.problems, key=lambda p: (p.line, p.column))),
            notes,
            frozenset(self.used),
        )


def _line_locator(record: JsonLine) -> Locate:
    """Positions inside one JSON line, found only when a problem asks (parsing the line
    again with positions)."""
    found: list[Any] = []

    def locate(relative: str, key: bool = False) -> tuple[int, int]:
        if not relative:
            return record.line, 1
        if not found:
            from toolsel.registry.source import SourceSyntaxError, parse_text

            try:
                found.append(parse_text(record.raw.decode("utf-8"), is_json=True).source)
            except (SourceSyntaxError, UnicodeDecodeError):
                found.append(None)
        source = found[0]
        return record.line, source.locate(relative, key=key)[1] if source else 1

    return locate


class _Fields:
    """The checks of one case's keys and values; each problem is reported where it is."""

    def __init__(self, entry: dict[Any, Any], locate: Locate, reader: _Reader) -> None:
        self.entry, self.locate, self.reader = entry, locate, reader
        self.ok = True

    def fail(self, key: str | None, message: str, *, at_key: bool = False) -> None:
        from toolsel.registry.source import escape_token

        pointer = f"/{escape_token(key)}" if key is not None else ""
        line, column = self.locate(pointer, at_key)
        self.reader.problem(line, column, message)
        self.ok = False

    def value(self, key: str) -> Any:
        """The value under `key` or its other spelling (None when neither is given)."""
        for spelt, canonical in OTHER_SPELLING.items():
            if canonical == key and spelt in self.entry:
                return self.entry[spelt]
        return self.entry.get(key)

    def spelt(self, key: str) -> str:
        """The key as the case writes it."""
        for spelt, canonical in OTHER_SPELLING.items():
            if canonical == key and spelt in self.entry:
                return spelt
        return key

    def case(self, line: int, column: int) -> Case | None:
        from toolsel.suggest import did_you_mean

        for key in self.entry:
            if not isinstance(key, str):
                self.fail(None, f"a key must be a string, not {key!r}")
            elif key in OTHER_SPELLING and OTHER_SPELLING[key] in self.entry:
                canonical = OTHER_SPELLING[key]
                self.fail(
                    key,
                    f"`{key}` and `{canonical}` are the same key (two spellings); keep one",
                    at_key=True,
                )
            elif key not in CASE_KEYS and key not in OTHER_SPELLING:
                self.fail(key, f"unknown key {key!r}{did_you_mean(key, CASE_KEYS)}", at_key=True)
        known_keys = self.ok  # an unknown key (a misspelt `expect`) says more than its absence
        prompt = self.prompt()
        expect_none = self.value("expect") == NONE
        expect = () if expect_none else self.names("expect")
        forbid = self.names("forbid")
        if expect is not None and forbid is not None and known_keys and not expect_none:
            self.check_expect_and_forbid(expect, forbid)
        top_k = self.top_k()
        method = self.choice("method", Method)
        permission = self.choice("permission", Permission)
        ident, name = self.label("id"), self.label("name")
        if not self.ok or prompt is None or expect is None or forbid is None:
            return None
        return Case(
            prompt,
            expect,
            forbid,
            top_k,
            method,
            permission,
            ident,
            name,
            line,
            column,
            expect_none,
        )

    def prompt(self) -> str | None:
        key = self.spelt("prompt")
        value = self.value("prompt")
        if not isinstance(value, str) or not value.strip():
            what = "is missing" if value is None else "must be a non-empty string"
            self.fail(key if key in self.entry else None, f"`{key}` {what}")
            return None
        return value

    def names(self, canonical: str) -> tuple[str, ...] | None:
        key = self.spelt(canonical)
        value = self.value(canonical)
        if value is None:
            return ()
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            self.fail(key, f"`{key}` must be a list of tool names")
            return None
        return tuple(dict.fromkeys(value))

    def check_expect_and_forbid(self, expect: tuple[str, ...], forbid: tuple[str, ...]) -> None:
        if not expect and not forbid:
            self.fail(None, "a case needs `expect` (or `forbid`): the tools it should offer")
        both = [n for n in expect if n in forbid]
        if both:
            self.fail("forbid", f"{', '.join(both)} both expected and forbidden")

    def top_k(self) -> int | None:
        value = self.entry.get("top_k")
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 1000:
            self.fail("top_k", "`top_k` must be a whole number from 1 to 1000")
            return None
        return value

    def choice(self, key: str, kind: type[_Choice]) -> _Choice | None:
        value = self.entry.get(key)
        if value is None:
            return None
        try:
            return kind(value)
        except (ValueError, TypeError):
            from toolsel.suggest import did_you_mean

            choices = [str(m) for m in kind]
            hint = did_you_mean(str(value), choices) if isinstance(value, str) else ""
            self.fail(key, f"`{key}` must be one of {', '.join(choices)}, not {value!r}{hint}")
            return None

    def label(self, key: str) -> str | None:
        value = self.entry.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int) or not str(value).strip():
            self.fail(key, f"`{key}` must be a non-empty string")
            return None
        return str(value)


# -- telling what a file that is not a case file is -------------------------------------------


def _looks_like_case(entry: Any) -> bool:
    return isinstance(entry, dict) and any(k in _CASE_MARKERS for k in entry)


def _what_it_is(document: Any) -> str:
    if isinstance(document, dict):
        if set(document) & _TRANSCRIPT_KEYS:
            return "it looks like a transcript, which `replay` and `learn --transcripts` read"
        if "tools" in document:
            return "it looks like a tool registry (it has `tools:`)"
        if "examples" in document:
            return "it looks like an examples overlay (it has `examples:`)"
        if _looks_like_case(document):
            return "it is one case on its own; put it in a list under `cases:`"
        keys = ", ".join(f"`{k}`" for k in list(document)[:3])
        return f"a mapping of {keys}, with no `cases:`"
    if isinstance(document, str):
        return "it is a single string"
    return (
        f"it is a single {type(document).__name__} value" if document is not None else "it is empty"
    )


def _what_they_are(entries: list[Any]) -> str:
    if all(isinstance(e, str) for e in entries):
        return "a list of strings, where each case is a mapping with `prompt` and `expect`"
    if all(isinstance(e, dict) for e in entries):
        keys = {k for e in entries for k in e}
        if "name" in keys and keys & {"description", "inputSchema", "parameters", "function"}:
            return "it looks like a list of tool definitions, a registry"
        shown = ", ".join(f"`{k}`" for k in sorted(map(str, keys))[:4])
        return f"no entry has `prompt` or `expect` (they have {shown})"
    return "no entry is a mapping with `prompt` and `expect`"


_TRANSCRIPT_KEYS = frozenset(
    {"type", "role", "message", "messages", "uuid", "sessionId", "payload"}
)


def _what_lines_are(keys: set[str]) -> str:
    if keys & _TRANSCRIPT_KEYS:
        return "it looks like a transcript, which `replay` and `learn --transcripts` read"
    if "name" in keys and keys & {"description", "inputSchema", "parameters", "function"}:
        return "it looks like tool definitions, a registry"
    if not keys:
        return "no line is a JSON object"
    shown = ", ".join(f"`{k}`" for k in sorted(keys)[:4])
    return f"no line has `prompt` or `expect` (they have {shown})"
