"""Re-run the `console` examples of the README and docs/*.md and write their real output back.

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


def documented_pages() -> list[Path]:
    """The README and every page of docs/ (examples run from the repository root)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def run(command: str) -> str:
    from typer.testing import CliRunner

    from toolsel.cli import app

    result = CliRunner().invoke(app, shlex.split(command)[2:], catch_exceptions=False)
    return result.stdout


def main() -> int:
    check = "--check" in sys.argv
    os.chdir(ROOT)
    # as after the quickstart, which installs no extra: `auto` ranks as hybrid
    os.environ.update(COLUMNS="120", TOOLSEL_CACHE_DIR=tempfile.mkdtemp(), TOOLSEL_EMBED="0")
    os.environ.pop("GITHUB_ACTIONS", None)
    stale: list[str] = []

    def refresh(match: re.Match[str]) -> str:
        command, expected = match.group(1), match.group(2)
        output = run(command)
        if output.rstrip() != expected.rstrip():
            stale.append(command)
        return f"```console\n{command}\n{output.rstrip()}\n```"

    for page in documented_pages():
        text = page.read_text(encoding="utf-8")
        updated = EXAMPLE.sub(refresh, text)
        if not check and updated != text:
            page.write_text(updated, encoding="utf-8")
    for command in stale:
        print(f"{'stale' if check else 'updated'}: {command}", file=sys.stderr)
    if check:
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
