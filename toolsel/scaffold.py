"""`toolsel init`: a starter project (configuration, a registry skeleton, golden tests) that
lints clean and passes its tests as written. Nothing that exists is ever overwritten."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from enum import StrEnum
from importlib.resources import files
from pathlib import Path

from toolsel.errors import UsageError


class StarterKind(StrEnum):
    CONFIG = "configuration"
    REGISTRY = "registry"
    TESTS = "golden tests"


@dataclass(frozen=True, slots=True)
class StarterFile:
    path: Path
    kind: StarterKind
    appended: bool = False  # a table added to an existing file (pyproject.toml)


@dataclass(frozen=True, slots=True)
class InitResult:
    directory: Path
    files: tuple[StarterFile, ...]
    written: bool  # False for a dry run


REGISTRY = Path("registries") / "tools.yaml"
TESTS = Path("tests") / "toolsel.yaml"
#: A prompt the skeleton's registry ranks, for the "next" commands.
SAMPLE_PROMPT = "refund order A-1042"


def starter_text(name: str) -> str:
    """One of the starter files shipped in `toolsel/starter/`."""
    return files("toolsel.starter").joinpath(name).read_text(encoding="utf-8")


def init_project(directory: Path, *, pyproject: bool = False, dry_run: bool = False) -> InitResult:
    """Write toolsel.toml (or append `[tool.toolsel]` to pyproject.toml), the registry
    skeleton and its golden tests under `directory`. Every file is checked before any is
    written, so a refusal leaves the folder as it was."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{_shown(directory)} is not a folder; give a folder to initialise")
    config = directory / ("pyproject.toml" if pyproject else "toolsel.toml")
    plan = (
        StarterFile(config, StarterKind.CONFIG, appended=pyproject),
        StarterFile(directory / REGISTRY, StarterKind.REGISTRY),
        StarterFile(directory / TESTS, StarterKind.TESTS),
    )
    if pyproject:
        existing = _pyproject_text(config)
        if (directory / "toolsel.toml").exists():
            raise UsageError(
                f"{_shown(directory / 'toolsel.toml')} already exists and is read before "
                "pyproject.toml",
                hint="keep the settings there, or remove it first",
            )
    for item in plan:
        if not item.appended and (item.path.exists() or item.path.is_symlink()):
            raise UsageError(
                f"{_shown(item.path)} already exists; toolsel init never overwrites a file",
                hint="move it away, or init another folder",
            )
    if not dry_run:
        _write(plan, existing if pyproject else "")
    return InitResult(directory, plan, written=not dry_run)


def _write(plan: tuple[StarterFile, ...], pyproject_text: str) -> None:
    from toolsel.atomic import create_file, replace_file

    contents = {
        StarterKind.CONFIG: "pyproject-table.toml" if plan[0].appended else "toolsel.toml",
        StarterKind.REGISTRY: "tools.yaml",
        StarterKind.TESTS: "golden.yaml",
    }
    for item in plan:
        text = starter_text(contents[item.kind])
        if item.appended:
            replace_file(item.path, pyproject_text + _blank_line_after(pyproject_text) + text)
            continue
        try:
            item.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            from toolsel.inputs import os_reason

            raise UsageError(
                f"{_shown(item.path.parent)}: cannot create: {os_reason(exc)}"
            ) from None
        create_file(item.path, text)


def _blank_line_after(text: str) -> str:
    """What separates the appended table from the file's last line by one blank line."""
    if not text or text.endswith("\n\n"):
        return ""
    return "\n" if text.endswith("\n") else "\n\n"


def _pyproject_text(path: Path) -> str:
    """The pyproject.toml `--pyproject` adds to: it must exist, parse, and have no
    `[tool.toolsel]` yet."""
    shown = _shown(path)
    if not path.is_file():
        raise UsageError(
            f"{shown} not found; --pyproject adds [tool.toolsel] to an existing pyproject.toml",
            hint="leave out --pyproject to write toolsel.toml",
        )
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, RecursionError, ValueError) as exc:  # TOMLDecodeError, UnicodeDecodeError
        raise UsageError(f"{shown}: cannot read it as TOML: {exc}") from None
    tool = data.get("tool")
    if isinstance(tool, dict) and "toolsel" in tool:
        raise UsageError(
            f"{shown} already has a [tool.toolsel] table; toolsel init never overwrites it"
        )
    return text


def _shown(path: Path) -> str:
    from toolsel.inputs import display_path

    return display_path(path)
