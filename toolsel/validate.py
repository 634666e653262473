"""Check a tool call's input against the tool's JSON Schema, safely.

Nothing is fetched: a reference resolves only inside the schema itself (a `referencing`
registry with no retrieval); a reference anywhere else is reported, never followed.
Patterns run in RE2 (`toolsel.regex`), in time linear in the input. A schema or an input
nested too deep to check within Python's stack is reported as not checked, never passed.
Work is bounded twice. Before anything is validated, a schema that applies too many
subschemas to one value (shared definitions that each reference the next level twice, 2^L
after L levels), or loops in place, is reported as too costly (`toolsel.expansion`). While
validating, every keyword applied counts against a budget proportional to the input's size,
and an optional deadline stops the work: a call over either is reported, never left running.
Nothing here raises: every outcome is an `InputProblem` or None.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from toolsel.jsontext import json_text as json_text  # lint reads it from here
from toolsel.regex import UnsafePattern, search

#: Deeper schemas (in JSON levels) or inputs are reported as not checked: jsonschema
#: validates recursively, and about 200 levels exhaust Python's stack.
MAX_SCHEMA_NESTING = 100
MAX_INPUT_NESTING = 100
#: Validation steps (keywords applied, patterns searched) allowed per input: the floor, plus
#: so many per value in the input (each object, array and scalar, and each 64 characters of
#: a string). Real schemas on big inputs take under 7 per value (the draft-07 metaschema on
#: 400 CloudFormation schemas at most 2.8, Swagger 2.0's on jsonschema's issue-232 document
#: 6.6); a step costs 10 to 40 microseconds, so the floor is a fraction of a second.
STEP_FLOOR = 20_000
STEPS_PER_VALUE = 100
#: Steps between two readings of the clock, when the check has a deadline.
CLOCK_EVERY = 64
#: Applicators whose every subschema is a step: `allOf` of a thousand `{}` is work too.
_PER_SUBSCHEMA = frozenset({"allOf", "anyOf", "oneOf"})


@dataclass(frozen=True, slots=True)
class InputProblem:
    rule: str  # invalid-input | external-ref | not-checked
    message: str


class _NotChecked(Exception):
    """Raised from inside validation when the input cannot be checked safely."""


class _Budget:
    """One check's allowance of steps and its deadline (time.monotonic()), if any. Keywords
    add to `steps` (`_spend`) and call `ring` when it reaches `alarm`: the step past the
    limit, or the next reading of the clock."""

    __slots__ = ("alarm", "deadline", "limit", "steps")

    def __init__(self, limit: int, deadline: float | None) -> None:
        self.limit, self.deadline = limit, deadline
        self.steps = 0
        self.alarm = 0 if deadline is not None else limit + 1

    def ring(self) -> None:
        if self.steps > self.limit:
            raise _NotChecked(f"schema too costly to validate (over {self.limit:,} steps)")
        if self.deadline is not None:
            if time.monotonic() > self.deadline:
                raise _NotChecked(f"validation took too long (stopped after {self.steps:,} steps)")
            self.alarm = min(self.limit + 1, self.steps + CLOCK_EVERY)


#: The budget of the check running in this thread (or task): one InputValidator may check
#: several inputs at once, each against its own budget.
_BUDGET: ContextVar[_Budget | None] = ContextVar("toolsel_validation_budget", default=None)


def _spend(steps: int = 1) -> None:
    budget = _BUDGET.get()
    if budget is not None:
        budget.steps += steps
        if budget.steps >= budget.alarm:
            budget.ring()


def nesting(value: Any) -> int:
    """How many levels of objects and arrays `value` has (iteratively, any depth)."""
    return _shape(value)[1]


def _shape(value: Any) -> tuple[int, int]:
    """(size, nesting): size counts every value, and each 64 characters of a string value."""
    deepest = size = 0
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        size += 1
        if isinstance(current, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in current.values())
        elif isinstance(current, list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in current)
        elif isinstance(current, str):
            size += len(current) >> 6
    return size, deepest


def external_refs(schema: Any) -> list[str]:
    """Every `$ref` (or `$dynamicRef`) that points outside the schema itself, in the order
    `toolsel.expansion.references` finds them."""
    from toolsel.expansion import references

    return [ref for ref in references(schema, ("$ref", "$dynamicRef")) if not ref.startswith("#")]


class InputValidator:
    """Validates inputs against one schema; built once per tool and reused."""

    def __init__(self, schema: Any) -> None:
        built = _build(schema)
        self._problem = built if isinstance(built, InputProblem) else None
        self._validator: Any = None if self._problem else built

    def check(self, value: Any, deadline: float | None = None) -> InputProblem | None:
        """None when `value` is valid; otherwise what is wrong, or why it was not checked.
        `deadline` (a time.monotonic() value) stops the work once it has passed."""
        if self._problem is not None:
            return self._problem
        size, depth = _shape(value)
        if depth > MAX_INPUT_NESTING:
            return _unchecked(
                f"input too deep to validate ({depth} levels, max {MAX_INPUT_NESTING})"
            )
        token = _BUDGET.set(_Budget(STEP_FLOOR + STEPS_PER_VALUE * size, deadline))
        try:
            error = next(iter(self._validator.iter_errors(value)), None)
        except _NotChecked as unchecked:
            return _unchecked(str(unchecked))
        except RecursionError:
            return _unchecked("schema and input too deep to validate")
        except Exception as failure:  # referencing's Unresolvable and kin: a dangling $ref
            ref = getattr(failure, "ref", None)
            reason = f"$ref {ref!r} points at nothing in the schema" if ref else _brief(failure)
            return _unchecked(f"the schema cannot be applied: {reason}")
        finally:
            _BUDGET.reset(token)
        if error is None:
            return None
        path = "/" + "/".join(str(p) for p in error.absolute_path)
        return InputProblem("invalid-input", f"input at {path} is invalid: {error_text(error)}")


def _brief(failure: Exception) -> str:
    """A one-line reason of at most 200 characters (a message may quote a huge input)."""
    text = " ".join(str(getattr(failure, "message", None) or failure).split())
    return text[:200] + ("…" if len(text) > 200 else "")


#: How an error of each keyword reads: `{value} is {phrase} {expected}`.
_PHRASES = {
    "type": "not of type",
    "enum": "not one of",
    "const": "not",
    "minimum": "less than the minimum of",
    "maximum": "more than the maximum of",
    "exclusiveMinimum": "not more than the exclusive minimum of",
    "exclusiveMaximum": "not less than the exclusive maximum of",
    "minLength": "shorter than",
    "maxLength": "longer than",
    "minItems": "fewer items than",
    "maxItems": "more items than",
    "multipleOf": "not a multiple of",
}


def error_text(error: Any) -> str:
    """A jsonschema error in one line, with values written as JSON, not as Python
    (`null is not of type "array"`, not `None is not of type 'array'`), and any secret a
    value holds masked (`toolsel.redact`): a call's arguments can carry a token."""
    from toolsel.redact import mask_text

    keyword, expected, value = error.validator, error.validator_value, error.instance
    required = keyword == "required" and isinstance(value, dict) and isinstance(expected, list)
    missing = [name for name in expected if name not in value] if required else []
    if keyword in _PHRASES:
        text = f"{json_text(value)} is {_PHRASES[keyword]} {json_text(expected)}"
    elif missing:
        text = f"{json_text(missing[0])} is a required property"
    else:
        text = _brief(error)
    return mask_text(text)


def _unchecked(reason: str) -> InputProblem:
    return InputProblem("not-checked", reason)


def _build(schema: Any) -> Any:
    """A jsonschema validator for the schema's dialect (`_compiled`), or the InputProblem
    that says why the schema cannot be checked."""
    if not isinstance(schema, dict):
        return _unchecked("the tool's parameters are not a schema")
    depth = nesting(schema)
    if depth > MAX_SCHEMA_NESTING:
        return _unchecked(f"schema too deep to validate ({depth} levels, max {MAX_SCHEMA_NESTING})")
    outside = external_refs(schema)
    if outside:
        return InputProblem(
            "external-ref",
            f"the schema refers outside itself ($ref {outside[0]!r}); toolsel never "
            "fetches a reference, so this input was not checked",
        )
    return _compiled(schema)


def _compiled(schema: dict[str, Any]) -> Any:
    """A validator with the regex keywords running in RE2, every keyword counted against the
    check's budget, and an empty `referencing` registry (nothing is retrieved); an
    InputProblem when the schema is invalid or too costly to apply."""
    from jsonschema import validators
    from jsonschema.exceptions import SchemaError
    from referencing import Registry

    from toolsel.expansion import measure, references, root_resolver
    from toolsel.metaschema import passes_fast_check

    base = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        if not passes_fast_check(schema):  # lint's compiled draft-07 check, ~70x faster
            base.check_schema(schema)
    except SchemaError as error:
        return _unchecked(f"the tool's parameters are not valid JSON Schema: {error.message}")
    except RecursionError:
        return _unchecked("schema too deep to validate")
    safe = _safe_class(base)
    try:
        validator = safe(schema, registry=Registry(), _resolver=root_resolver(base, schema))
        expansion = measure(schema, validator) if next(references(schema), None) else None
    except Exception as failure:  # referencing refusing an `$id` or anchor
        return _unchecked(f"the schema cannot be applied: {_brief(failure)}")
    if expansion is not None and expansion.too_costly:
        return _unchecked(f"schema too costly to validate: {expansion.reason()}")
    return validator


@functools.cache
def _safe_class(base: Any) -> Any:
    """`base` with the regex keywords in RE2 and every keyword counted: one class per
    dialect, built once (building it per schema cost more than most checks)."""
    from jsonschema import validators

    keywords = {**base.VALIDATORS, **_safe_keywords(base)}
    counted = {
        name: _counted(keyword, per_subschema=name in _PER_SUBSCHEMA)
        for name, keyword in keywords.items()
    }
    safe = validators.extend(base, counted)  # type: ignore[no-untyped-call]
    # jsonschema's evolve switches to the stock validator of any subschema's `$schema`,
    # which would run its patterns in `re`, uncounted: the root's dialect applies throughout
    safe.evolve = _evolving_in_place(safe)
    return safe


def _evolving_in_place(cls: Any) -> Callable[..., Any]:
    """jsonschema's `evolve` (a validator for a subschema), keeping the class: jsonschema
    switches to the stock validator of a subschema's own `$schema`."""
    import attrs

    fields = tuple((field.name, field.alias) for field in attrs.fields(cls) if field.init)

    def evolve(self: Any, **changes: Any) -> Any:
        for name, alias in fields:
            if alias not in changes:
                changes[alias] = getattr(self, name)
        return cls(**changes)

    return evolve


def _counted(keyword: Callable[..., Any], *, per_subschema: bool) -> Callable[..., Any]:
    """The keyword, counting its steps against the running check's budget when applied:
    one, or one per subschema of an applicator list."""
    current = _BUDGET.get

    def applied(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        budget = current()  # `_spend()`, inline: this runs for every keyword applied
        if budget is not None:
            budget.steps += 1
            if budget.steps >= budget.alarm:
                budget.ring()
        return keyword(validator, value, instance, schema)

    def applied_each(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        _spend(len(value) if isinstance(value, list) and value else 1)
        return keyword(validator, value, instance, schema)

    return applied_each if per_subschema else applied


def _matches(pattern: str, text: str) -> bool:
    """RE2's search, counted by the text's length; UnsafePattern means not checked."""
    _spend(1 + (len(text) >> 6))
    try:
        return search(pattern, text)
    except UnsafePattern as unsafe:
        raise _NotChecked(str(unsafe)) from None


def _safe_keywords(base: Any) -> dict[str, Callable[..., Any]]:
    """The keywords jsonschema would run unsafely: patterns in Python's `re` (exponential
    on some patterns), and `uniqueItems` comparing every pair of items."""
    keywords: dict[str, Callable[..., Any]] = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "uniqueItems": _unique_items,
    }
    original_unevaluated: Any = base.VALIDATORS.get("unevaluatedProperties")
    if original_unevaluated is not None:

        def unevaluated_properties(validator: Any, *args: Any) -> Iterator[Any]:
            # jsonschema evaluates patternProperties here with Python's `re`
            if "patternProperties" in str(validator.schema):
                raise _NotChecked("unevaluatedProperties with patternProperties is not checked")
            yield from original_unevaluated(validator, *args)

        keywords["unevaluatedProperties"] = unevaluated_properties
    return keywords


def _pattern(validator: Any, expected: str, instance: Any, _: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not _matches(expected, instance):
        from jsonschema import ValidationError

        yield ValidationError(f"{json_text(instance)} does not match {json_text(expected)}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, _: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for expected, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(expected, key):
                yield from validator.descend(value, subschema, path=key, schema_path=expected)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    declared = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        key
        for key in instance
        if key not in declared and not any(_matches(p, key) for p in patterns)
    ]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        from jsonschema import ValidationError

        listed = ", ".join(json_text(k) for k in sorted(extras, key=str))
        yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")


def _unique_items(validator: Any, unique: Any, instance: Any, _: Any) -> Iterator[Any]:
    if not (unique and validator.is_type(instance, "array")):
        return
    _spend(len(instance))
    seen: dict[Any, int] = {}
    for index, item in enumerate(instance):
        first = seen.setdefault(json_key(item), index)
        if first != index:
            from jsonschema import ValidationError

            yield ValidationError(f"items {first} and {index} are equal (uniqueItems)")
            return


def json_key(value: Any) -> Any:
    """A hashable key equal for values JSON Schema calls equal (1 and 1.0, objects in any key
    order) and different for those it does not (true and 1): duplicates are found in one
    pass, however long the enum."""
    if isinstance(value, bool) or value is None:
        return ("b", value)
    if isinstance(value, (int, float)):
        return ("n", value)  # 1 == 1.0 and hash(1) == hash(1.0)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple(json_key(item) for item in value))
    if isinstance(value, dict):
        return ("d", frozenset((key, json_key(item)) for key, item in value.items()))
    return ("r", repr(value))
