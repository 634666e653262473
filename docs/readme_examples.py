"""Re-run the README's `console` examples and write their real output back.

python docs/readme_examples.py           # rewrite every example's output in place
python docs/readme_examples.py --check   # exit 1 if any example's output differs

tests/test_docs.py runs the same comparison; use this script after an intended change of
output, then read the diff before committing it.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = re.compile(r"```console\n(\$ toolsel [^\n]*)\n(.*?)```", re.DOTALL)


def run(command: str) -> str:
    from typer.testing import CliRunner

    from toolsel.cli import app

    result = CliRunner().invoke(app, shlex.split(command)[2:], catch_exceptions=False)
    return result.stdout


def main() -> int:
    check = "--check" in sys.argv
    os.chdir(ROOT)
    os.environ.update(COLUMNS="120", TOOLSEL_CACHE_DIR=tempfile.mkdtemp())
    os.environ.pop("GITHUB_ACTIONS", None)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stale: list[str] = []

    def refresh(match: re.Match[str]) -> str:
        command, expected = match.group(1), match.group(2)
        output = run(command)
        if output.rstrip() != expected.rstrip():
            stale.append(command)
        return f"```console\n{command}\n{output.rstrip()}\n```"

    updated = EXAMPLE.sub(refresh, readme)
    for command in stale:
        print(f"{'stale' if check else 'updated'}: {command}", file=sys.stderr)
    if check:
        return 1 if stale else 0
    (ROOT / "README.md").write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
