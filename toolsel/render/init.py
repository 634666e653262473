"""Render `toolsel init`: the files written, then the commands to run next."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import IO

from toolsel.render.escape import visible
from toolsel.scaffold import REGISTRY, SAMPLE_PROMPT, TESTS, InitResult


def render_init(result: InitResult, out: IO[str]) -> None:
    for item in result.files:
        if result.written:
            action = "Added [tool.toolsel] to" if item.appended else "Wrote"
        else:
            action = "Would add [tool.toolsel] to" if item.appended else "Would write"
        out.write(visible(f"{action} {item.path} ({item.kind})") + "\n")
    out.write("\nNext:\n")
    steps: list[tuple[str, str]] = []
    if result.directory.resolve() != Path.cwd().resolve():
        steps.append((f"cd {shlex.quote(str(result.directory))}", ""))
    steps += [
        ("toolsel lint", f"check {REGISTRY.as_posix()}"),
        (f"toolsel test {TESTS.as_posix()}", "run the golden tests"),
        (f"toolsel rank {shlex.quote(SAMPLE_PROMPT)}", "which tools a prompt selects"),
    ]
    width = max(len(command) for command, _ in steps)
    for command, why in steps:
        line = f"  {command:<{width}}  # {why}" if why else f"  {command}"
        out.write(visible(line) + "\n")
