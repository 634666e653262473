"""`toolsel lint --fix`: the fixes that are certain, made as small edits of the file's own
text, so comments, order, quoting and layout stay as they were.

Fixed: an object schema without `additionalProperties` gets `additionalProperties: false`
under openai-strict (TS401) and anthropic-strict (TS422); a property missing from
`required` under openai-strict is added to it when it already accepts null (TS402). An
optional property that does not accept null is left for its author: making it required
changes what a caller must send, and only the author knows what null should mean.

Every edited text is parsed again and must give exactly the intended document, or the file
is left alone. A file that does not parse, has duplicate keys, YAML anchors or merge keys is
never edited.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolsel.lint.model import Finding, LintResult
from toolsel.lint.schema import is_object_schema
from toolsel.registry.source import escape_token, split_pointer, unescape_token

#: Rules with a certain fix for some of their findings.
FIXABLE_RULES = frozenset({"TS401", "TS402", "TS422"})
#: Findings that make a file unsafe to edit.
_UNEDITABLE = {"TS001": "it does not parse", "TS002": "it has duplicate keys"}
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_YAML_WORDS = frozenset(
    "y n yes no on off true false null".split()
)  # read as booleans or null when plain


@dataclass(frozen=True, slots=True)
class FileFix:
    """One file's text before and after, and the findings the edit fixes."""

    file: str
    path: Path
    before: str
    after: str
    fixed: tuple[Finding, ...]


@dataclass(frozen=True, slots=True)
class Unfixed:
    """A finding of a fixable rule left as it is, and why."""

    finding: Finding
    reason: str


@dataclass(frozen=True, slots=True)
class FixPlan:
    files: tuple[FileFix, ...]
    unfixed: tuple[Unfixed, ...]

    @property
    def fixed(self) -> tuple[Finding, ...]:
        return tuple(f for file in self.files for f in file.fixed)


@dataclass
class _Changes:
    """What one mapping (a schema) gets: keys added, names appended to `required`."""

    add: dict[str, Any] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def plan_fixes(result: LintResult, paths: Mapping[str, Path]) -> FixPlan:
    """The edits that fix what can be fixed with certainty among `result`'s findings;
    `paths` maps each finding's file (as findings name it) to the file to read."""
    by_file: dict[str, list[Finding]] = {}
    for finding in (*result.findings, *result.hidden):
        by_file.setdefault(finding.file, []).append(finding)
    files: list[FileFix] = []
    unfixed: list[Unfixed] = []
    for file, findings in by_file.items():
        fixable = [f for f in findings if f.rule in FIXABLE_RULES]
        if not fixable or file not in paths:
            continue
        blocked = next((why for f in findings if (why := _UNEDITABLE.get(f.rule))), None)
        if blocked is not None:
            unfixed += [Unfixed(f, f"the file is not edited: {blocked}") for f in fixable]
            continue
        fixed, left = _plan_file(file, paths[file], fixable)
        unfixed += left
        if fixed is not None:
            files.append(fixed)
    return FixPlan(tuple(files), tuple(unfixed))


def apply_fixes(plan: FixPlan) -> None:
    """Write every fixed file (atomically, keeping its permissions); a symlink's target is
    what gets written, the link stays."""
    from toolsel.atomic import replace_file

    for item in plan.files:
        replace_file(item.path, item.after)


def _plan_file(
    file: str, path: Path, findings: list[Finding]
) -> tuple[FileFix | None, list[Unfixed]]:
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None, [Unfixed(f, "the file is not edited: it cannot be read") for f in findings]
    source = _Source.read(text, is_json=path.suffix.lower() in (".json", ".jsonl"))
    if isinstance(source, str):
        return None, [Unfixed(f, f"the file is not edited: {source}") for f in findings]
    changes: dict[str, _Changes] = {}
    left: list[Unfixed] = []
    for finding in findings:
        reason = _plan_finding(source.document, finding, changes)
        if reason is not None:
            left.append(Unfixed(finding, reason))
    if not changes:
        return None, left
    after = source.edited(changes)
    if after is None:
        reason = "the file is not edited: the edit would not read back as intended"
        return None, left + [Unfixed(f, reason) for c in changes.values() for f in c.findings]
    fixed = tuple(f for c in changes.values() for f in c.findings)
    return FileFix(file, path, text, after, fixed), left


def _plan_finding(document: Any, finding: Finding, changes: dict[str, _Changes]) -> str | None:
    """Record the change that fixes `finding`; None when planned (or not this rule's
    fixable kind, for TS422), else why it is left."""
    if finding.rule in ("TS401", "TS422"):
        schema = _at(document, finding.pointer)
        if isinstance(schema, dict) and is_object_schema(schema):
            if "additionalProperties" in schema:
                return "`additionalProperties` is set; setting it to false changes the schema"
            entry = changes.setdefault(finding.pointer, _Changes())
            entry.add.setdefault("additionalProperties", False)
            entry.findings.append(finding)
        return None
    # TS402: the finding points at /.../properties/<name>
    owner, _, name = finding.pointer.rpartition("/properties/")
    schema, prop = _at(document, owner), _at(document, finding.pointer)
    if not isinstance(schema, dict) or not isinstance(prop, dict):
        return "the property is not a schema"
    name = unescape_token(name)
    if not accepts_null(prop):
        return f"{name!r} is optional and not nullable; make it type [T, 'null'] first"
    required = schema.get("required")
    if required is not None and not isinstance(required, list):
        return "`required` is not a list"
    entry = changes.setdefault(owner, _Changes())
    if name not in entry.required:
        entry.required.append(name)
    entry.findings.append(finding)
    return None


def accepts_null(schema: dict[str, Any]) -> bool:
    """The schema says null is a valid value: `type` null or a list with it, or an
    `anyOf`/`oneOf` branch that does."""
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list) and any(
            isinstance(b, dict) and accepts_null(b) for b in branches
        ):
            return True
    return False


def _at(document: Any, pointer: str) -> Any:
    value = document
    for token in split_pointer(pointer):
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return None
    return value


class _Source:
    """A file's text with its node graph (PyYAML marks: 0-based offsets) and document."""

    def __init__(self, text: str, document: Any, nodes: dict[str, Any], is_json: bool) -> None:
        self.text = text
        self.document = document
        self.nodes = nodes  # pointer -> composed node (mappings and sequences)
        self.is_json = is_json
        self.eol = "\r\n" if "\r\n" in text else "\n"

    @classmethod
    def read(cls, text: str, *, is_json: bool) -> _Source | str:
        """The parsed source, or why it cannot be edited."""
        import yaml

        from toolsel.registry.source import SourceSyntaxError, parse_text

        try:
            parsed = parse_text(text, is_json=is_json)
        except SourceSyntaxError:
            return "it does not parse"
        if parsed.duplicate_keys:
            return "it has duplicate keys"
        scanned = text.replace("\t", " ") if is_json else text
        try:
            root = yaml.compose(scanned, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (yaml.YAMLError, RecursionError):
            return "it cannot be edited in place (JSON lines, or escaped surrogate pairs)"
        nodes = _node_index(root)
        if nodes is None:
            return "it uses YAML anchors or merge keys"
        return cls(text, parsed.value, nodes, is_json)

    def edited(self, changes: dict[str, _Changes]) -> str | None:
        """The text with every change made, or None when it would not read back as the
        document with those changes."""
        from toolsel.registry.source import SourceSyntaxError, parse_text

        inserts: list[tuple[int, int, str]] = []  # (offset, -depth, text)
        expected = copy.deepcopy(self.document)
        for pointer, change in changes.items():
            node = self.nodes.get(pointer)
            target = _at(expected, pointer)
            if node is None or not isinstance(target, dict):
                return None
            depth = -len(split_pointer(pointer))
            add = dict(change.add)
            if change.required:
                existing = target.get("required")
                if isinstance(existing, list):
                    sequence = self.nodes.get(f"{pointer}/required")
                    if sequence is None:
                        return None
                    items = [self._scalar(name) for name in change.required]
                    inserts += [(o, depth - 1, t) for o, t in self._append(sequence, items)]
                    existing.extend(change.required)
                else:
                    add["required"] = list(change.required)
            if add:
                entries = [f"{self._scalar(k)}: {self._value(v)}" for k, v in add.items()]
                inserts += [(o, depth, t) for o, t in self._add_keys(node, entries)]
                target.update(add)
        text = self.text
        for offset, _, insert in sorted(inserts, key=lambda i: (i[0], i[1]), reverse=True):
            text = text[:offset] + insert + text[offset:]
        try:
            if parse_text(text, is_json=self.is_json).value != expected:
                return None
        except SourceSyntaxError:
            return None
        return text

    # -- text of the inserted pieces -------------------------------------------------------
    def _scalar(self, value: str) -> str:
        if not self.is_json and _PLAIN.fullmatch(value) and value.lower() not in _YAML_WORDS:
            return value
        import json

        quoted = json.dumps(value, ensure_ascii=False)
        # YAML refuses raw control characters even where JSON allows them: escape those
        return "".join(ch if ch.isprintable() else json.dumps(ch)[1:-1] for ch in quoted)

    def _value(self, value: Any) -> str:
        if value is False:
            return "false"
        return "[" + ", ".join(self._scalar(item) for item in value) + "]"

    # -- where they go -----------------------------------------------------------------------
    def _add_keys(self, node: Any, entries: list[str]) -> Iterator[tuple[int, str]]:
        if node.flow_style or self.is_json:
            key, value = node.value[-1] if node.value else (None, None)
            yield from self._flow_insert(node, value, entries, key)
            return
        indent = self._indent(node.value[0][0].start_mark)
        yield self._after_line(node), "".join(indent + e + self.eol for e in entries)

    def _append(self, node: Any, items: list[str]) -> Iterator[tuple[int, str]]:
        if node.flow_style or self.is_json:
            last = node.value[-1] if node.value else None
            yield from self._flow_insert(node, last, items, last)
            return
        indent = self._indent(node.start_mark)
        yield self._after_line(node), "".join(indent + "- " + i + self.eol for i in items)

    def _flow_insert(
        self, node: Any, last_value: Any, pieces: list[str], last_start: Any
    ) -> Iterator[tuple[int, str]]:
        """After the last member of a `{...}` or `[...]` (inside it when empty): on a line
        of its own, indented as the last member, when the members are one per line."""
        if not last_value:
            yield node.end_mark.index - 1, ", ".join(pieces)
            return
        if last_start.start_mark.line != node.start_mark.line:
            separator = "," + self.eol + self._indent(last_start.start_mark)
        else:
            separator = ", "
        yield last_value.end_mark.index, "".join(separator + p for p in pieces)

    def _indent(self, mark: Any) -> str:
        """The whitespace before `mark` on its line, tabs kept (`- ` of a list item as
        spaces), so an inserted line lines up in the file's own style."""
        start = mark.index - mark.column
        return "".join(ch if ch == "\t" else " " for ch in self.text[start : mark.index])

    def _after_line(self, node: Any) -> int:
        """Where a new line goes after a block collection: past its last value's line (and
        the comment on that line), before any comment lines that follow."""
        from yaml.nodes import CollectionNode, MappingNode

        last = node
        while isinstance(last, CollectionNode) and not last.flow_style and last.value:
            last = last.value[-1][1] if isinstance(last, MappingNode) else last.value[-1]
        mark = last.end_mark
        if mark.column == 0 and mark.index > 0:  # a block scalar ends at a line start
            return int(mark.index)
        newline = self.text.find("\n", mark.index)
        return len(self.text) if newline == -1 else newline + 1


def _node_index(root: Any) -> dict[str, Any] | None:
    """Pointer -> node of every mapping and sequence; None when a node is reached twice
    (an alias) or a mapping has a merge key."""
    from yaml.nodes import MappingNode, SequenceNode

    index: dict[str, Any] = {}
    seen: set[int] = set()
    stack = [("", root)] if root is not None else []
    while stack:
        pointer, node = stack.pop()
        if id(node) in seen:
            return None
        seen.add(id(node))
        if isinstance(node, MappingNode):
            index[pointer] = node
            for key, value in node.value:
                if key.tag == "tag:yaml.org,2002:merge":
                    return None
                stack.append((f"{pointer}/{escape_token(str(key.value))}", value))
        elif isinstance(node, SequenceNode):
            index[pointer] = node
            stack.extend((f"{pointer}/{i}", item) for i, item in enumerate(node.value))
    return index
