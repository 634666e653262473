"""What `toolsel serve` and `toolsel mcp` do, without HTTP or MCP: a warm registry snapshot,
reloaded in the background, and one method per operation, each taking a checked request
(`toolsel.serve.models`) and returning the matching CLI output's JSON payload. Nothing here
prints; a request that cannot be served raises `RequestError` (a 4xx or 5xx).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsel.errors import RegistryError, ToolselError
from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry.model import Registry
from toolsel.registry.paths import FileList
from toolsel.schemas import Output, schema_name
from toolsel.serve.limits import ANALYTICS_TOOLS
from toolsel.serve.pending import Pending
from toolsel.serve.records import Window
from toolsel.serve.usage import records_of, usage_items
from toolsel.serve.values import RequestError, clipped, read, shown

if TYPE_CHECKING:  # read where they are used: `toolsel mcp` answers before it needs them
    from toolsel.serve.models import (
        AnalyticsQuery,
        RankRequest,
        SelectRequest,
        ToolsQuery,
        ValidateRequest,
    )
    from toolsel.serve.store import UsageStore

log = logging.getLogger("toolsel.serve")

#: (file, mtime_ns, size) of each registry file: -1 unreadable, -2 not a regular file.
Stamp = tuple[tuple[str, int, int], ...]
#: How often the registry files are checked for changes (seconds).
POLL_SECONDS = 0.25


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One complete registry and everything derived from it. Requests read the current
    snapshot once and use only it, so none ever sees a half-loaded registry."""

    registry: Registry
    #: its ranking index: made at start on a thread of its own (`Service.warm`), so that
    #: the server answers before it is; at a reload, made before the snapshot goes live
    built: Pending[PreparedIndex]
    stamp: Stamp  # of the files it was loaded from
    version: int
    loaded_at: float = field(default_factory=time.time)
    #: one input validator per tool, built on first use and shared by every request
    validators: dict[str, Any] = field(default_factory=dict)

    @property
    def index(self) -> PreparedIndex:
        """The ranking index, waited for within the request's deadline: 503 past it, or
        when it could not be made."""
        from toolsel.deadline import current

        try:
            return self.built.get(current())
        except TimeoutError:
            raise RequestError(
                "the ranking index is still being built (the server has just started); "
                "try again in a moment",
                503,
                reason="starting",
            ) from None
        except Exception as error:
            raise RequestError(
                f"the ranking index could not be built: {describe_error(error)}", 503
            ) from None


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
        defer_index: bool = False,
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
        # raises on a bad registry at start; with `defer_index`, the index is made by `warm`
        # (or the first request that needs it), so the server answers before it is made
        self.snapshot = self._load(1, files, stamp, defer_index=defer_index)
        self.loaded_at = _now()  # when the live registry was loaded (/readyz `last_reload`)

    # -- loading ------------------------------------------------------------------------
    def files(self) -> FileList:
        """The registry files the paths name now, named as the CLI names them
        (`--namespace`, `-r SERVER=PATH`)."""
        from toolsel.sources import registry_files

        return registry_files(self.paths or None, namespace=self.namespace)

    def _stamp(self) -> tuple[FileList, Stamp]:
        """The files, and (file, mtime, size) for each; a file that is not a regular one
        is stamped -2, and refused by `_load` (a pipe would block the reader for ever)."""
        files = self.files()
        return files, tuple(map(_file_stamp, files))

    def _load(
        self,
        version: int,
        files: FileList,
        stamp: Stamp,
        *,
        defer_index: bool = False,
    ) -> Snapshot:
        """A complete snapshot of the files as they are; `stamp` was taken before reading.
        The registry is read and checked here; its index is made here too, unless
        `defer_index`."""
        from toolsel.graph import find_cycles, requires_graph
        from toolsel.ranking.store import read_registry_for_index

        for name, mtime, _ in stamp:
            if mtime == -2:
                raise RegistryError(
                    f"{name}: not a regular file (a pipe, socket or device)",
                    hint="serve re-reads its registry files when they change; give regular files",
                )
        read = read_registry_for_index(files)
        registry = read.registry
        cycles = find_cycles(requires_graph(registry))
        if cycles:
            tool = registry.get(cycles[0][0])
            where = "" if tool is None else f"{registry.locate_field(tool, 'requires')}: "
            raise RegistryError(
                f"{where}requires cycle: {' -> '.join(cycles[0])}",
                hint="a tool cannot require itself, even through others; remove one edge",
            )

        def make_index() -> PreparedIndex:
            began = time.perf_counter()
            index = read.prepared_index()
            if self.warm_embeddings:
                warm_embeddings(index)
            if defer_index:  # the server is up already: say when it is ready
                seconds = time.perf_counter() - began
                log.info("ranking index ready: %s tools, in %.1f s", len(index), seconds)
            return index

        built = Pending(make_index)
        if not defer_index:
            built.get()
        return Snapshot(registry, built, stamp, version)

    def warm(self) -> None:
        """Make the current snapshot's index on a thread of its own, if it is not made."""
        self.snapshot.built.start("toolsel-index")

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

    def _reload_failed(self, message: str, stamp: Stamp) -> None:
        """Log a failed reload once (not at every poll) and keep it for /readyz."""
        if message != self.last_error:
            log.error("registry reload failed; still serving version %s: %s",
                      self.snapshot.version, message)  # fmt: skip
        self.last_error = message
        # remember the bad content, so it is not reloaded until it changes again
        self.snapshot = replace(self.snapshot, stamp=stamp)

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

    def usage_store(self) -> UsageStore:
        """The store, or 503 when this server records no usage."""
        if self.store is None:
            raise RequestError("this server records no usage (no store)", 503)
        return self.store

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
        failed = snap.built.error
        reload_error = self.last_error
        if failed is not None and reload_error is None:
            reload_error = f"the ranking index could not be built: {describe_error(failed)}"
        ready = store_error is None and snap.built.done and failed is None
        body = {
            "ready": ready,
            "registry_version": snap.version,
            "tools": len(snap.registry.tools),
            "last_reload": self.loaded_at,
            "last_reload_error": reload_error,
            "store_error": store_error,
            "index_ready": snap.built.done and failed is None,
        }
        return ready, body

    def rank(self, request: RankRequest) -> dict[str, Any]:
        """POST /v1/rank: the `toolsel.rank` document (or `toolsel.select` for a
        `select:` query), exactly as `toolsel rank --format json` prints it."""
        from toolsel.ranking.core import rank_index, rank_options
        from toolsel.ranking.options import EMBEDDING_METHODS, Method
        from toolsel.render.rank import rank_payload
        from toolsel.text import is_select

        snap = self.snapshot
        if is_select(request.query):
            lookup = {"query": request.query, "with_deps": request.with_deps}
            from toolsel.serve.models import SelectRequest

            return self.select(read(SelectRequest, lookup), snap)
        lexical = request.method is Method.AUTO and not self.auto_embeddings
        options = rank_options(
            **request.model_dump(exclude={"query", "with_deps", "method", "explain"}),
            method=Method.HYBRID if lexical else request.method,
            explain=True,  # `why` lists the evidence; `explain` adds each contribution
        )
        if lexical:  # auto, as `serve --no-embed` makes it: said like any other choice
            options = replace(options, requested=Method.AUTO, reason="toolsel serve --no-embed")
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
            result = rank_index(snap.index, request.query, options)
        except ToolselError as error:
            raise RequestError(str(error), 422) from None
        return rank_payload(result, explain=request.explain)

    def select(self, request: SelectRequest, snap: Snapshot | None = None) -> dict[str, Any]:
        """POST /v1/select: the tool_reference tool_result block and the diagnostics."""
        from toolsel.render.rank import select_payload
        from toolsel.select import select_tools

        snap = snap or self.snapshot
        try:
            result = select_tools(
                snap.registry.tools,
                request.lookup,
                with_deps=request.with_deps,
                tool_use_id=request.tool_use_id,
                pending_servers=request.pending_servers,
            )
        except ToolselError as error:
            raise RequestError(str(error), 422) from None
        return select_payload(result)

    def validate(self, request: ValidateRequest) -> dict[str, Any]:
        """POST /v1/validate: the checks replay runs on a call, before it is made."""
        from toolsel.replay.checks import RegistryChecker
        from toolsel.replay.events import Call

        snap = self.snapshot
        checker = RegistryChecker(snap.registry, request.permission, validators=snap.validators)
        if request.session is not None and self.store is not None:
            with store_errors():
                checker.called, checker.succeeded = self.store.session_tools(request.session)
        violations = checker.check(Call("validate", request.tool, request.input), 0)
        return {
            "schema": VALIDATE_SCHEMA,
            "tool": request.tool,
            "ok": not violations,
            "violations": [{"rule": v.rule, "message": v.message} for v in violations],
        }

    def usage(self, body: Any) -> dict[str, Any]:
        """POST /v1/usage: one record, a list of them, `{"records": [...]}`, or the
        `tool_result` events of `toolsel replay --format jsonl`."""
        store = self.usage_store()
        items = usage_items(body)
        with store_errors():
            stored = store.record(records_of(items))
        return {"schema": USAGE_SCHEMA, "received": len(items), "stored": stored}

    def analytics(self, query: AnalyticsQuery) -> dict[str, Any]:
        """GET /v1/analytics: the `toolsel.stats` payload of a window (`analytics_window`)
        and the window; its `analytics_tools` most-called tools, the others in `other`."""
        from toolsel.render.stats import stats_payload
        from toolsel.serve.analytics import bounded_stats, other_note, other_payload, within_budget

        store = self.usage_store()
        window = analytics_window(query)
        registry = self.snapshot.registry
        with store_errors(), within_budget():  # a read stopped at the budget says so
            totals = store.top_totals(window, self.analytics_tools, registry.names)
        payload = stats_payload(bounded_stats(totals, registry))
        payload["window"] = {"since": window.since, "until": window.until}
        other = other_payload(totals.rest)
        if other is not None:
            payload["other"] = other
            payload["notes"].append(other_note(totals.rest, len(totals.tools)))
        return payload

    def tools(self, query: ToolsQuery, name: str | None = None) -> Any:
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
        if query.emit is None:
            items = [tool_payload(t, registry) for t in chosen]
            return items[0] if name is not None else {"schema": TOOLS_SCHEMA, "tools": items}
        return EMITTERS[query.emit](list(chosen))


VALIDATE_SCHEMA = schema_name(Output.VALIDATE)
USAGE_SCHEMA = schema_name(Output.USAGE)
TOOLS_SCHEMA = schema_name(Output.TOOLS)


#: A tool's fields in `GET /v1/tools`, in order (the tuples as lists, `permission` its value).
TOOL_FIELDS = (
    "name description parameters category permission tags requires conflicts aliases version"
    " deprecated deprecated_by display_name search_hint always_include defer_loading"
).split()
LIST_FIELDS = ("tags", "requires", "conflicts", "aliases")


def tool_payload(tool: Any, registry: Registry) -> dict[str, Any]:
    """A tool in the registry format's own terms (`GET /v1/tools` without `?emit=`)."""
    payload = {name: getattr(tool, name) for name in TOOL_FIELDS}
    for name in LIST_FIELDS:
        payload[name] = list(payload[name])
    payload["permission"] = tool.permission.value
    payload["examples"] = list(registry.examples_for(tool.name))
    payload["source"] = {"file": tool.source.file, "pointer": tool.source.pointer}
    return payload


def warm_embeddings(index: PreparedIndex) -> None:
    """Embed the tools and examples, and load the model, before a request needs them. A
    failure (no model offline, say) leaves ranking without embeddings to the requests that
    ask for them, which say why; it never takes the index down with it."""
    try:
        index.tool_vectors()
        index.example_vectors()
        from toolsel.embed.model import embedder

        embedder().start_loading()
    except Exception as error:
        log.warning("embeddings not warmed: %s", describe_error(error))


def analytics_window(query: AnalyticsQuery) -> Window:
    """The window of an analytics request: neither bound, the last 7 days (from the start of
    the hour); `since=all`, every record."""
    from toolsel.serve.rollups import default_since

    since = query.since
    if since is None and query.until is None:
        since = default_since()
    return Window(since=None if since == "all" else since, until=query.until, session=query.session)


@contextmanager
def store_errors() -> Iterator[None]:
    """A store that is full answers 507, one that cannot be reached 503, a record it cannot
    hold 422."""
    from toolsel.serve.store import RecordRefused, StoreFull, StoreUnavailable

    try:
        yield
    except (RecordRefused, StoreFull, StoreUnavailable) as error:
        status = 422 if isinstance(error, RecordRefused) else 503
        raise RequestError(str(error), 507 if isinstance(error, StoreFull) else status) from None


def _file_stamp(path: Path) -> tuple[str, int, int]:
    """(file, mtime, size); -1 when it cannot be read, -2 when it is not a regular file."""
    import stat

    try:
        info = path.stat()
    except OSError:
        return str(path), -1, -1
    if not stat.S_ISREG(info.st_mode):
        return str(path), -2, -2
    return str(path), info.st_mtime_ns, info.st_size


def _now() -> str:
    from datetime import UTC, datetime

    from toolsel.timeparse import iso

    return iso(datetime.now(UTC), "seconds")


def describe_error(error: BaseException) -> str:
    """One line for a failure the reloader records (never a traceback)."""
    from toolsel.render.escape import visible

    text = str(error) if isinstance(error, ToolselError) else f"{type(error).__name__}: {error}"
    return clipped(visible(" ".join(text.split())), 500)
