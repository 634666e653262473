"""The service's operations without HTTP (serve/service.py): each request option changes the
answer exactly as the matching CLI flag does, and each bad value is one clear 4xx."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from toolsel.serve.models import (
    AnalyticsQuery,
    RankRequest,
    SelectRequest,
    ToolsQuery,
    ValidateRequest,
)
from toolsel.serve.service import (
    Service,
    analytics_window,
    describe_error,
)
from toolsel.serve.store import Window
from toolsel.serve.values import (
    RequestError,
    read,
)

REGISTRY = str(ROOT / "registries")
QUERY = "search the files for a word"


@pytest.fixture(scope="module")
def service() -> Iterator[Service]:
    running = Service([ROOT / "registries"], None)
    yield running
    running.close()


def rank(service: Service, body: dict[str, Any]) -> Any:
    return service.rank(read(RankRequest, body))


def select(service: Service, body: dict[str, Any]) -> Any:
    return service.select(read(SelectRequest, body))


def validate(service: Service, body: dict[str, Any]) -> Any:
    return service.validate(read(ValidateRequest, body))


#: (request body, `toolsel rank` flags): each changes the answer to QUERY
RANK_OPTIONS: list[tuple[dict[str, Any], list[str]]] = [
    ({"categories": ["files"]}, ["-c", "files"]),
    ({"categories": "files"}, ["-c", "files"]),  # one name for a list of one
    ({"tags": ["notify"]}, ["--tag", "notify"]),
    ({"include_deprecated": True}, ["--include-deprecated"]),
    ({"min_score": 0.7}, ["--min-score", "0.7"]),
    ({"min_score": 1}, ["--min-score", "1"]),  # an integer is a number too
    ({"min_strength": 0.5}, ["--min-strength", "0.5"]),
    ({"explain": True}, ["--explain"]),
    ({"permission": "read"}, ["-p", "read"]),
    ({"method": "bm25"}, ["-m", "bm25"]),
    ({"method": "cc"}, ["-m", "cc"]),  # and 5 tools by default, as Claude Code
    ({"top": 2}, ["-n", "2"]),
    ({"top": 1}, ["-n", "1"]),
    ({"method": "cc", "top": 7}, ["-m", "cc", "-n", "7"]),
]


@pytest.mark.parametrize(("body", "flags"), RANK_OPTIONS, ids=[str(b) for b, _ in RANK_OPTIONS])
def test_each_rank_option_changes_the_answer_as_its_cli_flag_does(
    service: Service,
    cli,  # type: ignore[no-untyped-def]
    body: dict[str, Any],
    flags: list[str],
) -> None:
    served = rank(service, {"query": QUERY, **body})
    printed = json.loads(cli("rank", "-r", REGISTRY, QUERY, *flags, "-f", "json").stdout)
    assert served == printed
    assert served != rank(service, {"query": QUERY})


def test_rank_defaults_are_the_cli_defaults(service: Service, cli) -> None:  # type: ignore[no-untyped-def]
    served = rank(service, {"query": QUERY})
    assert served == json.loads(cli("rank", "-r", REGISTRY, QUERY, "-f", "json").stdout)
    assert len(served["results"]) == 8 and served["method"] == "hybrid"
    assert len(rank(service, {"query": QUERY, "method": "cc"})["results"]) == 5
    assert len(rank(service, {"query": QUERY, "top": 1000})["results"]) > 8  # the upper bound


def test_reload_errors_are_one_visible_line() -> None:
    from toolsel.errors import RegistryError

    assert (
        describe_error(RegistryError("tools.yaml:3:1: bad\n  thing")) == "tools.yaml:3:1: bad thing"
    )
    assert describe_error(ValueError("a\tb\x1b[31m")) == "ValueError: a b\\x1b[31m"
    long = describe_error(ValueError("x" * 600))
    assert len(long) == 500 and long.endswith("x…") and long.startswith("ValueError: xx")
    assert len(describe_error(ValueError("x" * 488))) == 500  # 500 characters: kept whole


def test_analytics_window() -> None:
    from toolsel.serve.rollups import default_since

    assert analytics_window(read(AnalyticsQuery, {"since": "all"})) == Window(None, None, None)
    assert analytics_window(read(AnalyticsQuery, {})) == Window(default_since(), None, None)
    assert analytics_window(read(AnalyticsQuery, {"since": "", "until": ""})) == Window(
        default_since(), None, None
    )
    assert analytics_window(read(AnalyticsQuery, {"since": "2026-01-01", "session": "s"})) == Window("2026-01-01T00:00:00.000Z", None, "s")  # fmt: skip
    assert analytics_window(read(AnalyticsQuery, {"until": "2026-01-01"})) == Window(None, "2026-01-01T00:00:00.000Z", None)  # fmt: skip


# -- the other operations ------------------------------------------------------------------------


def test_select_is_the_cli_document_through_rank_and_select(service: Service, cli) -> None:  # type: ignore[no-untyped-def]
    def printed(*args: str) -> Any:
        return json.loads(cli("rank", "-r", REGISTRY, *args, "-f", "json").stdout)

    query = "select:deploy_service,ghost"
    assert rank(service, {"query": query, "with_deps": True}) == printed(query, "--with-deps")
    assert rank(service, {"query": query}) == printed(query)
    assert select(
        service,
        {"names": ["deploy_service", "ghost"], "tool_use_id": "u1", "pending_servers": ["slack"]},
    ) == printed(query, "--tool-use-id", "u1", "--pending-server", "slack")


def test_select_and_rank_limits(service: Service) -> None:
    from toolsel.serve.limits import MAX_QUERY, MAX_SELECT_NAMES

    names = ",".join(["read_file"] * MAX_SELECT_NAMES)
    assert select(service, {"query": "select:" + names})["matches"] == ["read_file"]
    for body, message, status in [
        ({"query": f"select:{names},x"}, f"at most {MAX_SELECT_NAMES} names per select", 422),
        ({"query": "read_file"}, "`query` must start with select:, or give `names`", 400),
        ({}, "`names` must be a list of strings", 422),
    ]:
        with pytest.raises(RequestError) as caught:
            select(service, body)
        assert (str(caught.value), caught.value.status) == (message, status)
    assert rank(service, {"query": "read " * (MAX_QUERY // 5)})["results"]
    with pytest.raises(RequestError) as caught:
        rank(service, {"query": "x" * (MAX_QUERY + 1)})
    assert str(caught.value) == (
        f"`query` is {MAX_QUERY + 1} characters long; at most {MAX_QUERY} (send the request, "
        "not the whole conversation)"
    )
    assert caught.value.status == 422


def test_validate_answers_ok_and_the_violations(service: Service) -> None:
    good = validate(service, {"tool": "read_file", "input": {"path": "a"}})
    assert good == {"schema": "toolsel.validate/v1", "tool": "read_file", "ok": True, "violations": []}  # fmt: skip
    blocked = validate(service, {"tool": "delete_file", "input": {"path": "a"}, "permission": "read"})  # fmt: skip
    assert blocked["ok"] is False and blocked["violations"] == [
        {"rule": "permission", "message": "'delete_file' needs permission dangerous, above read"}
    ]
    with pytest.raises(RequestError) as caught:
        validate(service, {"tool": "read_file"})
    assert str(caught.value) == "missing `input` (the call's arguments, an object)"
    assert caught.value.status == 400


def test_tools_in_the_registry_shape_or_a_providers(service: Service) -> None:
    from toolsel.emit import EMITTERS

    listed = service.tools(ToolsQuery())
    assert listed["schema"] == "toolsel.tools/v1" and len(listed["tools"]) == 43
    one = service.tools(ToolsQuery(), "read_file")
    assert one == next(t for t in listed["tools"] if t["name"] == "read_file")
    assert list(one) == [
        "name", "description", "parameters", "category", "permission", "tags", "requires",
        "conflicts", "aliases", "version", "deprecated", "deprecated_by", "display_name",
        "search_hint", "always_include", "defer_loading", "examples", "source",
    ]  # fmt: skip
    tool = service.snapshot.registry.get("read_file")
    assert tool is not None and one["aliases"] == list(tool.aliases) == ["cat_file", "open_file"]
    assert one["permission"] == "read" and one["source"]["pointer"] == "/tools/2"
    assert one["examples"] and one["display_name"] == "Read file" and one["version"] == "1.3.0"
    assert service.tools(read(ToolsQuery, {"emit": "openai"}), "read_file") == EMITTERS["openai"](
        [tool]
    )
    assert service.tools(read(ToolsQuery, {"emit": "gemini"})) == EMITTERS["gemini"](
        list(service.snapshot.registry.tools)
    )
    for asked, message, status in [
        (lambda: service.tools(ToolsQuery(), "read_fil"), "no tool named 'read_fil' (did you mean 'read_file'?)", 404),
        (lambda: read(ToolsQuery, {"emit": "gpt"}), f"emit must be one of {', '.join(EMITTERS)}, got 'gpt'", 422),
    ]:  # fmt: skip
        with pytest.raises(RequestError) as caught:
            asked()
        assert (str(caught.value), caught.value.status) == (message, status)


def test_without_a_store_the_service_is_ready_and_records_nothing(service: Service) -> None:
    ready, body = service.ready()
    loaded = body.pop("last_reload")
    assert (ready, body) == (
        True,
        {
            "ready": True,
            "registry_version": 1,
            "tools": 43,
            "last_reload_error": None,
            "store_error": None,
            "index_ready": True,
        },
    )
    assert isinstance(loaded, str) and loaded.endswith("Z")  # when the registry was loaded
    for operation in (lambda: service.usage({}), lambda: service.analytics(AnalyticsQuery())):
        with pytest.raises(RequestError) as caught:
            operation()
        assert (str(caught.value), caught.value.status) == ("this server records no usage (no store)", 503)  # fmt: skip


# -- the warm registry: reloads, the watcher, closing ------------------------------------------

TOOLS = "tools:\n" + "".join(f"  - {{name: tool_{i}, description: Does thing {i}.}}\n" for i in range(3))  # fmt: skip


def _rewrite(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    later = time.time_ns() + 1_000_000_000  # a new mtime even within one clock tick
    os.utime(path, ns=(later, later))


def test_a_reload_swaps_in_a_changed_registry_and_keeps_the_last_good_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="toolsel.serve")
    registry = tmp_path / "tools.yaml"
    registry.write_text(TOOLS, encoding="utf-8")
    service = Service([registry], None)
    first = service.snapshot
    assert not service.reload_if_changed() and service.snapshot is first  # nothing changed
    _rewrite(registry, TOOLS + "  - {name: tool_9, description: Does thing 9.}\n")
    assert service.reload_if_changed()
    assert (service.snapshot.version, len(service.snapshot.registry.tools)) == (2, 4)
    assert [r.getMessage() for r in caplog.records] == ["registry reloaded: version 2, 4 tools"]
    good = service.snapshot
    caplog.clear()
    _rewrite(registry, "tools: [")
    assert not service.reload_if_changed() and not service.reload_if_changed()
    assert service.snapshot.registry is good.registry and service.snapshot.version == 2
    assert service.last_error is not None and "tools.yaml" in service.last_error
    assert "\n" not in service.last_error and service.ready()[1]["last_reload_error"]
    # the bad content's stamp is remembered: logged once, not read again at every poll
    assert [r.levelname for r in caplog.records] == ["ERROR"]
    assert caplog.records[0].getMessage() == (
        f"registry reload failed; still serving version 2: {service.last_error}"
    )
    assert service.snapshot.stamp != good.stamp
    _rewrite(registry, TOOLS)
    assert service.reload_if_changed() and service.last_error is None
    assert (service.snapshot.version, len(service.snapshot.registry.tools)) == (3, 3)


def test_a_registry_that_goes_away_keeps_the_last_good_one(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    service = Service([tmp_path], None)
    (tmp_path / "tools.yaml").unlink()
    assert not service.reload_if_changed()
    assert service.snapshot.version == 1 and len(service.snapshot.registry.tools) == 3
    assert service.last_error == (
        f"{tmp_path}: no registry files (*.yaml, *.yml, *.json) in this directory (point "
        "--registry at a file or at a directory of registry files)"
    )
    assert service.snapshot.stamp[0][0] == str(tmp_path / "tools.yaml")  # the last good files


class FakeStore:
    def __init__(self) -> None:
        self.closed = 0

    def health(self) -> str | None:
        return None

    def close(self) -> None:
        self.closed += 1


def test_the_watcher_polls_until_closed_and_close_closes_the_store(tmp_path: Path) -> None:
    registry = tmp_path / "tools.yaml"
    registry.write_text(TOOLS, encoding="utf-8")
    store = FakeStore()
    service = Service([registry], store)  # type: ignore[arg-type]
    service.watch()
    assert service._watcher is not None and service._watcher.name == "toolsel-reload"
    _rewrite(registry, TOOLS + "  - {name: tool_9, description: Does thing 9.}\n")
    deadline = time.monotonic() + 30
    while service.snapshot.version == 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert service.snapshot.version == 2  # reloaded by the watcher, not by the test
    service.close()
    assert not service._watcher.is_alive() and store.closed == 1
    Service([registry], None).close()  # no watcher, no store: nothing to stop


def test_a_registry_serve_cannot_watch_is_refused_at_start(tmp_path: Path) -> None:
    from toolsel.errors import RegistryError

    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    with pytest.raises(RegistryError) as caught:
        Service([pipe], None)
    assert caught.value.message == f"{pipe}: not a regular file (a pipe, socket or device)"
    assert caught.value.hint == (
        "serve re-reads its registry files when they change; give regular files"
    )
    cycle = tmp_path / "cycle.yaml"
    cycle.write_text(
        "tools:\n  - {name: a, description: x., requires: [b]}\n"
        "  - {name: b, description: y., requires: [a]}\n",
        encoding="utf-8",
    )
    with pytest.raises(RegistryError) as caught:
        Service([cycle], None)
    assert caught.value.message == f"{cycle}:2:42: requires cycle: a -> b -> a"
    assert caught.value.hint == "a tool cannot require itself, even through others; remove one edge"


def test_select_passes_the_pending_servers_and_refuses_an_empty_select(service: Service) -> None:
    names = ["slack__post_message"]
    pending = select(service, {"names": names, "pending_servers": ["slack"]})
    assert pending != select(service, {"names": names})
    assert pending["tool_result"]["content"] != select(service, {"names": names})["tool_result"]["content"]  # fmt: skip
    with pytest.raises(RequestError) as caught:
        select(service, {"query": "select:,,"})
    assert str(caught.value) == "`select:` names no tool (write e.g. select:read_file,patch_file)"
    assert caught.value.status == 422


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[Service]:
    from toolsel.serve.store import open_store

    running = Service([ROOT / "registries"], open_store(f"sqlite:///{tmp_path / 'u.sqlite3'}"))
    yield running
    running.close()


PAGE = {"tool": "page_oncall", "input": {"service": "api", "summary": "down"}}


def test_validate_reads_what_the_session_called_from_the_store(stored: Service) -> None:
    refused = [{"rule": "requires", "message": "'page_oncall' requires check_health to have succeeded first"}]  # fmt: skip
    assert validate(stored, {**PAGE, "session": "s1"})["violations"] == refused
    records = [
        {"tool": "check_health", "ok": True, "session": "s1", "at": "2026-01-01T00:00:00Z"},
        {"tool": "read_file", "ok": False, "session": "s1", "at": "2026-01-01T00:00:01Z"},
    ]
    assert stored.usage(records) == {"schema": "toolsel.usage/v1", "received": 2, "stored": 2}
    assert validate(stored, {**PAGE, "session": "s1"}) == {
        "schema": "toolsel.validate/v1", "tool": "page_oncall", "ok": True, "violations": [],
    }  # fmt: skip
    assert validate(stored, {**PAGE, "session": "s2"})["violations"] == refused
    assert validate(stored, PAGE)["violations"] == refused  # no session: nothing called


def test_analytics_covers_its_window(stored: Service) -> None:
    stored.usage(
        [
            {"tool": "check_health", "ok": True, "at": "2026-01-01T00:00:00Z"},
            {"tool": "read_file", "ok": False, "at": "2026-01-02T00:00:00Z"},
        ]
    )
    every = stored.analytics(read(AnalyticsQuery, {"since": "all"}))
    assert every["schema"] == "toolsel.stats/v2" and every["window"] == {"since": None, "until": None}  # fmt: skip
    assert {name: t["errors"] for name, t in every["tools"].items()} == {"check_health": 0, "read_file": 1}  # fmt: skip
    later = stored.analytics(
        read(AnalyticsQuery, {"since": "2026-01-01T12:00:00Z", "until": "2027-01-01T00:00:00Z"})
    )
    assert later["window"] == {"since": "2026-01-01T12:00:00.000Z", "until": "2027-01-01T00:00:00.000Z"}  # fmt: skip
    assert list(later["tools"]) == ["read_file"]


def test_a_tool_names_where_it_is_defined(service: Service) -> None:
    assert service.tools(ToolsQuery(), "read_file")["source"] == {
        "file": str(ROOT / "registries" / "files.yaml"),
        "pointer": "/tools/2",
    }


def test_rank_errors_are_422s(service: Service, no_extra: object) -> None:
    for body, message in [
        ({"query": "x", "method": "semantic"}, "method semantic needs toolsel[embed]: the Python package 'onnxruntime' is not installed"),
        ({"query": "x", "categories": ["nope"]}, "--category 'nope': no tool has it"),
    ]:  # fmt: skip
        with pytest.raises(RequestError) as caught:
            rank(service, body)
        assert str(caught.value).startswith(message) and caught.value.status == 422


def test_a_session_without_a_store_is_no_session(service: Service) -> None:
    body = {"tool": "page_oncall", "input": {"service": "api", "summary": "down"}}
    assert validate(service, {**body, "session": "s1"}) == validate(service, body)


def test_an_analytics_window_names_the_bound_at_fault() -> None:
    for query in ({"since": "soon"}, {"until": "later"}):
        (key,) = query
        with pytest.raises(RequestError) as caught:
            analytics_window(read(AnalyticsQuery, query))
        assert str(caught.value).startswith(f"`{key}` must be an ISO 8601 time")


def test_rank_without_a_method_is_auto_and_says_what_it_ran(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSEL_EMBED", "0")
    lexical = rank(service, {"query": "read a file"})
    assert (lexical["method"], lexical["method_requested"]) == ("hybrid", "auto")
    import importlib.util

    if importlib.util.find_spec("onnxruntime") is None:
        return  # without toolsel[embed], auto is hybrid: checked above
    monkeypatch.setenv("TOOLSEL_EMBED", "1")
    fused = rank(service, {"query": "read a file"})
    assert fused["method"] == "fusion" and fused["method_reason"] == "toolsel[embed] is installed"
    assert "read_file" in [r["name"] for r in fused["results"][:3]]


def test_serve_no_embed_keeps_auto_lexical(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSEL_EMBED", "1")  # embeddings allowed, but the server says no
    running = Service([ROOT / "registries"], None, auto_embeddings=False)
    try:
        answer = rank(running, {"query": "read a file"})
        assert (answer["method"], answer["method_requested"]) == ("hybrid", "auto")
        assert answer["method_reason"] == "toolsel serve --no-embed"
        named = rank(running, {"query": "read a file", "method": "bm25"})
        assert named["method"] == "bm25" and "method_requested" not in named
    finally:
        running.close()
