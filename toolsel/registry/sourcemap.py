"""A parsed document's positions and what parsing it can say: the source map (where each
node sits, by JSON pointer), duplicate keys, toolsel comments, and syntax errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


class SourceSyntaxError(Exception):
    """The text is not well-formed YAML/JSON, or is hostile (alias bomb, recursion)."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True)
class DuplicateKey:
    pointer: str  # pointer of the repeated member
    key: str
    line: int
    column: int
    first_line: int


class SourceMap:
    """Where each node of one document sits in its file (1-based line and column).

    A map read back from the cache loads its (large) position tables only when something
    asks for a position, so commands that never report a location never pay for them.
    """

    __slots__ = ("_keys", "_loader", "_values")

    def __init__(
        self,
        values: dict[str, tuple[int, int]] | None = None,
        keys: dict[str, tuple[int, int]] | None = None,
        *,
        loader: Callable[[], SourceMap] | None = None,
    ) -> None:
        self._values = values
        self._keys = keys
        self._loader = loader

    def _tables(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
        if self._values is None or self._keys is None:
            loaded = self._loader() if self._loader else None
            self._values = loaded.values if loaded else {}
            self._keys = loaded.keys if loaded else {}
            self._loader = None
        return self._values, self._keys

    @property
    def values(self) -> dict[str, tuple[int, int]]:
        return self._tables()[0]

    @property
    def keys(self) -> dict[str, tuple[int, int]]:
        return self._tables()[1]

    def locate(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        """Position of `pointer`, or of its nearest existing ancestor when it does not exist."""
        values, keys = self._tables()
        current = pointer
        while True:
            if key and current in keys:
                return keys[current]
            if current in values:
                return values[current]
            if not current:
                return (1, 1)
            current = current.rsplit("/", 1)[0]

    def next_line_with_node(self, after: int) -> int | None:
        """The first line after `after` where a key or a value starts."""
        lines = [line for line, _ in self.keys.values() if line > after]
        lines += [line for line, _ in self.values.values() if line > after]
        return min(lines, default=None)

    def pointers_at_line(self, line: int) -> Iterator[str]:
        for pointer, (key_line, _) in self.keys.items():
            if key_line == line:
                yield pointer
        for pointer, (value_line, _) in self.values.items():
            if value_line == line:
                yield pointer

    def to_json(self) -> dict[str, Any]:
        """Compact form: parallel lists, far cheaper to decode than a dict of pairs."""
        return {
            "value_pointers": list(self.values),
            "value_marks": [n for mark in self.values.values() for n in mark],
            "key_pointers": list(self.keys),
            "key_marks": [n for mark in self.keys.values() for n in mark],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SourceMap:
        def pairs(pointers: list[str], marks: list[int]) -> dict[str, tuple[int, int]]:
            it = iter(marks)
            return {
                pointer: (line, column)
                for pointer, line, column in zip(pointers, it, it, strict=False)
            }

        return cls(
            pairs(data["value_pointers"], data["value_marks"]),
            pairs(data["key_pointers"], data["key_marks"]),
        )


@dataclass(frozen=True, slots=True)
class Comment:
    """A real YAML comment (never text inside a string), 1-based line and column of `#`."""

    line: int
    column: int
    text: str  # from `#` to the end of the line


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    value: Any
    source: SourceMap
    duplicate_keys: tuple[DuplicateKey, ...]
    comments: tuple[Comment, ...] = ()  # only those that mention toolsel (suppressions)
