"""From YAML text to plain values, through libyaml's node graph: composing it, refusing
alias bombs and recursion before expanding anything, and walking it iteratively (so nesting
never reaches Python's recursion limit) into values, positions and duplicate keys."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any, NoReturn

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from toolsel.registry.pointer import escape_token
from toolsel.registry.sourcemap import DuplicateKey, ParsedDocument, SourceMap, SourceSyntaxError

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Refuse a document whose aliases expand it past this many nodes *and* 10x its own node
#: count, or past this many bytes of scalars *and* 10x its own text: aliases are for
#: sharing a block, not for multiplying a file.
MAX_EXPANDED_NODES = 1_000_000
MAX_EXPANDED_BYTES = 10 * 1024 * 1024
MAX_EXPANSION = 10

_MERGE_TAG = "tag:yaml.org,2002:merge"


def compose(text: str) -> Node | None:
    """The document's node graph (None: no document); bad syntax is a SourceSyntaxError."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = " ".join(str(exc.problem or exc.context or "invalid syntax").split())
        context = ""
        if exc.context and exc.problem:
            context = " ".join(str(exc.context).split())
            start = exc.context_mark
            if start is not None and mark is not None and start.line != mark.line:
                context += f" that starts at line {start.line + 1}, column {start.column + 1}"
            context = f" ({context})"
        raise SourceSyntaxError(f"{problem}{context}", line, column) from None
    except yaml.YAMLError as exc:
        raise SourceSyntaxError(" ".join(str(exc).split()), 1, 1) from None
    except RecursionError:
        raise SourceSyntaxError("nesting is too deep to parse", 1, 1) from None
    finally:
        loader.dispose()
    return node  # type: ignore[no-any-return]


#: Deepest nesting of mappings and lists a registry may have. Every check walks schemas
#: without recursing too deep for Python, and no real tool schema comes close.
MAX_NESTING = 128


def check_alias_expansion(root: Node, text_length: int) -> None:
    """Refuse documents whose aliases would expand to an unreasonable size, or recurse.
    Sizes are counted over the node graph (each shared node once), never by expanding it."""
    sizes: dict[int, tuple[int, int]] = {}  # node -> (nodes, scalar bytes) once expanded
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        node_id = id(node)
        if children_done:
            on_path.discard(node_id)
            nodes, size = 1, len(node.value) if isinstance(node, ScalarNode) else 0
            for child in children(node):
                child_nodes, child_size = sizes[id(child)]
                nodes += child_nodes
                size += child_size
            sizes[node_id] = (nodes, size)
            continue
        if node_id in sizes:
            continue
        if node_id in on_path:
            _recursive(node)
        on_path.add(node_id)
        stack.append((node, True))
        for child in children(node):
            if id(child) in on_path:
                _recursive(child)
            if id(child) not in sizes:
                stack.append((child, False))
    expanded, expanded_bytes = sizes[id(root)]
    unique = len(sizes)
    too_many = expanded > MAX_EXPANDED_NODES and expanded > MAX_EXPANSION * unique
    too_big = expanded_bytes > MAX_EXPANDED_BYTES and expanded_bytes > MAX_EXPANSION * text_length
    if too_many or too_big:
        amount = (
            f"{_human_count(expanded_bytes)} bytes"
            if too_big
            else f"{_human_count(expanded)} nodes"
        )
        raise _error_at(
            root,
            f"YAML aliases expand this {_human_count(text_length)}-character file into {amount} "
            "(an alias bomb?); refusing to expand; inline the repeated blocks instead",
        )


def _recursive(node: Node) -> NoReturn:
    raise _error_at(node, "recursive YAML alias (an anchor refers to itself)")


def _error_at(node: Node, message: str) -> SourceSyntaxError:
    mark = node.start_mark
    return SourceSyntaxError(message, mark.line + 1, mark.column + 1)


def _human_count(n: int) -> str:
    return f"{n:,}" if n < 10**12 else f"about 10^{int(math.log10(n))}"


def children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


class Walker:
    """Turns a node graph into plain values, recording positions as it goes."""

    def __init__(self, *, is_json: bool = False) -> None:
        self.is_json = is_json
        self.constructor = yaml.constructor.SafeConstructor()
        self.values: dict[str, tuple[int, int]] = {}
        self.keys: dict[str, tuple[int, int]] = {}
        self.duplicates: list[DuplicateKey] = []

    def walk(self, root: Node) -> ParsedDocument:
        result = self._start(root, "")
        stack: list[tuple[Node, Any, str, int]] = []
        if isinstance(root, (MappingNode, SequenceNode)):
            stack.append((root, result, "", 1))
        while stack:
            node, container, pointer, depth = stack.pop()
            if depth > MAX_NESTING:
                raise _error_at(
                    node,
                    f"nesting is more than {MAX_NESTING} levels deep; toolsel reads at most "
                    f"{MAX_NESTING} (real tool schemas stay far below)",
                )
            if isinstance(node, SequenceNode):
                for index, child in enumerate(node.value):
                    child_pointer = f"{pointer}/{index}"
                    value = self._start(child, child_pointer)
                    container.append(value)
                    if isinstance(child, (MappingNode, SequenceNode)):
                        stack.append((child, value, child_pointer, depth + 1))
            else:
                assert isinstance(node, MappingNode)
                for key, key_node, child in self._members(node, pointer):
                    child_pointer = f"{pointer}/{escape_token(key)}"
                    mark = key_node.start_mark
                    if key in container:
                        line, first = mark.line + 1, self.keys[child_pointer][0]
                        duplicate = DuplicateKey(child_pointer, key, line, mark.column + 1, first)
                        self.duplicates.append(duplicate)
                    self.keys[child_pointer] = (mark.line + 1, mark.column + 1)
                    value = self._start(child, child_pointer)
                    container[key] = value
                    if isinstance(child, (MappingNode, SequenceNode)):
                        stack.append((child, value, child_pointer, depth + 1))
        return ParsedDocument(result, SourceMap(self.values, self.keys), tuple(self.duplicates))

    def _start(self, node: Node, pointer: str) -> Any:
        mark = node.start_mark
        self.values[pointer] = (mark.line + 1, mark.column + 1)
        if isinstance(node, MappingNode):
            return {}
        if isinstance(node, SequenceNode):
            return []
        return self._scalar(node)

    def _members(self, node: MappingNode, pointer: str) -> Iterator[tuple[str, Node, Node]]:
        explicit = {_key_text(k) for k, _ in node.value if k.tag != _MERGE_TAG}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                yield from self._merged(value_node, explicit)
            else:
                yield _key_text(key_node), key_node, value_node

    def _merged(self, value_node: Node, explicit: set[str]) -> Iterator[tuple[str, Node, Node]]:
        sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
        seen: set[str] = set()
        for source in sources:
            if not isinstance(source, MappingNode):
                raise _error_at(source, "a merge key (<<) must refer to a mapping")
            for key_node, child in source.value:
                key = _key_text(key_node)
                if key not in explicit and key not in seen:
                    seen.add(key)
                    yield key, key_node, child

    def _scalar(self, node: Node) -> Any:
        assert isinstance(node, ScalarNode)
        try:
            return _json_number(self._typed(node))
        except _NotJson as refused:
            raise _error_at(node, str(refused)) from None

    def _typed(self, node: ScalarNode) -> Any:
        tag = node.tag
        if self.is_json and not node.style:  # plain style: None (PyYAML) or "" (libyaml)
            # a plain scalar in JSON is a number, true, false or null: type it by JSON's rules
            try:
                return json.loads(node.value, parse_int=_json_int, parse_constant=_json_constant)
            except ValueError:
                return node.value
        if tag == "tag:yaml.org,2002:str":
            return node.value
        if tag == "tag:yaml.org,2002:int":
            try:
                return self.constructor.construct_yaml_int(node)
            except ValueError:
                if _INTEGER_TEXT.fullmatch(node.value):
                    raise _NotJson(_too_long(_digit_count(node.value))) from None
                raise _NotJson(f"`!!int {_shown(node.value)}` is not an integer") from None
        if tag == "tag:yaml.org,2002:float":
            try:
                return self.constructor.construct_yaml_float(node)
            except ValueError:
                raise _NotJson(f"`!!float {_shown(node.value)}` is not a number") from None
        if tag == "tag:yaml.org,2002:bool":
            try:
                return self.constructor.construct_yaml_bool(node)
            except KeyError:
                raise _NotJson(
                    f"`!!bool {_shown(node.value)}` is not a boolean (true or false)"
                ) from None
        if tag == "tag:yaml.org,2002:null":
            return None
        # timestamps, binary and custom tags stay as their source text: registries are JSON data
        return node.value


class _NotJson(Exception):
    """A scalar whose value JSON cannot hold, or Python cannot write back as text."""


#: Integers in this range need no check: orjson and every JSON reader take them as they are.
_SMALL_INTEGERS = range(-(2**63), 2**64)
#: A decimal integer as YAML writes one, sexagesimal included (`190:20:30`).
_INTEGER_TEXT = re.compile(r"[-+]?[0-9][0-9_:]*")


def _json_number(value: Any) -> Any:
    """`value`, unless it is a number JSON cannot hold (infinity, NaN) or an integer too
    long for Python to write as text (more than `sys.get_int_max_str_digits()` digits,
    4,300 by default: only hex, octal and binary integers get that far when read)."""
    if type(value) is int and value not in _SMALL_INTEGERS:
        try:
            str(value)
        except ValueError:
            raise _NotJson(_too_long(int(value.bit_length() * math.log10(2)) + 1)) from None
    elif type(value) is float and not math.isfinite(value):
        raise _NotJson(_non_finite("nan" if math.isnan(value) else "infinity"))
    return value


def _json_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _NotJson(_too_long(_digit_count(text))) from None


def _json_constant(name: str) -> NoReturn:
    raise _NotJson(_non_finite("nan" if name == "NaN" else "infinity"))


def _digit_count(text: str) -> int:
    return sum(c.isdigit() for c in text)


def _too_long(digits: int) -> str:
    import sys

    return (
        f"an integer of {digits:,} digits is longer than the {sys.get_int_max_str_digits():,} "
        "Python converts, and no schema needs one; write a smaller number or a string"
    )


def _non_finite(kind: str) -> str:
    what = "not a number (NaN)" if kind == "nan" else "infinity"
    return f"this number is {what}, which JSON cannot hold; write a finite number"


def _shown(text: str) -> str:
    return text if len(text) <= 20 else text[:17] + "..."


def _key_text(node: Node) -> str:
    if isinstance(node, ScalarNode):
        return str(node.value)
    return yaml.serialize(node, Dumper=yaml.SafeDumper).strip()
