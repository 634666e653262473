"""Mutation testing of one module with mutmut, and a table of the results.

    python benchmarks/mutation.py run toolsel/replay/matcher.py
    python benchmarks/mutation.py run toolsel/serve/service.py --tests tests/serve
    python benchmarks/mutation.py run toolsel/replay/matcher.py --again   # survivors only
    python benchmarks/mutation.py run toolsel/replay/matcher.py --timeouts  # timeouts, one by one
    python benchmarks/mutation.py run toolsel/replay/matcher.py --resume  # a stopped run
    python benchmarks/mutation.py run toolsel/lint/rules/schema.py --sample 150
    python benchmarks/mutation.py report toolsel/replay/matcher.py --diffs

`run` mutates one module (mutmut's `only_mutate`, set here so the rest of `[tool.mutmut]`
in pyproject.toml stays the one configuration), starting from a clean `mutants/`. mutmut
runs the tests once to learn which tests reach each function, then runs each mutant with
those tests only. `--tests` narrows that first run (default: the test files in `TESTS`
for the module, else the whole suite). `--again` keeps `mutants/` from the last run of the
same module and retests only its survivors (after adding tests that should kill them);
`--resume` keeps it and checks only the mutants a stopped run did not reach. `--timeouts`
keeps it and retests the last run's timeouts one mutant at a time (a mutant that only timed
out because the machine was busy is then killed or survives on its merits). `--sample N`
checks a seeded random sample of N of the module's mutants (a stable choice, so a second
`--sample` or `--again` continues the same sample): an estimate where a full run takes hours.

`report` prints one row per module (mutants, killed, survived, timeouts, no tests, score)
and then every survivor with its line (`--diffs`: the whole diff, as `mutmut show`).
Score = (killed + timeouts) / mutants checked: a mutant that makes the tests hang was caught.

Mutation runs take minutes per module, so they are a benchmark, never part of CI; the
survivors judged equivalent or accepted are written down in docs/mutation.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
MODULE_MARK = MUTANTS / "toolsel-module.txt"

#: The tests each module's mutants are run against: the module's own test file (the suite
#: mirrors the package) and the few files that pin it too. Not the whole suite: with it a
#: run takes hours (every lint test runs every rule), and a mutant only the CLI's
#: end-to-end tests notice is a gap in the module's own tests. A module not listed gets the
#: whole suite; `--tests` overrides.
TESTS: dict[str, list[str]] = {
    "toolsel/replay/matcher.py": [
        "tests/replay/test_matcher.py",
        "tests/replay/test_matcher_properties.py",
    ],
    **{
        f"toolsel/ranking/{name}.py": [
            "tests/ranking/test_core.py",
            "tests/ranking/test_rank.py",
            "tests/ranking/test_semantic.py",
        ]
        for name in ("core", "methods", "strength")
    },
    "toolsel/serve/service.py": ["tests/serve/test_service.py"],
    "toolsel/serve/usage.py": ["tests/serve/test_usage.py"],
    "toolsel/lint/rules/schema.py": ["tests/lint/test_schema.py"],
    "toolsel/lint/rules/references.py": ["tests/lint/test_references.py"],
    # one reader per transcript format, each pinned by its own test file
    **{
        f"toolsel/replay/formats/{name}.py": [f"tests/replay/test_{name}.py"]
        for name in (
            "amp antigravity chat chatreplay claude cline codex continuedev copilot cursor droid"
            " fast gemini goose grok kimi openhands opencode pi qwen vscode_chat"
        ).split()
    },
    # readers of issue 34 whose signatures and near misses are pinned together there too
    **{
        f"toolsel/replay/formats/{name}.py": [
            f"tests/replay/test_{name}.py",
            "tests/replay/test_signatures.py",
        ]
        for name in ("continuedev", "goose", "opencode", "qwen")
    },
    # the fast path's structs and decoders, split from fast.py: pinned by its test file,
    # which checks that the fast and the full decoding paths give the same events
    "toolsel/replay/formats/fast_shapes.py": ["tests/replay/test_fast.py"],
    **{
        f"toolsel/replay/formats/{name}.py": [
            f"tests/replay/test_{name}.py",
            "tests/replay/test_fast.py",
        ]
        for name in ("fast_claude", "fast_codex")
    },
    "toolsel/replay/formats/__init__.py": ["tests/replay/test_formats.py"],
    # what the readers share (ids as text, encoded arguments): pinned where they were born
    "toolsel/replay/formats/shared.py": [
        "tests/replay/test_formats.py",
        "tests/replay/test_codex.py",
        "tests/replay/test_claude.py",
    ],
    # issue 31: lock, diff, live servers and sources, each against its own test files
    "toolsel/lock.py": ["tests/test_lock.py"],
    **{
        f"toolsel/diff/{name}.py": [f"tests/diff/test_{name}.py"]
        for name in "canonical context engine evidence gitbase ignore match model sources".split()
    },
    **{
        f"toolsel/diff/rules/{name}.py": [
            f"tests/diff/rules/test_{name}.py",
            "tests/diff/test_rules.py",  # the same rules on whole registries
        ]
        for name in "graph identity lifecycle loading parameters security selection".split()
    },
    "toolsel/diff/rules/schema.py": ["tests/diff/test_schema.py"],
    "toolsel/diff/rules/keywords.py": ["tests/diff/test_schema.py"],
    "toolsel/live/__init__.py": ["tests/live/test_resolve.py"],
    "toolsel/live/fetch.py": ["tests/live/test_fetch.py", "tests/live/test_stdio.py"],
    "toolsel/live/sources.py": ["tests/live/test_sources.py"],
    "toolsel/live/configfile.py": [
        "tests/live/test_configfile.py",
        "tests/live/test_sources.py",
        "tests/cli/test_live.py",
    ],
    "toolsel/live/stdio.py": ["tests/live/test_stdio.py"],
    **{
        f"toolsel/sources/{name}.py": [
            "tests/sources",
            "tests/test_config.py",
            "tests/cli/test_registry_default.py",
        ]
        for name in ("__init__", "grammar", "project", "trust")
    },
}


@dataclass(frozen=True)
class Tally:
    module: str
    statuses: Counter[str]
    survivors: tuple[str, ...]
    timeouts: tuple[str, ...] = ()

    @property
    def mutants(self) -> int:
        return sum(self.statuses.values())

    @property
    def checked(self) -> int:
        return self.mutants - self.statuses["not checked"]

    @property
    def detected(self) -> int:
        return self.statuses["killed"] + self.statuses["timeout"]

    @property
    def score(self) -> float:
        return self.detected / self.checked if self.checked else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="mutate one module and run its tests on each mutant")
    run.add_argument(
        "modules", nargs="+", help="files under toolsel/, e.g. toolsel/replay/matcher.py"
    )
    run.add_argument("--tests", nargs="+", help="test paths for mutmut's first (stats) run")
    run.add_argument("--again", action="store_true", help="retest the last run's survivors")
    run.add_argument("--resume", action="store_true", help="finish a stopped run")
    run.add_argument(
        "--timeouts", action="store_true", help="retest the last run's timeouts one at a time"
    )
    run.add_argument("--sample", type=int, help="check a seeded random sample of N mutants")
    run.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    report = commands.add_parser("report", help="the table of the last run, and its survivors")
    report.add_argument("modules", nargs="*", help="default: every module mutated so far")
    report.add_argument("--diffs", action="store_true", help="show each survivor's diff")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.command == "run":
        return run_modules(
            args.modules,
            args.tests,
            again=args.again,
            timeouts=args.timeouts,
            resume=args.resume,
            sample=args.sample,
            children=args.max_children,
        )
    return print_report(args.modules or mutated_modules(), diffs=args.diffs)


def run_modules(
    given: list[str],
    tests: list[str] | None,
    *,
    again: bool,
    timeouts: bool,
    resume: bool,
    sample: int | None,
    children: int,
) -> int:
    modules = []
    for module in given:
        path = Path(module)
        if path.is_absolute():
            path = path.relative_to(ROOT)
        if path.suffix != ".py" or not (ROOT / path).is_file() or path.parts[0] != "toolsel":
            print(f"mutation.py: {module}: not a module under toolsel/", file=sys.stderr)
            return 2
        modules.append(path.as_posix())
    previous = MODULE_MARK.read_text().split() if MODULE_MARK.exists() else None
    names: list[str] = []
    if timeouts and previous == modules:
        names = [name for module in modules for name in tally(module).timeouts]
        if not names:
            print("no timeouts left")
            return print_report(modules, diffs=False)
        children = 1
    elif again and previous == modules:
        names = [name for module in modules for name in tally(module).survivors]
        if not names:
            print("no survivors left")
            return print_report(modules, diffs=False)
    elif (resume or sample) and previous == modules:
        pass  # mutmut skips the mutants that already have a result
    elif MUTANTS.exists():
        shutil.rmtree(MUTANTS)  # a fresh run: mutmut's caches belong to the modules it mutated
    from mutmut.__main__ import cli
    from mutmut.configuration import config

    settings = config()
    settings.only_mutate = modules
    selection = tests or sorted({t for m in modules for t in TESTS.get(m, ["tests"])})
    settings.pytest_add_cli_args_test_selection = selection
    MUTANTS.mkdir(exist_ok=True)
    # pytest's temporary folders of this run's own, not the machine's /tmp/pytest-of-<user>:
    # a run in another worktree would clean them away under this one's tests (a spurious
    # PytestWarning, an error here, stopped a run and can kill a mutant that should survive)
    (MUTANTS / "tmp").mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(MUTANTS / "tmp")
    MODULE_MARK.write_text("\n".join(modules) + "\n")
    if sample and not names:
        names = sampled(modules, sample)
        if not names:
            print("every sampled mutant has a result")
            return print_report(modules, diffs=False)
    started = time.monotonic()
    print(f"mutmut on {' '.join(modules)}; tests: {' '.join(selection)}")
    with contextlib.suppress(SystemExit):
        cli(["run", "--max-children", str(children), *names], standalone_mode=False)
    print(f"\n{' '.join(modules)}: {time.monotonic() - started:.0f} s")
    return print_report(modules, diffs=False)


def sampled(modules: list[str], size: int) -> list[str]:
    """The mutants of a seeded random sample (generated first if need be) without a result."""
    import random

    from mutmut.mutation.data import SourceFileMutationData

    if not all((MUTANTS / f"{module}.meta").exists() for module in modules):
        generate()
    chosen = []
    for module in modules:
        data = SourceFileMutationData(path=module)
        data.load()
        every = sorted(data.exit_code_by_key)
        picked = random.Random(module).sample(every, min(size, len(every)))
        chosen += [name for name in picked if data.exit_code_by_key[name] is None]
    return chosen


def generate() -> None:
    """mutmut's first step alone: copy the sources into mutants/ and write the mutants."""
    from mutmut.__main__ import create_mutants
    from mutmut.mutation.trampoline import set_mutant_under_test
    from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths

    set_mutant_under_test("mutant_generation")
    copy_src_dir()
    copy_also_copy_files()
    setup_source_paths()
    create_mutants(os.cpu_count() or 2)


def mutated_modules() -> list[str]:
    return sorted(
        p.relative_to(MUTANTS).as_posix().removesuffix(".meta")
        for p in (MUTANTS / "toolsel").rglob("*.py.meta")
    )


def tally(module: str) -> Tally:
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.stats import status_by_exit_code

    data = SourceFileMutationData(path=module)
    data.load()
    statuses = Counter(status_by_exit_code[code] for code in data.exit_code_by_key.values())
    survivors = tuple(
        name
        for name, code in data.exit_code_by_key.items()
        if status_by_exit_code[code] in ("survived", "no tests", "suspicious")
    )
    timeouts = tuple(
        name
        for name, code in data.exit_code_by_key.items()
        if status_by_exit_code[code] == "timeout"
    )
    return Tally(module, statuses, survivors, timeouts)


def print_report(modules: list[str], *, diffs: bool) -> int:
    if not modules:
        print("no mutation run found: python benchmarks/mutation.py run toolsel/MODULE.py")
        return 1
    tallies = [tally(module) for module in modules]
    header = "| module | mutants | checked | killed | survived | timeouts | no tests | score |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for t in tallies:
        s = t.statuses
        print(
            f"| {t.module} | {t.mutants} | {t.checked} | {s['killed']} "
            f"| {s['survived'] + s['suspicious']} "
            f"| {s['timeout']} | {s['no tests']} | {t.score:.1%} |"
        )
    for t in tallies:
        if t.statuses["not checked"]:
            print(
                f"\n{t.module}: {t.statuses['not checked']} mutants not checked (stopped or sampled)"
            )
        if t.survivors:
            print(f"\nsurvivors in {t.module} ({len(t.survivors)}):")
        for name in t.survivors:
            print(survivor_text(name, t.module, diffs=diffs))
    return 0


def survivor_text(name: str, module: str, *, diffs: bool) -> str:
    """`name: - old / + new` (the changed lines of mutmut's diff), or the whole diff."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    with contextlib.redirect_stdout(io.StringIO()):
        diff = get_diff_for_mutant(name, path=module)
    if diffs:
        return f"# {name}\n{diff}"
    changed = [
        line.strip()
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return f"  {name}: " + "  ".join(changed)


if __name__ == "__main__":
    sys.exit(main())
