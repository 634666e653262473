"""toolsel/sources/grammar.py: what one `-r` value names, from its text alone (and whether a
path of that name exists)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolsel.sources.grammar import Spec, live_text, parse


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("builtin:codex", Spec("builtin:codex", "builtin", "builtin:codex")),
        ("mcp:npx -y server", Spec("mcp:npx -y server", "live", "mcp:npx -y server")),
        ("https://h.example/mcp", Spec("https://h.example/mcp", "live", "https://h.example/mcp")),
        ("http://127.0.0.1:8/mcp", Spec("http://127.0.0.1:8/mcp", "live", "http://127.0.0.1:8/mcp")),
        ("https:/h.example/mcp", Spec("https:/h.example/mcp", "live", "https://h.example/mcp")),
        ("gh=mcp:npx -y server", Spec("gh=mcp:npx -y server", "live", "mcp:npx -y server", "gh")),
        ("my_docs-2=https:/h/mcp", Spec("my_docs-2=https:/h/mcp", "live", "https://h/mcp", "my_docs-2")),
        ("gh=tools.json", Spec("gh=tools.json", "server-file", "tools.json", "gh")),
        ("gh=a=b.json", Spec("gh=a=b.json", "server-file", "a=b.json", "gh")),
        ("gh=", Spec("gh=", "path", "gh=")),
        ("=mcp:npx x", Spec("=mcp:npx x", "path", "=mcp:npx x")),
        ("a b=mcp:npx x", Spec("a b=mcp:npx x", "path", "a b=mcp:npx x")),
        ("g.h=tools.json", Spec("g.h=tools.json", "path", "g.h=tools.json")),
        ("registries/tools.yaml", Spec("registries/tools.yaml", "path", "registries/tools.yaml")),
        ("mcp.json", Spec("mcp.json", "path", "mcp.json")),
        ("https:h.example", Spec("https:h.example", "path", "https:h.example")),
    ],
)  # fmt: skip
def test_what_a_source_names_by_its_text(
    text: str, spec: Spec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # none of these exists here
    assert parse(text) == spec
    assert parse(Path(text)) == parse(str(Path(text)))


@pytest.mark.parametrize("name", ["builtin:codex", "gh=mcp:npx x", "a=b", "mcp:npx"])
def test_a_path_that_exists_is_a_path_whatever_it_reads_like(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path(name).parent.mkdir(parents=True, exist_ok=True)
    Path(name).write_text("tools: []\n")
    assert parse(name) == Spec(name, "path", name)


def test_a_live_sources_transport_and_command() -> None:
    stdio = parse("gh=mcp:npx -y server")
    assert (stdio.transport, stdio.command) == ("stdio", "npx -y server")
    http = parse("https://h.example/mcp")
    assert http.transport == "http"


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("mcp:npx x", "mcp:npx x"),
        ("mcp:", "mcp:"),
        ("http://h/mcp", "http://h/mcp"),
        ("https://h/mcp", "https://h/mcp"),
        (Path("https://h/mcp"), "https://h/mcp"),  # Path keeps one slash; it is put back
        (Path("http://127.0.0.1:8/mcp"), "http://127.0.0.1:8/mcp"),
        ("http:/h", "http://h"),
        ("registries/tools.yaml", None),
        ("https:h", None),
        ("xhttps://h", None),
        ("MCP:npx", None),
    ],
)
def test_live_text_of_a_source(raw: str | Path, text: str | None) -> None:
    assert live_text(raw) == text
