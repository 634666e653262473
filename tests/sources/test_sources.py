"""toolsel/sources/__init__.py: each kind of source as the files to read, in the order given;
the project's registry when none is given; and a file's servers started only with leave."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from toolsel.errors import ConfigError, RegistryError, UsageError
from toolsel.live import LiveSettings, live_settings
from toolsel.registry.paths import FileList
from toolsel.sources import (
    ConfiguredPaths,
    bundled_registry,
    configured,
    default_registry_paths,
    expand,
    load_registry,
    project_registry_paths,
    registry_files,
    trust,
)
from toolsel.sources.project import ProjectConfig

TOOL = "tools:\n- {name: a_tool, description: Does one thing.}\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (it has .git), the current folder."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLSEL_NO_CONFIG", raising=False)
    return tmp_path


def test_each_kind_of_source_in_the_order_given(project: Path) -> None:
    from toolsel.catalogs import catalog_path

    (project / "dir").mkdir()
    for name in ("b.yaml", "a.json"):
        (project / "dir" / name).write_text(TOOL)
    (project / "tools.json").write_text("[]")
    (project / "one.yaml").write_text(TOOL)
    files = registry_files(["one.yaml", "dir", "builtin:codex", "gh=tools.json"])
    assert files == [
        Path("one.yaml"), Path("dir/a.json"), Path("dir/b.yaml"),
        catalog_path("builtin:codex"), Path("tools.json"),
    ]  # fmt: skip
    assert (files.namespaces, files.labels) == ({Path("tools.json"): "gh"}, {})
    assert registry_files("one.yaml") == [Path("one.yaml")]
    assert registry_files(Path("one.yaml")) == [Path("one.yaml")]
    namespaced = registry_files(["one.yaml", "gh=tools.json"], namespace=True)
    assert namespaced.namespaces == {Path("one.yaml"): "one", Path("tools.json"): "gh"}


def test_files_already_listed_are_taken_as_they_are(project: Path) -> None:
    listed = FileList([Path("x.yaml")], {Path("x.yaml"): "srv"}, {Path("x.yaml"): "label"})
    assert registry_files(listed) is listed
    again = registry_files(FileList([Path("x.yaml")]), namespace=True)
    assert (list(again), again.namespaces) == ([Path("x.yaml")], {Path("x.yaml"): "x"})


def test_no_source_at_all_is_an_error(project: Path) -> None:
    with pytest.raises(RegistryError) as refused:
        registry_files([])
    assert (refused.value.message, refused.value.hint) == (
        "no registry given",
        "pass -r/--registry PATH",
    )


def test_without_sources_the_projects_registry_else_registries_else_the_example(
    project: Path,
) -> None:
    assert project_registry_paths() is None
    assert default_registry_paths() == [bundled_registry()]
    assert (bundled_registry() / "files.yaml").is_file()
    (project / "registries").mkdir()
    (project / "registries" / "r.yaml").write_text(TOOL)
    assert project_registry_paths() == [project / "registries"]
    assert registry_files() == [project / "registries" / "r.yaml"]
    (project / "toolsel.toml").write_text('registry = ["own.yaml"]\n')
    found = project_registry_paths()
    assert isinstance(found, ConfiguredPaths)
    assert (list(found), found.named_by) == ([project / "own.yaml"], project / "toolsel.toml")
    assert default_registry_paths() == [project / "own.yaml"]
    elsewhere = project / "sub"
    (elsewhere / ".git").mkdir(parents=True)
    assert project_registry_paths(elsewhere) is None
    (elsewhere / "registries").mkdir()
    assert project_registry_paths(elsewhere) == [elsewhere / "registries"]


def test_a_config_names_a_registry_only_with_a_path_and_entries(tmp_path: Path) -> None:
    config = tmp_path / "toolsel.toml"
    assert configured(ProjectConfig(config)) is None
    assert configured(ProjectConfig(None, (Path("r.yaml"),))) is None
    found = configured(ProjectConfig(config, (Path("r.yaml"),)))
    assert found is not None and (list(found), found.named_by) == ([Path("r.yaml")], config)


# -- live servers: started only with leave, credentials only to whom the user allows -----


def _server(mode: str, *args: str) -> str:
    pytest.importorskip("mcp")
    from tests.live.mcp_servers import __file__ as servers

    return " ".join([sys.executable, servers, mode, *args])


def test_a_config_naming_a_server_starts_nothing_and_says_how_to_allow_it(
    project: Path,
) -> None:
    marker = project / "ran"
    code = f"open('{marker}','w')"
    command = shlex.join([sys.executable, "-c", code, "--token=sk-ant-api03-abcdefghijklmnop0123"])
    config = project / "toolsel.toml"
    config.write_text("connect = true\n")
    with pytest.raises(ConfigError) as refused:
        expand([f"mcp:{command}"], named_by=config)
    shown = shlex.join([sys.executable, "-c", code, "--token=***"])
    assert refused.value.message == (
        f"{config}: `registry` names a live MCP server, not started: mcp:{shown}"
    )
    assert refused.value.hint == trust.refusal_hint(config)
    with pytest.raises(ConfigError):
        registry_files(ConfiguredPaths([Path(f"gh=mcp:{command}")], config))
    assert not marker.exists()


def test_a_client_config_starts_nothing_without_leave(project: Path) -> None:
    code = f"open('{project / 'ran'}', 'w')"
    servers = {"evil": {"command": sys.executable, "args": ["-c", code]},
               "off": {"command": "x", "disabled": True}}  # fmt: skip
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    with pytest.raises(UsageError) as refused:
        registry_files([".mcp.json"])
    assert refused.value.message == (
        f".mcp.json: 2 MCP servers, not started: evil: {shlex.join([sys.executable, '-c', code])}"
        "; off: x [disabled]"
    )
    assert refused.value.hint == trust.refusal_hint(Path(".mcp.json"))
    assert not (project / "ran").exists()


def test_a_json_file_is_a_client_config_by_its_servers_not_its_name(project: Path) -> None:
    (project / "tools.json").write_text(json.dumps({"tools": [{"name": "a", "description": "A."}]}))
    (project / "dir.JSON").mkdir()
    (project / "dir.JSON" / "r.yaml").write_text(TOOL)
    assert registry_files(["tools.json", "dir.JSON"]) == [
        Path("tools.json"),
        Path("dir.JSON/r.yaml"),
    ]
    (project / "servers.JSON").write_text(json.dumps({"mcpServers": {"s": {"command": "x"}}}))
    with pytest.raises(UsageError, match="1 MCP server, not started: s: x"):
        registry_files(["servers.JSON"])


def test_with_leave_each_server_is_a_snapshot_named_as_the_user_named_it(
    project: Path,
) -> None:
    pager = _server("pager")
    argv = pager.split()
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"github": {"command": argv[0], "args": argv[1:]}}})
    )
    (project / "one.yaml").write_text(TOOL)
    (project / "two.yaml").write_text(TOOL)
    with live_settings(LiveSettings(connect=True)):
        files = registry_files(
            ["one.yaml", ".mcp.json", f"mcp:{pager}", "gh=mcp:" + pager, "two.yaml"]
        )
    one, config, typed, named, two = files
    assert (one, two) == (Path("one.yaml"), Path("two.yaml"))
    assert len({config, typed, named}) == 3 and all(p.is_file() for p in (config, typed, named))
    assert files.namespaces == {config: "github", named: "gh"}
    assert files.labels == {
        config: ".mcp.json#github",
        typed: f"mcp:{pager}",
        named: f"mcp:{pager}",
    }


def test_a_credential_reaches_a_server_a_config_names_only_once_the_user_trusts_it(
    project: Path,
) -> None:
    """--env (and --header, $TOOLSEL_MCP_TOKEN) are the user's: they go to what the user
    typed, or to what a file the user trusted names; --connect starts, it never sends them."""
    from toolsel.registry.loader import load_registry

    echo = f"mcp:{_server('echo-env')}"
    config = project / "toolsel.toml"
    config.write_text(f"registry = [{json.dumps(echo)}]\n")

    def greeting(**settings: object) -> str:
        with live_settings(LiveSettings(env=(("GREETING", "from the user"),), **settings)):  # type: ignore[arg-type]
            files = registry_files(ConfiguredPaths([Path(echo)], config))
        return load_registry(files, use_cache=False).tools[0].description

    assert greeting(connect=True, refresh=True) == "none"
    with live_settings(LiveSettings(env=(("GREETING", "typed"),), refresh=True)):
        typed = registry_files([echo])
    assert load_registry(typed, use_cache=False).tools[0].description == "typed"
    trust.trust([config])
    assert greeting(refresh=True) == "from the user"


def test_a_missing_client_config_is_a_missing_file(project: Path) -> None:
    with pytest.raises(RegistryError) as missing:
        registry_files([".mcp.json"])
    assert str(missing.value) == ".mcp.json: no such file or directory"


def test_a_codex_config_is_a_client_config(project: Path) -> None:
    (project / "codex.toml").write_text(
        '[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs"]\n'
    )
    with pytest.raises(UsageError) as refused:
        registry_files(["codex.toml"])
    assert refused.value.message == "codex.toml: 1 MCP server, not started: docs: npx -y docs"


def test_load_registry_reads_any_source_kind_strictly_and_cached(project: Path) -> None:
    import os

    from toolsel.registry.model import Registry

    big = [{"name": "a", "description": "Does A. " + "More about it. " * 5000}]
    (project / "tools.json").write_text(json.dumps(big))  # over the 64 KiB a cached file has
    (project / "registries").mkdir()
    (project / "registries" / "r.yaml").write_text(TOOL)
    registry = load_registry(["gh=tools.json"])
    assert isinstance(registry, Registry) and registry.names == ["mcp__gh__a"]
    cache = Path(os.environ["TOOLSEL_CACHE_DIR"])
    assert [p for p in cache.rglob("*") if p.is_file()] != []  # the parsed file is cached
    assert load_registry().names == ["a_tool"]  # no sources: the project's registry
    (project / "empty.yaml").write_text("tools: []\n")
    with pytest.raises(RegistryError, match="the registry has no tools"):
        load_registry(["empty.yaml"])
    assert load_registry(["empty.yaml"], strict=False).names == []
    for entry in cache.rglob("*"):
        if entry.is_file():
            entry.unlink()
    load_registry(["tools.json"], use_cache=False)
    assert [p for p in cache.rglob("*") if p.is_file()] == []


def test_the_example_registry_inside_an_installed_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed from a wheel, the example registry is the package's `examples/`; in a
    checkout, the repository's `registries/`; with neither, the user must name one."""
    import toolsel.sources

    package = tmp_path / "site-packages" / "toolsel"
    (package / "sources").mkdir(parents=True)
    monkeypatch.setattr(toolsel.sources, "__file__", str(package / "sources" / "__init__.py"))
    with pytest.raises(ConfigError) as none:
        bundled_registry()
    assert str(none.value) == "no bundled example registry found; pass -r/--registry PATH"
    (tmp_path / "site-packages" / "registries").mkdir()
    assert bundled_registry() == tmp_path / "site-packages" / "registries"
    (package / "examples").mkdir()
    assert bundled_registry() == package / "examples"


def test_the_default_registry_from_another_folder(project: Path) -> None:
    elsewhere = project / "sub"
    (elsewhere / ".git").mkdir(parents=True)
    (elsewhere / "registries").mkdir()
    assert default_registry_paths(elsewhere) == [elsewhere / "registries"]
