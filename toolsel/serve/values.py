"""What a value in a request to `toolsel serve` must be: each check takes the value and its
key and returns the value as used, or raises `BadValue` with one message naming the key
(`toolsel.serve.models` makes them its validators); and `RequestError`, the one error of a
request that cannot be served (an HTTP 4xx or 5xx).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic_core import ErrorDetails

T = TypeVar("T")
Model = TypeVar("Model", bound="BaseModel")
Check = Callable[[Any, str], T]


class RequestError(Exception):
    """A request that cannot be served as sent: the message says what is wrong (HTTP 4xx);
    `reason`, when given, names the refusal for programs (`"analytics_budget"`)."""

    def __init__(self, message: str, status: int = 400, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason


class BadValue(RequestError, ValueError):
    """A value that cannot be used (422 unless said): a ValueError, so that pydantic reports
    it as its field's error, and `request_error` finds it there."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message, status)


def read(model: type[Model], data: Any) -> Model:
    """`data` as a `model`, or the RequestError that says what is wrong with it."""
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise request_error(error.errors(include_url=False)) from None


def request_error(errors: Sequence[ErrorDetails]) -> RequestError:
    """The first of a body's validation errors as a RequestError (FastAPI's locations start
    with `body`, `query` or `path`)."""
    error = errors[0]
    cause = error.get("ctx", {}).get("error")
    if isinstance(cause, RequestError):
        return cause
    where = [str(part) for part in error["loc"] if part not in ("body", "query", "path")]
    if not where:  # not an object, or null
        return BadValue("request body must be a JSON object")
    if error["type"] in ("model_type", "model_attributes_type"):
        return BadValue(f"`{'.'.join(where)}` must be an object, got {kind(error['input'])}")
    return BadValue(f"`{'.'.join(where)}`: {error['msg']}")


# -- the checks -----------------------------------------------------------------------------


def text(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadValue(f"`{key}` must be a non-empty string, got {kind(value)}")
    return value


def optional_text(value: Any, key: str) -> str | None:
    """None, or text a store can keep: no NUL (PostgreSQL cannot hold one in text), nor a
    lone surrogate (not UTF-8)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadValue(f"`{key}` must be a string, got {kind(value)}")
    return stored_text(value, key)


def stored_text(value: str, key: str) -> str:
    if "\x00" in value:
        raise BadValue(f"`{key}` contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadValue(f"`{key}` is not valid Unicode (a lone surrogate)") from None
    return value


def flag(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise BadValue(f"`{key}` must be true or false, got {kind(value)}")
    return value


def number(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadValue(f"`{key}` must be a number >= 0, got {kind(value)}")
    if value < 0:
        raise BadValue(f"`{key}` must be a number >= 0, got {value}")
    return float(value)


def integer(low: int, high: int) -> Check[int]:
    def check(value: Any, key: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise BadValue(f"`{key}` must be an integer from {low} to {high}")
        return value

    return check


def strings(value: Any, key: str) -> tuple[str, ...]:
    """A list of strings (one string for a list of one); null: none."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise BadValue(f"`{key}` must be a list of strings")
    return tuple(value)


def choice(kind_: type[Enum], default: Any = None) -> Check[Any]:
    def check(value: Any, key: str) -> Any:
        if value is None:
            return default
        try:
            return kind_(value)
        except ValueError:
            choices = ", ".join(str(c.value) for c in kind_)
            raise BadValue(f"`{key}` must be one of {choices}, got {shown(value)}") from None

    return check


def optional(check: Check[T]) -> Check[T | None]:
    """`check`, with null allowed (and kept as None)."""
    return lambda value, key: None if value is None else check(value, key)


def timestamp(value: Any, key: str) -> str | None:
    """An ISO 8601 time as stored (UTC, `Z`), or None."""
    from toolsel.serve.store import stored_time

    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise BadValue(f"`{key}` must be an ISO 8601 time")
    try:
        return stored_time(value)
    except (ValueError, OverflowError) as error:
        raise BadValue(
            f"`{key}` must be an ISO 8601 time between years 1 and 9999, got {shown(value)} "
            f"({one_line(str(error), 120)})"
        ) from None


def shown(value: Any, limit: int = 80) -> str:
    """A value quoted in an error message, cut short (an error must not echo a megabyte)."""
    return clipped(repr(value), limit)


def clipped(text: str, limit: int) -> str:
    """`text`, cut to `limit` characters, the last one `…`, when longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int) -> str:
    """`text` with its whitespace runs as single spaces, `clipped`."""
    return clipped(" ".join(text.split()), limit)


def kind(value: Any) -> str:
    """A JSON value's kind, as messages name it."""
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else "null"
    )
