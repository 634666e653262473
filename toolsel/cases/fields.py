"""Reading cases one by one: each key and value checked, each problem kept where it is."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from toolsel.cases.model import (
    CASE_KEYS,
    EXAMPLE_LINE,
    NONE,
    OTHER_SPELLING,
    Case,
    CaseFile,
    CaseFormat,
    CaseProblem,
)
from toolsel.cases.sniff import looks_like_case, not_cases, what_lines_are
from toolsel.inputs import BadLine, JsonLine
from toolsel.ranking.options import Method
from toolsel.registry.permission import Permission

if TYPE_CHECKING:
    from toolsel.registry.source import DuplicateKey

_Choice = TypeVar("_Choice", Method, Permission)

#: After this many JSON lines without a case key, the file is not a case file.
_LINES_BEFORE_GIVING_UP = 50


#: Where something sits: (pointer relative to the case, whether the key is meant) -> (line, col).
Locate = Callable[..., tuple[int, int]]


class CaseReader:
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
            raise not_cases(self.file, what_lines_are(self.keys), CaseFormat.JSON_LINES)

    def entry(self, entry: Any, locate: Locate, duplicates: Iterable[DuplicateKey] = ()) -> None:
        line, column = locate("")
        if looks_like_case(entry):
            self.case_like += 1
        if not isinstance(entry, dict):
            self.problem(line, column, "a case must be a mapping with `prompt` and `expect`")
            return
        before = len(self.problems)
        for duplicate in duplicates:
            why = f"key {duplicate.key!r} given twice in one case (first at line {duplicate.first_line}); keep one"
            self.problem(duplicate.line, duplicate.column, why)
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

    def __init__(self, entry: dict[Any, Any], locate: Locate, reader: CaseReader) -> None:
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
        return self.entry.get(self.spelt(key))

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
                why = f"`{key}` and `{OTHER_SPELLING[key]}` are the same key (two spellings); keep one"
                self.fail(key, why, at_key=True)
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
