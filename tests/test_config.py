"""Project configuration: where the default registry comes from."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli
from toolsel.errors import ConfigError
from toolsel.lint import all_rules
from toolsel.lint.config import DEFAULT_OPTIONS, build_config

Write = Callable[..., Path]


def test_default_registry_from_pyproject(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "tools").mkdir()
    (in_tmp / "tools" / "mine.yaml").write_text(
        "tools:\n- {name: my_only_tool, description: does my only thing}\n"
    )
    (in_tmp / "pyproject.toml").write_text('[tool.toolsel]\nregistry = "tools"\n')
    sub = in_tmp / "deep" / "er"
    sub.mkdir(parents=True)
    import os

    os.chdir(sub)
    data = json.loads(cli("rank", "only thing", "-f", "json").stdout)
    assert [r["name"] for r in data["results"]] == ["my_only_tool"]


def test_default_registry_is_local_registries_dir(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "registries").mkdir()
    (in_tmp / "registries" / "r.yaml").write_text(
        "tools:\n- {name: local_tool, description: local thing}\n"
    )
    data = json.loads(cli("rank", "local", "-f", "json").stdout)
    assert data["results"][0]["name"] == "local_tool"


def test_default_registry_falls_back_to_bundled_example(cli: Cli, in_tmp: Path) -> None:
    data = json.loads(cli("rank", "read a file", "-f", "json").stdout)
    assert next(r for r in data["results"] if not r["always_include"])["name"] == "read_file"


def test_unknown_key_in_tool_toolsel_is_a_config_error(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "pyproject.toml").write_text('[tool.toolsel]\nregistri = "x"\n')
    run = cli("rank", "x")
    assert run.exit_code == 2 and "did you mean 'registry'" in run.stderr


def test_unknown_key_in_toolsel_toml_is_a_config_error(cli: Cli, in_tmp: Path) -> None:
    (in_tmp / "toolsel.toml").write_text('registri = "x"\n')
    run = cli("rank", "x")
    assert (run.exit_code, run.stderr) == (
        2,
        f"toolsel: error: {in_tmp / 'toolsel.toml'}: unknown key 'registri' "
        "(did you mean 'registry'?)\n",
    )


BAD_LINT_CONFIG = {
    "a list of mixed values": (
        "allowed-categories = [1, {a = 1}]",
        "must be a list of strings, got 1",
    ),
    "a string for a number": ('max-description-chars = "x"', "must be like 1024, got 'x'"),
    "a negative number": ("max-tools = -3", "'max-tools' must be a finite number >= 0, got -3"),
    "nan": ("max-description-chars = nan", "must be a finite number >= 0, got nan"),
    "inf": ("max-tools = inf", "'max-tools' must be a finite number >= 0, got inf"),
    "-inf": ("min-sentences = -inf", "must be a finite number >= 0, got -inf"),
    "a fraction above 1": ("overlap-threshold = 60", "must be a number from 0 to 1, got 60"),
    "a nan fraction": ("example-ratio = nan", "'example-ratio' must be a number from 0 to 1"),
    "a boolean for a number": ("max-tools = true", "must be like 30, got True"),
    "an unknown option": ("max-toolz = 3", "did you mean 'max-tools'"),
}


@pytest.mark.parametrize("case", list(BAD_LINT_CONFIG))
def test_bad_lint_options_are_one_line_errors(cli: Cli, in_tmp: Path, case: str) -> None:
    setting, message = BAD_LINT_CONFIG[case]
    (in_tmp / "pyproject.toml").write_text(f"[tool.toolsel.lint.options]\n{setting}\n")
    (in_tmp / "r.yaml").write_text("tools:\n- {name: a_tool, description: does a thing}\n")
    run = cli("lint", "r.yaml")
    assert run.exit_code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert "pyproject.toml: option" in run.stderr or "unknown lint option" in run.stderr
    assert message in run.stderr and "Traceback" not in run.stderr


NUMERIC_OPTIONS = [
    name
    for name, default in DEFAULT_OPTIONS.items()
    if isinstance(default, (int, float)) and not isinstance(default, bool)
]


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1])
@pytest.mark.parametrize("name", NUMERIC_OPTIONS)
def test_no_numeric_option_takes_nan_infinity_or_a_negative(name: str, value: float) -> None:
    """NaN compares false with everything, so `nan` used to turn a check off silently."""
    with pytest.raises(ConfigError) as refused:
        build_config({"options": {name: value}}, all_rules(), source="toolsel.toml")
    assert str(refused.value).startswith(f"toolsel.toml: option {name!r} must be a")


@pytest.mark.parametrize("name", NUMERIC_OPTIONS)
def test_every_numeric_option_takes_zero_and_its_default(name: str) -> None:
    for value in (0, DEFAULT_OPTIONS[name]):
        config = build_config({"options": {name: value}}, all_rules(), source="x")
        assert config.option(name) == value


DEEP_ARRAY = "[" * 10_000 + "]" * 10_000
DEEP_TABLE = "{a = " * 10_000 + "1" + "}" * 10_000


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("pyproject.toml", f"[tool.other]\nx = {DEEP_ARRAY}\n", "nested too deeply to read"),
        ("pyproject.toml", f"[tool.other]\nx = {DEEP_TABLE}\n", "nested too deeply to read"),
        ("toolsel.toml", f"[lint]\nx = {DEEP_ARRAY}\n", "nested too deeply to read"),
        (
            "pyproject.toml",
            f"[tool.other]\n\nx = {'9' * 5000}\n",
            ":3:5: an integer of 5,000 digits",
        ),
    ],
    ids=["pyproject array", "pyproject inline table", "toolsel.toml", "5,000-digit integer"],
)
@pytest.mark.parametrize(
    "command",
    [("rank", "x"), ("lint",), ("deps", "--all"), ("replay", "t.jsonl"), ("stats", "t.jsonl")],
    ids=lambda c: c[0],
)
def test_a_config_python_cannot_read_is_one_line_everywhere(
    cli: Cli, in_tmp: Path, name: str, text: str, message: str, command: tuple[str, ...]
) -> None:
    (in_tmp / "registries").mkdir()
    (in_tmp / "registries" / "r.yaml").write_text("tools:\n- {name: a_tool, description: does}\n")
    (in_tmp / "t.jsonl").write_text('{"role": "tool", "tool_call_id": "x", "content": "ok"}\n')
    (in_tmp / name).write_text(text)
    run = cli(*command)
    assert run.exit_code == 2 and run.stdout == "" and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"toolsel: error: {in_tmp / name}") and message in run.stderr
    assert run.stderr.count("\n") == 1


def test_a_toolsel_toml_beside_an_unreadable_pyproject_is_the_way_round_it(
    cli: Cli, in_tmp: Path
) -> None:
    (in_tmp / "registries").mkdir()
    (in_tmp / "registries" / "r.yaml").write_text("tools:\n- {name: a_tool, description: does}\n")
    (in_tmp / "pyproject.toml").write_text(f"[tool.other]\nx = {DEEP_ARRAY}\n")
    refused = cli("rank", "x")
    assert refused.exit_code == 2 and "keep toolsel's settings in a toolsel.toml" in refused.stderr
    (in_tmp / "toolsel.toml").write_text("[lint]\n")
    assert cli("rank", "does", "-f", "json").exit_code == 0


def test_live_registry_entries_are_kept_as_written(in_tmp: Path) -> None:
    from toolsel.sources.project import find_config

    (in_tmp / "toolsel.toml").write_text(
        'registry = ["registries", "gh=mcp:npx -y server-github", "https://h.example/mcp"]\n'
        "connect = true\n"
    )
    config = find_config()
    assert config.connect is True
    assert [str(p) for p in config.registry] == [
        str(in_tmp / "registries"),
        "gh=mcp:npx -y server-github",
        "https:/h.example/mcp",  # a Path keeps one slash; toolsel.live puts it back
    ]


def test_connect_must_be_a_boolean(in_tmp: Path) -> None:
    from toolsel.sources.project import find_config

    (in_tmp / "toolsel.toml").write_text('connect = "yes"\n')
    with pytest.raises(ConfigError, match="`connect` must be true or false"):
        find_config()


# -- where the project's config is searched, and what it may say ---------------------------


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_search_goes_up_to_the_repositorys_root_and_no_further(tmp_path: Path) -> None:
    from toolsel.sources.project import ProjectConfig, find_config, search_folders

    root = _project(tmp_path, {"toolsel.toml": 'registry = "above"\n', "repo/.git/HEAD": ""})
    deep = root / "repo" / "src" / "pkg"
    deep.mkdir(parents=True)
    assert list(search_folders(deep)) == [deep, deep.parent, root / "repo"]
    assert find_config(deep) == ProjectConfig(None)
    (root / "repo" / ".git" / "HEAD").unlink()
    (root / "repo" / ".git").rmdir()
    (root / "repo" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git is a file
    assert find_config(deep) == ProjectConfig(None)
    (root / "repo" / ".git").unlink()  # no repository: the search goes on up
    assert find_config(deep).path == root / "toolsel.toml"


def test_the_nearest_config_wins_and_toolsel_toml_before_pyproject(tmp_path: Path) -> None:
    from toolsel.sources.project import find_config

    root = _project(
        tmp_path,
        {
            ".git/HEAD": "",
            "toolsel.toml": 'registry = "top"\n',
            "a/pyproject.toml": "[project]\nname = 'a'\n",  # no [tool.toolsel]: not a config
            "a/b/pyproject.toml": '[tool.toolsel]\nregistry = "from-pyproject"\n',
            "a/b/toolsel.toml": 'registry = "from-toolsel-toml"\n',
        },
    )
    assert find_config(root / "a" / "b").registry == (root / "a" / "b" / "from-toolsel-toml",)
    (root / "a" / "b" / "toolsel.toml").unlink()
    assert find_config(root / "a" / "b").registry == (root / "a" / "b" / "from-pyproject",)
    assert find_config(root / "a").path == root / "toolsel.toml"


def test_a_toolsel_toml_may_hold_its_settings_in_a_tool_toolsel_table(tmp_path: Path) -> None:
    from toolsel.sources.project import find_config

    _project(tmp_path, {".git/HEAD": "", "toolsel.toml": '[tool.toolsel]\nregistry = "r"\n'})
    assert find_config(tmp_path).registry == (tmp_path / "r",)
    (tmp_path / "toolsel.toml").write_text("[tool]\ntoolsel = 3\n")
    config = find_config(tmp_path)
    assert (config.path, config.registry) == (tmp_path / "toolsel.toml", ())
    (tmp_path / "toolsel.toml").unlink()
    (tmp_path / "pyproject.toml").write_text("[tool]\ntoolsel = 3\n")
    assert find_config(tmp_path).path is None


def test_a_folder_another_user_owns_ends_the_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import os

    from toolsel.sources import project

    owner = tmp_path.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)  # the folders are someone else's
    monkeypatch.setattr(project, "_SAID", set())
    _project(tmp_path, {"toolsel.toml": 'registry = "theirs"\n'})
    (tmp_path / "mine").mkdir()
    assert project.find_config(tmp_path / "mine") == project.ProjectConfig(None)
    assert caplog.records == []  # the start folder holds no config: nothing to say
    skipped = project.Skipped(tmp_path, owner)
    assert str(skipped) == (
        f"{tmp_path}: not reading its toolsel config: the folder belongs to another user "
        f"(uid {owner}); name it with --config, or -r the registry"
    )
    for name in ("toolsel.toml", "pyproject.toml"):
        (tmp_path / "toolsel.toml").unlink(missing_ok=True)
        (tmp_path / name).write_text("[tool.toolsel]\n")
        assert list(project.search_folders(tmp_path)) == [skipped]
    assert project.find_config(tmp_path) == project.ProjectConfig(None, skipped=skipped)
    assert project.find_config(tmp_path) == project.ProjectConfig(None, skipped=skipped)
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("toolsel", "WARNING", str(skipped))
    ]  # once, however often the config is looked for
    monkeypatch.setattr(os, "geteuid", lambda: owner)
    assert project.find_config(tmp_path).path == tmp_path / "pyproject.toml"


def test_an_explicit_config_and_no_config_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsel.sources.project import ProjectConfig, find_config

    _project(tmp_path, {".git/HEAD": "", "toolsel.toml": 'registry = "r"\n'})
    other = _project(tmp_path / "elsewhere", {"pyproject.toml": "[project]\nname = 'x'\n"})
    with pytest.raises(ConfigError) as missing:
        find_config(tmp_path, explicit=tmp_path / "nope.toml")
    assert str(missing.value) == f"{tmp_path / 'nope.toml'}: config file not found"
    explicit = other / "pyproject.toml"
    assert find_config(tmp_path, explicit=explicit) == ProjectConfig(explicit)
    monkeypatch.setenv("TOOLSEL_NO_CONFIG", "1")
    assert find_config(tmp_path) == ProjectConfig(None)
    assert find_config(tmp_path, explicit=explicit) == ProjectConfig(explicit)
    monkeypatch.setenv("TOOLSEL_NO_CONFIG", "")
    assert find_config(tmp_path).path == tmp_path / "toolsel.toml"


def test_every_setting_read_and_registry_entries_resolved_against_the_configs_folder(
    tmp_path: Path,
) -> None:
    from toolsel.sources.project import ProjectConfig, find_config

    _project(tmp_path, {".git/HEAD": "", "tools/r.yaml": "tools: []\n", "a=b.yaml": ""})
    (tmp_path / "toolsel.toml").write_text(
        'registry = ["tools", "a=b.yaml", "gh=mcp:npx -y server-github", "docs=tools.json",'
        ' "missing.yaml", "builtin:codex", "mcp:uvx fetch"]\n'
        'connect = true\nallow-unknown = "mcp__*"\n'
        "[lint]\nfail-on = 'warning'\n[serve]\nport = 8\n"
    )
    assert find_config(tmp_path) == ProjectConfig(
        tmp_path / "toolsel.toml",
        (
            tmp_path / "tools",
            tmp_path / "a=b.yaml",  # a file of that name: a path, whatever it reads like
            Path("gh=mcp:npx -y server-github"),
            Path(f"docs={tmp_path / 'tools.json'}"),
            tmp_path / "missing.yaml",
            Path("builtin:codex"),
            Path("mcp:uvx fetch"),
        ),
        {"fail-on": "warning"},
        {"port": 8},
        True,
        ("mcp__*",),
    )
    (tmp_path / "toolsel.toml").write_text('registry = "tools"\nallow-unknown = ["a", "b*"]\n')
    config = find_config(tmp_path)
    assert (config.registry, config.allow_unknown, config.connect) == (
        (tmp_path / "tools",), ("a", "b*"), False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("registry = 3", "`registry` must be a path or a list of paths"),
        ('registry = ["a", 3]', "`registry` must be a path or a list of paths"),
        ("lint = 3", "`lint` must be a table"),
        ('serve = "x"', "`serve` must be a table"),
        ("connect = 1", "`connect` must be true or false"),
        ("allow-unknown = 3", "`allow-unknown` must be a tool name or glob, or a list of them"),
        ('allow-unknown = ["a", 3]', "`allow-unknown` must be a tool name or glob, or a list of them"),
    ],
)  # fmt: skip
def test_each_setting_of_the_wrong_type_is_refused(tmp_path: Path, text: str, message: str) -> None:
    from toolsel.sources.project import find_config

    _project(tmp_path, {".git/HEAD": "", "pyproject.toml": f"[tool.toolsel]\n{text}\n"})
    with pytest.raises(ConfigError) as refused:
        find_config(tmp_path)
    assert str(refused.value) == f"{tmp_path / 'pyproject.toml'}: {message}"


def test_an_unknown_key_in_tool_toolsel_says_which_and_what_was_meant(tmp_path: Path) -> None:
    from toolsel.sources.project import find_config

    _project(
        tmp_path,
        {".git/HEAD": "", "pyproject.toml": "[tool.toolsel]\nconect = true\nregistri = 1\n"},
    )
    with pytest.raises(ConfigError) as refused:
        find_config(tmp_path)
    assert str(refused.value) == (
        f"{tmp_path / 'pyproject.toml'}: unknown key 'conect' in [tool.toolsel] "
        "(did you mean 'connect'?)"
    )


def test_an_unknown_key_in_toolsel_toml_is_refused_too(tmp_path: Path) -> None:
    from toolsel.sources.project import find_config

    _project(tmp_path, {".git/HEAD": "", "toolsel.toml": 'registri = "tools"\n'})
    with pytest.raises(ConfigError, match="unknown key 'registri'"):
        find_config(tmp_path)


@pytest.mark.parametrize(
    ("name", "content", "message", "hint"),
    [
        ("toolsel.toml", b"registry = \xff\n",
         "cannot read: 'utf-8' codec can't decode byte 0xff in position 11: invalid start byte", None),
        ("toolsel.toml", b"registry = [\n", "invalid TOML: Invalid value (at end of document)", None),
        ("toolsel.toml", b"a = 1\nb = 1_" + b"9" * 4300 + b"\n",
         ":2:5: an integer of 4,301 digits, longer than the 4,300 Python converts",
         "fix the file; TOOLSEL_NO_CONFIG=1 reads no config"),
        ("toolsel.toml", b"\nb = " + b"9" * 4301 + b"\n",
         ":2:5: an integer of 4,301 digits, longer than the 4,300 Python converts",
         "fix the file; TOOLSEL_NO_CONFIG=1 reads no config"),
        ("pyproject.toml", b"[tool.x]\n\n y =  " + b"9" * 5000 + b"\n",
         ":3:7: an integer of 5,000 digits, longer than the 4,300 Python converts",
         "fix the file, or keep toolsel's settings in a toolsel.toml beside it, which is read "
         "first; TOOLSEL_NO_CONFIG=1 reads no config"),
        ("toolsel.toml", f"x = {DEEP_ARRAY}\n".encode(),
         ": nested too deeply to read (arrays or inline tables inside one another, hundreds deep)",
         "fix the file; TOOLSEL_NO_CONFIG=1 reads no config"),
    ],
    ids=["not-utf8", "invalid", "long-integer", "long-integer-second-line", "long-integer-pyproject", "deep"],
)  # fmt: skip
def test_a_config_that_cannot_be_read_says_where_and_why(
    tmp_path: Path, name: str, content: bytes, message: str, hint: str | None
) -> None:
    import sys

    from toolsel.sources.project import find_config

    if "4,300" in message and sys.get_int_max_str_digits() != 4300:
        pytest.skip("Python's integer limit is not its default here")
    _project(tmp_path, {".git/HEAD": ""})
    (tmp_path / name).write_bytes(content)
    with pytest.raises(ConfigError) as refused:
        find_config(tmp_path)
    separator = "" if message.startswith(":") else ": "
    assert (refused.value.message, refused.value.hint) == (
        f"{tmp_path / name}{separator}{message}",
        hint,
    )


def test_the_users_own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolsel.sources.project import UserConfig, user_config, user_config_dir

    folder = tmp_path / "mine"
    monkeypatch.setenv("TOOLSEL_CONFIG_DIR", str(folder))
    assert user_config_dir() == folder
    assert user_config() == UserConfig(folder / "config.toml", False)
    folder.mkdir()
    (folder / "config.toml").write_text("connect = true\n")
    assert user_config() == UserConfig(folder / "config.toml", True)
    (folder / "config.toml").write_text("")
    assert user_config() == UserConfig(folder / "config.toml", False)
    for text, message in [
        ("conect = true\n", "unknown key 'conect' (did you mean 'connect'?)"),
        ('connect = "yes"\n', "`connect` must be true or false"),
    ]:
        (folder / "config.toml").write_text(text)
        with pytest.raises(ConfigError) as refused:
            user_config()
        assert str(refused.value) == f"{folder / 'config.toml'}: {message}"


def test_the_users_config_folder_is_the_platforms_without_the_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from toolsel.sources.project import user_config_dir

    if sys.platform != "linux":
        pytest.skip("the XDG folder is Linux's")
    monkeypatch.setenv("TOOLSEL_CONFIG_DIR", "")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_config_dir() == tmp_path / "xdg" / "toolsel"
