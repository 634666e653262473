"""How many subschemas a validator applies to one value, known before validating anything.

`$ref` applies the referenced schema to the same value, in place, as `allOf`, `anyOf`,
`oneOf`, `not`, `if`/`then`/`else` and `dependentSchemas` do. A schema whose shared
definitions each reference the next level twice (`allOf: [{$ref: next}, {$ref: next}]`)
therefore applies 2^L subschemas to one value after L levels, though it is a few KB long.
`measure` counts, for every place a value can reach, the subschemas applied to that value in
place, following local references the way jsonschema resolves them (`referencing`). Each
subschema is counted once and remembered, so measuring takes time linear in the schema. It
also finds in-place loops (a `$ref` that comes back to itself without descending into the
value), which no validator can finish.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any
from urllib.parse import quote

from toolsel.registry.pointer import escape_token

#: The most subschemas one value may have applied in place. Real schemas stay far below it:
#: at most 13 in the real registries of tests/fixtures/real and ../shared/bench, 18 in 2,203
#: CloudFormation resource schemas, 43 in OpenAPI 3.2's schema and 115 in cfn-lint's Step
#: Functions schema. One value at the limit takes about 10,000 validation steps, half of
#: `toolsel.validate.STEP_FLOOR`: a schema over it cannot be checked against any input.
MAX_APPLIED = 5_000
#: Counts are exact up to here; beyond it they only say "more".
CAP = 10**18

_REFS = ("$ref", "$dynamicRef", "$recursiveRef")
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE_SINGLE = ("not", "if")
_IN_PLACE_MAPS = ("dependentSchemas", "dependencies")
_DESCENDING_MAPS = ("properties", "patternProperties")
_DESCENDING_SINGLE = (
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "additionalItems",
    "unevaluatedItems",
)
_DESCENDING_LISTS = ("prefixItems",)

Key = tuple[int, str]  # (id of the subschema, base URI it is resolved against)
Group = tuple[str, list[Key]]  # where (pointer of the keyword), alternatives (one applies)


@dataclass(frozen=True, slots=True)
class Expansion:
    """The worst place in a schema: the subschemas applied in place to the value there."""

    applied: int  # at most CAP
    pointer: str  # JSON pointer of that place's schema ("" for the root)
    ref: str | None = None  # that schema's own `$ref`, when it has one
    repeated: str | None = None  # the subschema applied most often there (a pointer)
    repeats: int = 0
    loop: str | None = None  # pointer of a keyword that loops back in place

    @property
    def too_costly(self) -> bool:
        return self.loop is not None or self.applied > MAX_APPLIED

    @property
    def where(self) -> str:
        """The pointer to name in a finding: the `$ref` responsible when there is one."""
        if self.loop is not None:
            return self.loop
        return f"{self.pointer}/$ref" if self.ref is not None else self.pointer

    def reason(self) -> str:
        """One line: what is too costly, and where."""
        if self.loop is not None:
            return (
                f"#{self.loop} leads back to itself without descending into the value, "
                "so validation never ends"
            )
        start = f"`$ref: {self.ref}` at #{self.pointer}" if self.ref else f"#{self.pointer}"
        text = f"{start} applies {_count(self.applied)} subschemas to one value (limit {MAX_APPLIED:,})"
        if self.repeated is not None:
            text += f"; #{self.repeated} alone {_count(self.repeats)} times"
        return text


def _count(number: int) -> str:
    return f"over {CAP:,}" if number >= CAP else f"{number:,}"


def references(schema: Any, keywords: Collection[str] = _REFS) -> Iterator[str]:
    """Every `$ref`, `$dynamicRef` and `$recursiveRef` in the schema (or only those of
    `keywords`), iteratively."""
    stack = [schema]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            for key, value in current.items():
                if key in keywords and isinstance(value, str):
                    yield value
                else:
                    stack.append(value)
        elif isinstance(current, list):
            stack.extend(current)


def measure(schema: dict[str, Any], validator: Any = None) -> Expansion:
    """The schema's worst place: the first (nearest the root) over MAX_APPLIED, or the one
    with the most subschemas. `validator` is a jsonschema validator for the schema (one is
    built when absent). Never raises for a schema jsonschema accepts; linear in its size."""
    from jsonschema import validators
    from referencing import Registry

    if validator is None:
        cls: Any = validators.validator_for(schema, default=validators.Draft202012Validator)
        validator = cls(schema, registry=Registry(), _resolver=root_resolver(cls, schema))
    return _Walker(schema, validator).run()


def root_resolver(cls: Any, schema: dict[str, Any]) -> Any:
    """A `referencing` resolver for the schema alone, its resources and anchors found once.
    (jsonschema's default registry holds every metaschema, uncrawled: each `$ref` to an
    anchor would crawl them all, and the schema, again, for every value checked.)"""
    import referencing.jsonschema
    from referencing import Registry

    specification = referencing.jsonschema.specification_with(
        dialect_id=cls.ID_OF(cls.META_SCHEMA) or "urn:unknown-dialect",
        default=referencing.Specification.OPAQUE,
    )
    resource = specification.create_resource(schema)
    uri = resource.id() or ""
    return Registry().with_resource(uri, resource).crawl().resolver(base_uri=uri)


class _Loop(Exception):
    def __init__(self, pointer: str) -> None:
        self.pointer = pointer


class _Walker:
    def __init__(self, schema: dict[str, Any], validator: Any) -> None:
        import referencing.jsonschema

        cls = type(validator)
        self.keywords = frozenset(cls.VALIDATORS)
        dialect = str(cls.ID_OF(cls.META_SCHEMA) or "urn:unknown-dialect")
        # drafts 3 to 7 ignore every keyword beside `$ref`, and so does jsonschema
        self.ref_alone = "/draft-0" in dialect
        self.spec = referencing.jsonschema.specification_with(
            dialect_id=dialect, default=referencing.Specification.OPAQUE
        )
        self.root = validator._resolver
        self.pointers: dict[int, str] = {}
        self.dynamic_anchors: dict[str, list[str]] = {}
        self.recursive_anchors: list[str] = []
        self._index(schema)
        self.nodes: dict[Key, tuple[Any, Any]] = {}
        self.groups: dict[Key, list[Group]] = {}
        self.cost: dict[Key, int] = {}
        self.start = self._key(schema, self.root)

    # -- the schema's places ------------------------------------------------------------
    def _index(self, schema: Any) -> None:
        """Pointer of every object (first occurrence), and the dynamic anchors."""
        stack: list[tuple[Any, str]] = [(schema, "")]
        while stack:
            current, pointer = stack.pop()
            if isinstance(current, dict):
                self.pointers.setdefault(id(current), pointer)
                anchor = current.get("$dynamicAnchor")
                if isinstance(anchor, str):
                    self.dynamic_anchors.setdefault(anchor, []).append(pointer)
                if current.get("$recursiveAnchor") is True:
                    self.recursive_anchors.append(pointer)
                stack.extend((v, f"{pointer}/{escape_token(str(k))}") for k, v in current.items())
            elif isinstance(current, list):
                stack.extend((v, f"{pointer}/{i}") for i, v in enumerate(current))

    def _key(self, contents: Any, resolver: Any) -> Key:
        key = (id(contents), str(getattr(resolver, "_base_uri", "")))
        self.nodes.setdefault(key, (contents, resolver))
        return key

    def _child(self, contents: Any, resolver: Any) -> Key | None:
        if isinstance(contents, bool):
            return self._key(contents, resolver)
        if not isinstance(contents, dict):
            return None
        return self._key(contents, resolver.in_subresource(self.spec.create_resource(contents)))

    def _lookup(self, ref: str, resolver: Any) -> Key | None:
        try:
            resolved = resolver.lookup(ref)
        except Exception:  # a dangling reference: jsonschema reports it when validating
            return None
        if not isinstance(resolved.contents, (dict, bool)):
            return None
        return self._key(resolved.contents, resolved.resolver)

    def _targets(self, keyword: str, ref: Any, resolver: Any) -> list[Key]:
        """Every schema the reference may apply: one for `$ref`; for a dynamic reference,
        its lexical target and every schema with the anchor it may resolve to instead."""
        if keyword == "$recursiveRef":
            ref, anchored = "#", self.recursive_anchors
        elif keyword == "$dynamicRef" and isinstance(ref, str) and ref.startswith("#"):
            anchored = self.dynamic_anchors.get(ref[1:], [])
        else:
            anchored = []
        if not isinstance(ref, str):
            return []
        found = [self._lookup(ref, resolver)]
        found += [self._lookup("#" + quote(pointer, safe="/"), self.root) for pointer in anchored]
        return list(dict.fromkeys(key for key in found if key is not None))

    def _in_place(self, key: Key) -> list[Group]:
        """The schemas applied to the same value as this one, grouped by keyword."""
        groups = self.groups.get(key)
        if groups is not None:
            return groups
        schema, resolver = self.nodes[key]
        groups = []
        if isinstance(schema, dict):
            base = self.pointers.get(id(schema), "?")
            keywords = [k for k in schema if k in self.keywords]
            if self.ref_alone and "$ref" in schema:
                keywords = ["$ref"]
            for keyword in keywords:
                value = schema[keyword]
                where = f"{base}/{escape_token(keyword)}"
                if keyword in _REFS:
                    groups.append((where, self._targets(keyword, value, resolver)))
                    continue
                for place, sub in _in_place_values(keyword, value, schema):
                    child = self._child(sub, resolver)
                    if child is not None:
                        groups.append((f"{base}/{place}", [child]))
        self.groups[key] = groups
        return groups

    def _descending(self, key: Key) -> Iterator[Key]:
        """The schemas applied to the value's items and properties."""
        schema, resolver = self.nodes[key]
        if not isinstance(schema, dict):
            return
        for keyword, value in schema.items():
            if keyword not in self.keywords:
                continue
            subs: list[Any] = []
            if keyword in _DESCENDING_MAPS and isinstance(value, dict):
                subs = list(value.values())
            elif keyword in _DESCENDING_SINGLE:
                subs = [value]
            elif keyword == "items" or keyword in _DESCENDING_LISTS:
                subs = value if isinstance(value, list) else [value]
            for sub in subs:
                child = self._child(sub, resolver)
                if child is not None:
                    yield child

    # -- counting -----------------------------------------------------------------------
    def run(self) -> Expansion:
        worst, where = 0, self.start
        queue, seen = deque([self.start]), {self.start}
        while queue:
            key = queue.popleft()
            try:
                applied = self._applied(key)
            except _Loop as loop:
                return Expansion(0, self._pointer(key), loop=loop.pointer)
            if applied > MAX_APPLIED:
                return self._explain(key, applied)
            if applied > worst:
                worst, where = applied, key
            for member in chain(self._members(key), self._descending(key)):
                if member not in seen:
                    seen.add(member)
                    queue.append(member)
        return Expansion(worst, self._pointer(where), self._ref(where))

    def _applied(self, start: Key) -> int:
        """Subschemas applied in place to a value checked against `start`, itself included
        (iterative depth-first, each subschema counted once; _Loop on an in-place cycle)."""
        if start in self.cost:
            return self.cost[start]
        active: dict[Key, int] = {start: 0}  # on the current path -> frame index
        # frame: key, groups, group index, member index, total so far, best of this group,
        # and the keyword that led here
        frames: list[list[Any]] = [[start, self._in_place(start), 0, 0, 1, 0, ""]]
        while frames:
            frame = frames[-1]
            key, groups = frame[0], frame[1]
            if frame[2] == len(groups):
                frames.pop()
                del active[key]
                self.cost[key] = min(frame[4], CAP)
                if frames:
                    frames[-1][5] = max(frames[-1][5], self.cost[key])
                    frames[-1][3] += 1
                continue
            where, members = groups[frame[2]]
            if frame[3] == len(members):
                frame[4] = min(frame[4] + frame[5], CAP)
                frame[2], frame[3], frame[5] = frame[2] + 1, 0, 0
                continue
            member = members[frame[3]]
            if member in self.cost:
                frame[5] = max(frame[5], self.cost[member])
                frame[3] += 1
            elif member in active:
                raise _Loop(_loop_keyword(where, frames[active[member] + 1 :]))
            else:
                active[member] = len(frames)
                frames.append([member, self._in_place(member), 0, 0, 1, 0, where])
        return self.cost[start]

    def _explain(self, key: Key, applied: int) -> Expansion:
        """Name the subschema applied most often to a value checked against `key`: count
        the in-place paths to each subschema, in topological order."""
        order: list[Key] = []
        done: set[Key] = {key}
        stack: list[tuple[Key, Iterator[Key]]] = [(key, self._members(key))]
        while stack:
            node, members = stack[-1]
            member = next(members, None)
            if member is None:
                stack.pop()
                order.append(node)
            elif member not in done:
                done.add(member)
                stack.append((member, self._members(member)))
        paths = {key: 1}
        for node in reversed(order):
            for member in self._members(node):
                paths[member] = min(paths.get(member, 0) + paths[node], CAP)
        del paths[key]
        # the most paths; among equals, the deepest (first in post-order)
        rank = {node: index for index, node in enumerate(order)}
        repeated = max(paths, key=lambda k: (paths[k], -rank[k]), default=None)
        where = (self._pointer(key), self._ref(key))
        if repeated is None or paths[repeated] < 2:
            return Expansion(applied, *where)
        return Expansion(applied, *where, self._pointer(repeated), paths[repeated])

    def _members(self, key: Key) -> Iterator[Key]:
        for _, members in self._in_place(key):
            yield from members

    def _pointer(self, key: Key) -> str:
        return self.pointers.get(key[0], "?")

    def _ref(self, key: Key) -> str | None:
        schema = self.nodes[key][0]
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        return ref if isinstance(ref, str) else None


def _in_place_values(keyword: str, value: Any, schema: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(pointer suffix, subschema) for each subschema an in-place keyword applies."""
    token = escape_token(keyword)
    if keyword in _IN_PLACE_LISTS and isinstance(value, list):
        for index, sub in enumerate(value):
            yield f"{token}/{index}", sub
    elif keyword in _IN_PLACE_SINGLE:
        yield token, value
        if keyword == "if":  # jsonschema's `if` applies `then` or `else` too
            for branch in ("then", "else"):
                if branch in schema:
                    yield branch, schema[branch]
    elif keyword in _IN_PLACE_MAPS and isinstance(value, dict):
        for name, sub in value.items():
            yield f"{token}/{escape_token(str(name))}", sub
    elif keyword == "extends":  # draft 3
        subs = value if isinstance(value, list) else [value]
        for index, sub in enumerate(subs):
            yield f"{token}/{index}" if isinstance(value, list) else token, sub
    elif keyword in ("type", "disallow") and isinstance(value, list):  # draft 3 schemas
        for index, sub in enumerate(value):
            if isinstance(sub, dict):
                yield f"{token}/{index}", sub


def _loop_keyword(closing: str, path: list[list[Any]]) -> str:
    """The reference that makes the loop: the last one taken on it, else the closing keyword."""
    taken = [frame[6] for frame in path] + [closing]
    for where in reversed(taken):
        if where.rsplit("/", 1)[-1] in _REFS:
            return str(where)
    return closing
