"""What `toolsel serve` takes and answers, as pydantic models: FastAPI reads every request
body and query with them, and writes `/openapi.json` from them.

A key a body or query does not take is refused (422, with a suggestion): a typo such as
`catgories` would otherwise be ignored and the answer would look right. Values are checked
by `toolsel.serve.values`, one message naming the key; an absent required key reads as
null. Versioned documents (rank, lint, ...) are described by their published JSON Schemas.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    model_validator,
)

from toolsel.ranking.options import Method
from toolsel.registry.model import Permission
from toolsel.schemas import Output, schema_name, schema_text
from toolsel.serve.limits import MAX_NAME, MAX_QUERY, MAX_SELECT_NAMES
from toolsel.serve.values import (
    BadValue,
    Check,
    choice,
    flag,
    integer,
    number,
    optional,
    optional_text,
    shown,
    stored_text,
    strings,
    text,
    timestamp,
)


def checked(check: Check[Any], *documented: Any) -> BeforeValidator:
    """`check(value, key)` as a field's validator (`documented`: the input type, when it is
    not the field's)."""
    return BeforeValidator(
        lambda value, info: check(value, info.field_name or ""),
        *documented,
    )


def short_text(limit: int, hint: str = "") -> Check[str]:
    """Text of at most `limit` characters (`hint`: what to send instead, if longer)."""

    def check(value: Any, key: str) -> str:
        found = text(value, key)
        if len(found) > limit:
            raise BadValue(f"`{key}` is {len(found)} characters long; at most {limit}{hint}")
        return found

    return check


query_text = short_text(MAX_QUERY, " (send the request, not the whole conversation)")


def tool_name(value: Any, key: str) -> str:
    return stored_text(short_text(MAX_NAME)(value, key), key)


def event_time(value: Any, key: str) -> str | None:
    """A replay event's time, as stored; a time no store can hold (not ISO 8601, outside
    the years 1-9999) is no time, so the record takes the time it is received rather than
    refusing a whole stream for one odd line."""
    try:
        return timestamp(value, key)
    except BadValue:
        return None


def provider_shape(value: Any, key: str) -> str | None:
    from toolsel.emit import EMITTERS

    if value is None:
        return None
    if value not in EMITTERS:
        raise BadValue(f"emit must be one of {', '.join(EMITTERS)}, got {shown(value)}")
    return str(value)


Text = Annotated[str, checked(text)]
OptionalText = Annotated[str | None, checked(optional_text)]
Flag = Annotated[bool, checked(flag)]
Number = Annotated[float, Field(ge=0), checked(number)]
OptionalNumber = Annotated[float | None, Field(ge=0), checked(optional(number))]
Strings = Annotated[tuple[str, ...], checked(strings, str | list[str])]
Time = Annotated[str | None, checked(timestamp)]
ToolName = Annotated[str, Field(max_length=MAX_NAME), checked(tool_name)]
Top = Annotated[int, Field(ge=1, le=1000), checked(integer(1, 1000))]
OptionalTop = Annotated[int | None, Field(ge=1, le=1000), checked(optional(integer(1, 1000)))]
PermissionLevel = Annotated[Permission | None, checked(choice(Permission))]


class Body(BaseModel):
    """A request body or query, frozen, with the policy above."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    #: what messages call it
    NAME: ClassVar[str]

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        known, required = _keys(cls)
        if not known.issuperset(data):
            from toolsel.suggest import did_you_mean

            key = next(str(key) for key in data if key not in known)
            raise BadValue(
                f"{cls.NAME} does not take `{key[:40]}`{did_you_mean(key, sorted(known))}; "
                f"it takes {', '.join(sorted(known))}"
            )
        return data if required.keys() <= data.keys() else required | data


@functools.cache
def _keys(body: type[Body]) -> tuple[frozenset[str], dict[str, None]]:
    """The keys `body` takes, and those it requires (as null, for an absent one)."""
    fields = {field.alias or name: field for name, field in body.model_fields.items()}
    return frozenset(fields), {key: None for key, field in fields.items() if field.is_required()}


class RankRequest(Body):
    """A prompt to rank the registry's tools for (`select:A,B` looks tools up)."""

    NAME = "/v1/rank"
    query: Annotated[str, Field(max_length=MAX_QUERY), checked(query_text)]
    with_deps: Flag = Field(False, description="for a `select:` query: add what they require")
    method: Annotated[Method, checked(choice(Method, Method.AUTO))] = Method.AUTO
    top: OptionalTop = None
    permission: PermissionLevel = None
    categories: Strings = ()
    tags: Strings = ()
    include_deprecated: Flag = False
    min_score: Number = 0.0
    min_strength: Number = 0.0
    explain: Flag = False


class SelectRequest(Body):
    """Tools to load by name (or a `select:` query)."""

    NAME = "/v1/select"
    names: Strings = ()
    query: Annotated[str | None, checked(text)] = None
    tool_use_id: OptionalText = None
    with_deps: Flag = False
    pending_servers: Strings = ()

    @model_validator(mode="after")
    def _a_lookup(self) -> SelectRequest:
        from toolsel.text import is_select

        if self.query is None and not self.names:
            raise BadValue("`names` must be a list of strings")
        if not is_select(self.lookup):
            raise BadValue("`query` must start with select:, or give `names`", 400)
        if self.lookup.count(",") >= MAX_SELECT_NAMES:
            raise BadValue(f"at most {MAX_SELECT_NAMES} names per select")
        return self

    @property
    def lookup(self) -> str:
        """The `select:` query asked for."""
        return self.query if self.query is not None else "select:" + ",".join(self.names)


class ValidateRequest(Body):
    """A call to check before it is made."""

    NAME = "/v1/validate"
    tool: Text
    input: Any = Field(description="the call's arguments, an object")
    permission: PermissionLevel = None
    session: OptionalText = None

    @model_validator(mode="before")
    @classmethod
    def _has_input(cls, data: Any) -> Any:
        if isinstance(data, dict) and "input" not in data:
            raise BadValue("missing `input` (the call's arguments, an object)", 400)
        return data


class UsageRecordBody(Body):
    """How one call went."""

    NAME = "a usage record"
    tool: ToolName
    ok: Flag
    latency_ms: OptionalNumber = None
    session: OptionalText = None
    error: OptionalText = None
    at: Time = Field(None, description="ISO 8601; default: when it is received")
    id: OptionalText = Field(None, description="a record whose id is stored is not stored again")


class ReplayEvent(BaseModel):
    """A line of `toolsel replay --format jsonl` (`Output.REPLAY_EVENT`): a
    `tool_result` is one call's record; a `tool_start` records nothing (its result does).

    Unlike a usage record, a key this model does not know is ignored, not refused: the
    event is a versioned document that gains fields within v1, and a stream written by a
    newer toolsel must still be taken whole."""

    NAME: ClassVar[str] = "a replay event"
    model_config = ConfigDict(extra="ignore", frozen=True)
    schema_: str = Field(alias="schema")
    event: Literal["tool_start", "tool_result"]
    id: Any
    tool: Annotated[str | None, checked(optional(tool_name))] = None
    file: OptionalText = None
    is_error: Annotated[bool | None, checked(optional(flag))] = None
    latency_ms: OptionalNumber = None
    at: Annotated[str | None, checked(event_time)] = Field(
        None, description="the call's own time (ISO 8601), when the transcript gave one"
    )
    copied: Flag = Field(False, description="a resumed session's copy of an earlier call")

    @model_validator(mode="before")
    @classmethod
    def _versioned(cls, data: Any) -> Any:
        expected = schema_name(Output.REPLAY_EVENT)
        if isinstance(data, dict) and data.get("schema") != expected:
            raise BadValue(f"`schema` must be {expected}, got {shown(data.get('schema'))}")
        return data


def as_sent(documented: Any) -> PlainValidator:
    """A value taken as it was sent, documented as `documented` (it is read later)."""
    return PlainValidator(lambda value: value, json_schema_input_type=documented)


class UsageBatch(Body):
    NAME = "/v1/usage"
    records: Annotated[Any, as_sent(list[UsageRecordBody | ReplayEvent])]


#: What POST /v1/usage takes, read by `toolsel.serve.usage.parse_records`: on a worker,
#: one record at a time, each error naming its record.
USAGE_BODY = UsageRecordBody | ReplayEvent | list[UsageRecordBody | ReplayEvent] | UsageBatch


class AnalyticsQuery(Body):
    """The window (default: the last 7 days, from the start of the hour) and session."""

    NAME = "/v1/analytics"
    since: Annotated[str | None, checked(lambda v, key: v if v == "all" else timestamp(v, key))] = (
        Field(None, description="ISO 8601, or `all`")
    )
    until: Time = None
    session: Annotated[str | None, checked(lambda value, _: value or None)] = None


class ToolsQuery(Body):
    NAME = "/v1/tools"
    emit: Annotated[str | None, checked(provider_shape)] = Field(
        None, description="a provider's shape"
    )


# -- the reference design's bodies, in its own (camelCase) names (`toolsel.serve.compat`) -----


class AgentSelectRequest(Body):
    NAME = "/agent/select-tools"
    message: Text
    maxTools: Top = 8
    permissionLevel: Annotated[Permission, checked(choice(Permission, Permission.WRITE))] = (
        Permission.WRITE
    )


class CallOutcome(Body):
    NAME = "a toolCallHistory entry"
    name: Text
    success: Flag


def history(value: Any, key: str) -> Any:
    if value is not None and not isinstance(value, list):
        raise BadValue(f"`{key}` must be a list of {{name, success}}")
    return value


class AgentValidateRequest(Body):
    NAME = "/agent/validate"
    tool: Text
    toolCallHistory: Annotated[list[CallOutcome] | None, checked(history)] = None
    userId: Any = None


class AgentUsageRequest(Body):
    NAME = "/agent/record-usage"
    tool: Text
    success: Flag
    latencyMs: OptionalNumber = None


# -- answers that are not versioned documents --------------------------------------------------


class Problem(BaseModel):
    """Every error: one message, the status, and for a refusal programs tell apart, why."""

    error: str
    status: int
    reason: str | None = None


class Health(BaseModel):
    ok: bool


class Readiness(BaseModel):
    ready: bool
    registry_version: int
    tools: int
    last_reload: str = Field(description="when the live registry was loaded")
    last_reload_error: str | None
    store_error: str | None
    index_ready: bool = Field(
        description="the ranking index is made (at start it is made while the server "
        "already answers; until then `ready` is false)"
    )


class Score(BaseModel):
    name: str
    score: float


class AgentSelection(BaseModel):
    tools: list[dict[str, Any]] = Field(description="OpenAI function schemas")
    method: str
    scores: list[Score]


class AgentVerdict(BaseModel):
    """`{valid: true}`; 403 `{allowed: false, reason}`; 400 `{valid: false, reason}`."""

    valid: bool | None = None
    allowed: bool | None = None
    reason: str | None = None


class AgentRecorded(BaseModel):
    recorded: bool


class AgentToolUsage(BaseModel):
    tool: str
    calls: int
    errorRate: str
    avgLatencyMs: float
    lastUsed: str
    tools: int | None = Field(None, description="in the `(other)` row: how many it sums")


# -- answers that are versioned documents ------------------------------------------------------

#: The published schemas of the documents the routes answer, in `components`.
PUBLISHED = (Output.RANK, Output.SELECT, Output.VALIDATE, Output.USAGE, Output.STATS, Output.TOOLS)


def documents(*outputs: Output, one: bool = False, provider: bool = False) -> dict[int | str, Any]:
    """`responses=` of a route answering one of `outputs` (`one`: one tool of
    `toolsel.tools`), or with `provider`, a provider's request shape (`?emit=`)."""
    part = "/properties/tools/items" if one else ""
    shapes: list[dict[str, Any]] = [
        {"$ref": f"#/components/schemas/toolsel.{output.value}{part}"} for output in outputs
    ]
    if provider:
        shapes.append({"type": "object", "description": "with `?emit=`: a provider's shape"})
    schema = shapes[0] if len(shapes) == 1 else {"anyOf": shapes}
    return {200: {"description": "Answered", "content": {"application/json": {"schema": schema}}}}


def published_schemas() -> dict[str, Any]:
    """PUBLISHED's schemas as published, named `toolsel.<output>`, their `$defs` referred to
    where they now stand."""
    import json

    schemas = {}
    for output in PUBLISHED:
        name = f"toolsel.{output.value}"
        published = schema_text(output.value).replace(
            '"#/$defs/', f'"#/components/schemas/{name}/$defs/'
        )
        schema = json.loads(published)
        del schema["$schema"], schema["$id"]  # OpenAPI's dialect; an $id would move the refs
        schemas[name] = schema
    return schemas
