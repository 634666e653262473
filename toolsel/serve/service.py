"""What `toolsel serve` and `toolsel mcp` do, without HTTP or MCP: a warm registry snapshot
that is reloaded in the background, and one function per operation, each taking plain data
(a request body) and returning the same JSON payload as the matching CLI output.

Nothing here prints. A request's input that is wrong raises `RequestError` (a 4xx), never
anything else the caller would have to guess about.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolsel.errors import RegistryError, ToolselError
from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry.model import Permission, Registry
from toolsel.registry.paths import FileList
from toolsel.schemas import Output, schema_name
from toolsel.serve.limits import (
    ANALYTICS_TOOLS,
    MAX_BATCH,
    MAX_NAME,
    MAX_QUERY,
    MAX_SELECT_NAMES,
)
from toolsel.serve.store import UsageRecord, UsageStore, Window, now, stored_time

log = logging.getLogger("toolsel.serve")

#: How often the registry files are checked for changes (seconds).
POLL_SECONDS = 0.25


class RequestError(Exception):
    """A request that cannot be served as sent: the message says what is wrong (HTTP 4xx);
    `reason`, when given, names the refusal for programs (`"analytics_budget"`)."""

    def __init__(self, message: str, status: int = 400, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One complete registry and everything derived from it. Requests read the current
    snapshot once and use only it, so none ever sees a half-loaded registry."""

    registry: Registry
    index: PreparedIndex
    stamp: tuple[tuple[str, int, int], ...]  # (file, mtime_ns, size) it was loaded from
    version: int
    loaded_at: float = field(default_factory=time.time)
    #: one input validator per tool, built on first use and shared by every request
    validators: dict[str, Any] = field(default_factory=dict)


class Service:
    """The warm state: the current snapshot, the store, and the reloader."""

    def __init__(
        self,
        registry_paths: Sequence[Path] | None,
        store: UsageStore | None,
        *,
        namespace: bool = False,
        warm_embeddings: bool = False,
        auto_embeddings: bool = True,
        analytics_tools: int = ANALYTICS_TOOLS,
    ) -> None:
        # the paths as given (files, directories, server=PATH), expanded anew at every
        # poll, so a file added to a registry directory is loaded
        self.paths = list(registry_paths or [])
        self.namespace = namespace
        self.store = store
        self.warm_embeddings = warm_embeddings
        #: False (`serve --no-embed`): a request that names no method ranks with hybrid
        self.auto_embeddings = auto_embeddings
        #: analytics list this many tools, the most called, and sum the others
        self.analytics_tools = analytics_tools
        self.last_error: str | None = None
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        files, stamp = self._stamp()
        self.snapshot = self._load(1, files, stamp)  # raises on a bad registry at start
        self.loaded_at = _now()  # when the live registry was loaded (/readyz `last_reload`)

    # -- loading ------------------------------------------------------------------------
    def files(self) -> FileList:
        """The registry files the paths name now, named as the CLI names them
        (`--namespace`, `-r SERVER=PATH`)."""
        from toolsel.sources import registry_files

        return registry_files(self.paths or None, namespace=self.namespace)

    def _stamp(self) -> tuple[FileList, tuple[tuple[str, int, int], ...]]:
        """The files, and (file, mtime, size) for each; a file that is not a regular one
        is stamped -2, and refused by `_load` (a pipe would block the reader for ever)."""
        import stat

        files = self.files()
        found = []
        for path in files:
            try:
                info = path.stat()
            except OSError:
                found.append((str(path), -1, -1))
                continue
            if not stat.S_ISREG(info.st_mode):
                found.append((str(path), -2, -2))
            else:
                found.append((str(path), info.st_mtime_ns, info.st_size))
        return files, tuple(found)

    def _load(
        self, version: int, files: FileList, stamp: tuple[tuple[str, int, int], ...]
    ) -> Snapshot:
        """A complete snapshot of the files as they are; `stamp` was taken before reading."""
        from toolsel.graph import find_cycles, requires_graph
        from toolsel.ranking.store import load_registry_and_index

        for name, mtime, _ in stamp:
            if mtime == -2:
                raise RegistryError(
                    f"{name}: not a regular file (a pipe, socket or device)",
                    hint="serve re-reads its registry files when they change; give regular files",
                )
        registry, index = load_registry_and_index(files)
        cycles = find_cycles(requires_graph(registry))
        if cycles:
            tool = registry.get(cycles[0][0])
            where = ""
            if tool is not None:
                where = f"{registry.locate_field(tool, 'requires')}: "
            raise RegistryError(
                f"{where}requires cycle: {' -> '.join(cycles[0])}",
                hint="a tool cannot require itself, even through others; remove one edge",
            )
        if self.warm_embeddings:
            index.tool_vectors()
            index.example_vectors()
            from toolsel.embed.model import embedder

            embedder().start_loading()
        return Snapshot(registry, index, stamp, version)

    def reload_if_changed(self) -> bool:
        """Load the registry again if a file changed; keep the last good one if the new one
        is bad (the error is logged and kept for /readyz). True when a new one is live."""
        try:
            files, stamp = self._stamp()
        except ToolselError as error:  # a directory emptied, a path removed
            self._reload_failed(describe_error(error), self.snapshot.stamp)
            return False
        if stamp == self.snapshot.stamp:
            return False
        try:
            fresh = self._load(self.snapshot.version + 1, files, stamp)
        except Exception as error:  # whatever the files hold, the last good registry stays
            self._reload_failed(describe_error(error), stamp)
            return False
        self.snapshot = fresh  # one reference swap: requests see the old or the new
        self.loaded_at = _now()
        self.last_error = None
        log.info(
            "registry reloaded: version %s, %s tools", fresh.version, len(fresh.registry.tools)
        )
        return True

    def _reload_failed(self, message: str, stamp: tuple[tuple[str, int, int], ...]) -> None:
        """Log a failed reload once (not at every poll) and keep it for /readyz."""
        if message != self.last_error:
            log.error("registry reload failed; still serving version %s: %s",
                      self.snapshot.version, message)  # fmt: skip
        self.last_error = message
        # remember the bad content, so it is not reloaded until it changes again
        self.snapshot = _with_stamp(self.snapshot, stamp)

    def watch(self) -> None:
        """Poll the registry files in a background thread until `close`."""

        def loop() -> None:
            while not self._stop.wait(POLL_SECONDS):
                try:
                    self.reload_if_changed()
                except Exception:
                    log.exception("registry watcher")

        self._watcher = threading.Thread(target=loop, name="toolsel-reload", daemon=True)
        self._watcher.start()

    def close(self) -> None:
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=5)
        if self.store is not None:
            self.store.close()

    # -- operations -----------------------------------------------------------------------
    def ready(self) -> tuple[bool, dict[str, Any]]:
        """Ready when the registry is loaded and the store (if any) answers. A failed
        reload keeps the service ready on the last good registry, and says why."""
        snap = self.snapshot
        store_error = self.store.health() if self.store is not None else None
        body = {
            "ready": store_error is None,
            "registry_version": snap.version,
            "tools": len(snap.registry.tools),
            "last_reload": self.loaded_at,
            "last_reload_error": self.last_error,
            "store_error": store_error,
        }
        return store_error is None, body

    def rank(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST /v1/rank: the `toolsel.rank` document (or `toolsel.select` for a
        `select:` query), exactly as `toolsel rank --format json` prints it."""
        from toolsel.ranking.core import rank_index, rank_options
        from toolsel.ranking.options import EMBEDDING_METHODS, Method
        from toolsel.render.rank import rank_payload
        from toolsel.text import is_select

        _no_unknown_keys(body, RANK_KEYS, "/v1/rank")
        query = text_field(body, "query")
        if len(query) > MAX_QUERY:
            raise RequestError(
                f"`query` is {len(query)} characters long; at most {MAX_QUERY} (send the "
                "request, not the whole conversation)",
                422,
            )
        snap = self.snapshot
        if is_select(query):
            return self.select({"query": query, "with_deps": body.get("with_deps", False)}, snap)
        method = _choice(body, "method", Method, Method.AUTO)
        lexical = method is Method.AUTO and not self.auto_embeddings
        if lexical:
            method = Method.HYBRID
        explain = _flag(body, "explain")
        top = None
        if body.get("top") is not None:
            top = integer_field(body, "top", 0, low=1, high=1000)
        options = rank_options(
            method=method,
            top=top,
            permission=_choice(body, "permission", Permission, None),
            categories=_strings(body, "categories"),
            tags=_strings(body, "tags"),
            include_deprecated=_flag(body, "include_deprecated"),
            min_score=_number(body, "min_score", 0.0),
            min_strength=_number(body, "min_strength", 0.0),
            explain=explain,
        )
        if lexical:  # auto, as `serve --no-embed` makes it: said like any other choice
            from dataclasses import replace

            options = replace(options, requested=Method.AUTO, reason="toolsel serve --no-embed")
        vector = None
        if options.method in EMBEDDING_METHODS:  # auto, resolved: fusion with the extra
            from toolsel.embed.model import missing

            reason = missing()
            if reason is not None:
                raise RequestError(
                    f"method {options.method.value} needs toolsel[embed]: {reason}", 422
                )
            snap.index.tool_vectors()
            snap.index.example_vectors()
        try:
            result = rank_index(snap.index, query, options, query_vector=vector)
        except ToolselError as error:
            raise RequestError(str(error), 422) from None
        return rank_payload(result, explain=explain)

    def select(self, body: Mapping[str, Any], snap: Snapshot | None = None) -> dict[str, Any]:
        """POST /v1/select: the tool_reference tool_result block and the diagnostics."""
        from toolsel.render.rank import select_payload
        from toolsel.select import select_tools
        from toolsel.text import is_select

        snap = snap or self.snapshot
        if "query" in body:
            query = text_field(body, "query")
        else:
            names = _strings(body, "names", required=True)
            query = "select:" + ",".join(names)
        if not is_select(query):
            raise RequestError("`query` must start with select:, or give `names`")
        if query.count(",") >= MAX_SELECT_NAMES:
            raise RequestError(f"at most {MAX_SELECT_NAMES} names per select", 422)
        try:
            result = select_tools(
                snap.registry.tools,
                query,
                with_deps=_flag(body, "with_deps"),
                tool_use_id=_optional_text(body, "tool_use_id"),
                pending_servers=_strings(body, "pending_servers"),
            )
        except ToolselError as error:
            raise RequestError(str(error), 422) from None
        return select_payload(result)

    def validate(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST /v1/validate: the checks replay runs on a call, before it is made."""
        from toolsel.replay.checks import RegistryChecker
        from toolsel.replay.events import Call

        tool = text_field(body, "tool")
        if "input" not in body:
            raise RequestError("missing `input` (the call's arguments, an object)")
        permission = _choice(body, "permission", Permission, None)
        session = _optional_text(body, "session")
        snap = self.snapshot
        checker = RegistryChecker(snap.registry, permission, validators=snap.validators)
        if session is not None and self.store is not None:
            with _store_errors():
                checker.called, checker.succeeded = self.store.session_tools(session)
        violations = checker.check(Call("validate", tool, body["input"]), 0)
        return {
            "schema": VALIDATE_SCHEMA,
            "tool": tool,
            "ok": not violations,
            "violations": [{"rule": v.rule, "message": v.message} for v in violations],
        }

    def usage(self, body: Any) -> dict[str, Any]:
        """POST /v1/usage: one record, a list of them, `{"records": [...]}`, or the
        `tool_result` events of `toolsel replay --format jsonl`."""
        if self.store is None:
            raise RequestError("this server records no usage (no store)", 503)
        records = parse_records(body)
        with _store_errors():
            stored = self.store.record(records)
        return {"schema": USAGE_SCHEMA, "received": len(records), "stored": stored}

    def analytics(self, query: Mapping[str, str]) -> dict[str, Any]:
        """GET /v1/analytics: the `toolsel.stats` payload over the stored records of a
        window (default: the last 7 days, from the start of the hour; `since=all`: all),
        from the roll-ups, and the window it covers; its `analytics_tools` most-called
        tools, the others summed in `other` (`toolsel.serve.analytics`)."""
        from toolsel.render.stats import stats_payload
        from toolsel.serve.analytics import bounded_stats, other_note, other_payload, within_budget

        if self.store is None:
            raise RequestError("this server records no usage (no store)", 503)
        window = analytics_window(query)
        registry = self.snapshot.registry
        with _store_errors(), within_budget():  # a read stopped at the budget says so
            totals = self.store.top_totals(window, self.analytics_tools, registry.names)
        payload = stats_payload(bounded_stats(totals, registry))
        payload["window"] = {"since": window.since, "until": window.until}
        other = other_payload(totals.rest)
        if other is not None:
            payload["other"] = other
            payload["notes"].append(other_note(totals.rest, len(totals.tools)))
        return payload

    def tools(self, emit: str | None, name: str | None = None) -> Any:
        """GET /v1/tools[/{name}]: definitions in the registry's own shape, or a provider's."""
        from toolsel.emit import EMITTERS

        registry = self.snapshot.registry
        chosen = registry.tools
        if name is not None:
            tool = registry.get(name)
            if tool is None:
                from toolsel.suggest import did_you_mean

                raise RequestError(
                    f"no tool named {shown(name)}{did_you_mean(name, registry.names)}", 404
                )
            chosen = (tool,)
        if emit is None:
            items = [tool_payload(t, registry) for t in chosen]
            return items[0] if name is not None else {"schema": TOOLS_SCHEMA, "tools": items}
        if emit not in EMITTERS:
            raise RequestError(f"emit must be one of {', '.join(EMITTERS)}, got {shown(emit)}", 422)
        return EMITTERS[emit](list(chosen))


VALIDATE_SCHEMA = schema_name(Output.VALIDATE)
USAGE_SCHEMA = schema_name(Output.USAGE)
TOOLS_SCHEMA = schema_name(Output.TOOLS)


def tool_payload(tool: Any, registry: Registry) -> dict[str, Any]:
    """A tool in the registry format's own terms (`GET /v1/tools` without `?emit=`)."""
    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "category": tool.category,
        "permission": tool.permission.value,
        "tags": list(tool.tags),
        "requires": list(tool.requires),
        "conflicts": list(tool.conflicts),
        "aliases": list(tool.aliases),
        "version": tool.version,
        "deprecated": tool.deprecated,
        "deprecated_by": tool.deprecated_by,
        "display_name": tool.display_name,
        "search_hint": tool.search_hint,
        "always_include": tool.always_include,
        "defer_loading": tool.defer_loading,
        "examples": list(registry.examples_for(tool.name)),
        "source": {"file": tool.source.file, "pointer": tool.source.pointer},
    }


def analytics_window(query: Mapping[str, str]) -> Window:
    """`since`/`until` of an analytics request; neither: the last 7 days (from the start of
    the hour), `since=all`: every record."""
    from toolsel.serve.rollups import default_since

    since, until = query.get("since") or None, query.get("until") or None
    if since == "all":
        start = None
    elif since is None and until is None:
        start = default_since()
    else:
        start = _timestamp(since, "since")
    return Window(since=start, until=_timestamp(until, "until"), session=query.get("session"))


@contextmanager
def _store_errors() -> Iterator[None]:
    """A store that is full answers 507, one that cannot be reached 503, a record it cannot
    hold 422."""
    from toolsel.serve.store import RecordRefused, StoreFull, StoreUnavailable

    try:
        yield
    except RecordRefused as error:
        raise RequestError(str(error), 422) from None
    except StoreFull as error:
        raise RequestError(str(error), 507) from None
    except StoreUnavailable as error:
        raise RequestError(str(error), 503) from None


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _with_stamp(snapshot: Snapshot, stamp: tuple[tuple[str, int, int], ...]) -> Snapshot:
    from dataclasses import replace

    return replace(snapshot, stamp=stamp)


# -- request values --------------------------------------------------------------------------


def parse_records(body: Any) -> list[UsageRecord]:
    if isinstance(body, dict) and "records" in body:
        body = body["records"]
    items = body if isinstance(body, list) else [body]
    if not items:
        raise RequestError("no usage records")
    if len(items) > MAX_BATCH:
        raise RequestError(f"at most {MAX_BATCH} records per request, got {len(items)}", 413)
    records = []
    for number, item in enumerate(items):
        if not isinstance(item, dict):
            raise RequestError(f"record {number}: expected an object, got {_kind(item)}", 422)
        try:
            records.append(_record(item))
        except RequestError as error:
            raise RequestError(f"record {number}: {error}", 422) from None
    return records


def _record(item: Mapping[str, Any]) -> UsageRecord:
    if item.get("event") == "tool_result" and "schema" in item:  # a replay JSONL event
        is_error = item.get("is_error", False)
        if not isinstance(is_error, bool):
            raise RequestError(f"`is_error` must be true or false, got {_kind(is_error)}")
        return UsageRecord(
            tool=_tool_name(item),
            ok=not is_error,
            at=now(),
            latency_ms=_number(item, "latency_ms", None),
            session=_optional_text(item, "file"),
            id=_stored_text(f"{item.get('file')}#{item.get('id')}", "id"),
        )
    if item.get("event") == "tool_start" and "schema" in item:
        raise RequestError("a tool_start event records nothing; send tool_result events")
    ok = item.get("ok")
    if not isinstance(ok, bool):
        raise RequestError("`ok` must be true or false")
    return UsageRecord(
        tool=_tool_name(item),
        ok=ok,
        at=_timestamp(item.get("at"), "at") or now(),
        latency_ms=_number(item, "latency_ms", None),
        session=_optional_text(item, "session"),
        error=_optional_text(item, "error"),
        id=_optional_text(item, "id"),
    )


#: The keys `POST /v1/rank` reads: the query, `with_deps` for a `select:` query, and every
#: ranking option (`toolsel.ranking.core.rank_options`'s parameters).
RANK_KEYS = frozenset(
    {"query", "with_deps", "method", "top", "permission", "categories", "tags",
     "include_deprecated", "min_score", "min_strength", "explain"}
)  # fmt: skip


def _no_unknown_keys(body: Mapping[str, Any], known: frozenset[str], route: str) -> None:
    """A key the route does not read is refused, naming it: a typo (`catgories`) would
    otherwise be ignored, and the answer would look right."""
    from toolsel.suggest import did_you_mean

    for key in body:
        if key not in known:
            raise RequestError(
                f"{route} does not take `{str(key)[:40]}`{did_you_mean(str(key), sorted(known))}; "
                f"it takes {', '.join(sorted(known))}",
                422,
            )


def _tool_name(item: Mapping[str, Any]) -> str:
    tool = text_field(item, "tool")
    if len(tool) > MAX_NAME:
        raise RequestError(f"`tool` is {len(tool)} characters long; at most {MAX_NAME}")
    return _stored_text(tool, "tool")


def _stored_text(value: str, key: str) -> str:
    """Text a store keeps: no NUL (PostgreSQL cannot hold one in text), nor a lone
    surrogate (not UTF-8)."""
    if "\x00" in value:
        raise RequestError(f"`{key}` contains a NUL character", 422)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise RequestError(f"`{key}` is not valid Unicode (a lone surrogate)", 422) from None
    return value


def shown(value: Any, limit: int = 80) -> str:
    """A value quoted in an error message, cut short (an error must not echo a megabyte)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_error(error: BaseException) -> str:
    """One line for a failure the reloader records (never a traceback)."""
    from toolsel.render.escape import visible

    text = str(error) if isinstance(error, ToolselError) else f"{type(error).__name__}: {error}"
    text = visible(" ".join(text.split()))
    return text if len(text) <= 500 else text[:499] + "…"


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else "null"
    )


def text_field(body: Mapping[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RequestError(f"`{key}` must be a non-empty string, got {_kind(value)}", 422)
    return value


def _optional_text(body: Mapping[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RequestError(f"`{key}` must be a string, got {_kind(value)}", 422)
    return _stored_text(value, key)


def _flag(body: Mapping[str, Any], key: str) -> bool:
    value = body.get(key, False)
    if not isinstance(value, bool):
        raise RequestError(f"`{key}` must be true or false, got {_kind(value)}", 422)
    return value


def _number(body: Mapping[str, Any], key: str, default: Any) -> Any:
    value = body.get(key, default)
    if value is default:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RequestError(f"`{key}` must be a number >= 0, got {_kind(value)}", 422)
    if value < 0:
        raise RequestError(f"`{key}` must be a number >= 0, got {value}", 422)
    return float(value)


def integer_field(body: Mapping[str, Any], key: str, default: int, *, low: int, high: int) -> int:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RequestError(f"`{key}` must be an integer from {low} to {high}", 422)
    return value


def _strings(body: Mapping[str, Any], key: str, *, required: bool = False) -> tuple[str, ...]:
    value = body.get(key)
    if value is None and not required:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise RequestError(f"`{key}` must be a list of strings", 422)
    return tuple(value)


def _choice(body: Mapping[str, Any], key: str, kind: Callable[[str], Any], default: Any) -> Any:
    value = body.get(key)
    if value is None:
        return default
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(str(c.value) for c in kind)  # type: ignore[attr-defined]
        raise RequestError(f"`{key}` must be one of {choices}, got {shown(value)}", 422) from None


def _timestamp(value: Any, key: str) -> str | None:
    """An ISO 8601 time as stored (UTC, `Z`), or None."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RequestError(f"`{key}` must be an ISO 8601 time", 422)
    try:
        return stored_time(value)
    except (ValueError, OverflowError) as error:
        reason = " ".join(str(error).split())
        raise RequestError(
            f"`{key}` must be an ISO 8601 time between years 1 and 9999, got {shown(value)} "
            f"({reason if len(reason) <= 120 else reason[:119] + '…'})",
            422,
        ) from None
