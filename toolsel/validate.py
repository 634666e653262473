"""Check a tool call's input against the tool's JSON Schema, safely.

Nothing is fetched: a reference resolves only inside the schema itself (a `referencing`
registry with no retrieval); a reference anywhere else is reported, never followed.
Patterns run in RE2 (`toolsel.regex`), in time linear in the input. A schema or an input
nested too deep to check within Python's stack is reported as not checked, never passed.
Nothing here raises: every outcome is an `InputProblem` or None.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolsel.regex import UnsafePattern, search

#: Deeper schemas (in JSON levels) or inputs are reported as not checked: jsonschema
#: validates recursively, and about 200 levels exhaust Python's stack.
MAX_SCHEMA_NESTING = 100
MAX_INPUT_NESTING = 100


@dataclass(frozen=True, slots=True)
class InputProblem:
    rule: str  # invalid-input | external-ref | not-checked
    message: str


class _NotChecked(Exception):
    """Raised from inside validation when the input cannot be checked safely."""


def nesting(value: Any) -> int:
    """How many levels of objects and arrays `value` has (iteratively, any depth)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in current.values())
        elif isinstance(current, list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in current)
    return deepest


def external_refs(schema: Any) -> list[str]:
    """Every `$ref` (or `$dynamicRef`) that points outside the schema itself."""
    found: list[str] = []
    stack = [schema]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            for key, value in current.items():
                if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                    if not value.startswith("#"):
                        found.append(value)
                else:
                    stack.append(value)
        elif isinstance(current, list):
            stack.extend(current)
    return found


class InputValidator:
    """Validates inputs against one schema; built once per tool and reused."""

    def __init__(self, schema: Any) -> None:
        self._problem: InputProblem | None = None
        self._validator: Any = None
        if not isinstance(schema, dict):
            self._problem = InputProblem("not-checked", "the tool's parameters are not a schema")
            return
        depth = nesting(schema)
        if depth > MAX_SCHEMA_NESTING:
            self._problem = InputProblem(
                "not-checked",
                f"schema too deep to validate ({depth} levels, max {MAX_SCHEMA_NESTING})",
            )
            return
        outside = external_refs(schema)
        if outside:
            self._problem = InputProblem(
                "external-ref",
                f"the schema refers outside itself ($ref {outside[0]!r}); toolsel never "
                "fetches a reference, so this input was not checked",
            )
            return
        self._validator = _build(schema, self)

    def check(self, value: Any) -> InputProblem | None:
        """None when `value` is valid; otherwise what is wrong, or why it was not checked."""
        if self._problem is not None:
            return self._problem
        depth = nesting(value)
        if depth > MAX_INPUT_NESTING:
            return InputProblem(
                "not-checked",
                f"input too deep to validate ({depth} levels, max {MAX_INPUT_NESTING})",
            )
        try:
            error = next(iter(self._validator.iter_errors(value)), None)
        except _NotChecked as unchecked:
            return InputProblem("not-checked", str(unchecked))
        except RecursionError:
            return InputProblem("not-checked", "schema and input too deep to validate")
        except Exception as failure:  # referencing's Unresolvable and kin: a dangling $ref
            ref = getattr(failure, "ref", None)
            reason = f"$ref {ref!r} points at nothing in the schema" if ref else _brief(failure)
            return InputProblem("not-checked", f"the schema cannot be applied: {reason}")
        if error is None:
            return None
        path = "/" + "/".join(str(p) for p in error.absolute_path)
        return InputProblem("invalid-input", f"input at {path} is invalid: {_brief(error)}")


def _brief(failure: Exception) -> str:
    """A one-line reason of at most 200 characters (a message may quote a huge input)."""
    text = " ".join(str(getattr(failure, "message", None) or failure).split())
    return text[:200] + ("…" if len(text) > 200 else "")


def _build(schema: dict[str, Any], owner: InputValidator) -> Any:
    """A jsonschema validator for the schema's dialect, with the regex keywords running in
    RE2 and an empty `referencing` registry (nothing is retrieved)."""
    from jsonschema import ValidationError, validators
    from jsonschema.exceptions import SchemaError
    from referencing import Registry

    base = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        base.check_schema(schema)
    except SchemaError as error:
        owner._problem = InputProblem(
            "not-checked", f"the tool's parameters are not valid JSON Schema: {error.message}"
        )
        return None
    except RecursionError:
        owner._problem = InputProblem("not-checked", "schema too deep to validate")
        return None

    def matches(pattern: str, text: str) -> bool:
        try:
            return search(pattern, text)
        except UnsafePattern as unsafe:
            raise _NotChecked(str(unsafe)) from None

    def pattern(validator: Any, expected: str, instance: Any, _: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not matches(expected, instance):
            yield ValidationError(f"{instance!r} does not match {expected!r}")

    def pattern_properties(validator: Any, patterns: Any, instance: Any, _: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for expected, subschema in patterns.items():
            for key, value in instance.items():
                if matches(expected, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=expected)

    def additional_properties(
        validator: Any, extra: Any, instance: Any, schema: Any
    ) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        declared = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        extras = [
            key
            for key in instance
            if key not in declared and not any(matches(p, key) for p in patterns)
        ]
        if validator.is_type(extra, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra, path=key)
        elif extra is False and extras:
            listed = ", ".join(repr(k) for k in sorted(extras, key=str))
            yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")

    def unevaluated_properties(validator: Any, *args: Any) -> Iterator[Any]:
        # jsonschema evaluates patternProperties here with Python's `re`
        if "patternProperties" in str(validator.schema):
            raise _NotChecked("unevaluatedProperties with patternProperties is not checked")
        yield from original_unevaluated(validator, *args)

    original_unevaluated: Any = base.VALIDATORS.get("unevaluatedProperties")
    keywords: dict[str, Any] = {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
    }
    if original_unevaluated is not None:
        keywords["unevaluatedProperties"] = unevaluated_properties
    safe = validators.extend(base, keywords)  # type: ignore[no-untyped-call]
    return safe(schema, registry=Registry())
