"""The work behind `toolsel replay` and `toolsel stats`."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

from toolsel.errors import ExitCode, UsageError
from toolsel.registry.model import Permission
from toolsel.render.formats import ReplayFormat
from toolsel.replay.core import Event, ReplayResult, replay_paths

FAIL_ON = (
    "unanswered",
    "orphans",
    "duplicates",
    "conflicting",
    "duplicate-results",
    "unreadable",
    "violations",
)
DEFAULT_FAIL_ON = ("orphans", "conflicting", "unreadable", "violations")


def parse_fail_on(values: list[str] | None) -> tuple[str, ...]:
    chosen = [v.strip() for value in values or [] for v in value.split(",") if v.strip()]
    if not chosen:
        return DEFAULT_FAIL_ON
    if chosen == ["none"]:
        return ()
    for item in chosen:
        if item not in FAIL_ON:
            from toolsel.suggest import did_you_mean

            raise UsageError(
                f"--fail-on: unknown finding kind {item!r}{did_you_mean(item, FAIL_ON)}",
                hint=f"kinds: {', '.join(FAIL_ON)}, or none",
            )
    return tuple(chosen)


def failed(result: ReplayResult, fail_on: tuple[str, ...]) -> bool:
    for f in result.files:
        checks = {
            "unanswered": bool(f.unanswered),
            "orphans": bool(f.orphans),
            "duplicates": bool(f.duplicate_calls),
            "conflicting": any(d.kind == "conflicting" for d in f.duplicate_calls),
            "duplicate-results": bool(f.duplicate_results),
            "unreadable": bool(f.unreadable),
            "violations": bool(f.violations),
        }
        if any(checks[kind] for kind in fail_on):
            return True
    return False


PROGRESS_MIN_BYTES = 50 * 1024 * 1024


def run_replay(
    paths: list[str],
    registry_paths: list[Path] | None,
    permission: Permission | None,
    output_format: ReplayFormat,
    fail_on: tuple[str, ...],
    *,
    use_cache: bool,
    input_format: str | None = None,
) -> int:
    from toolsel.render.console import make_console
    from toolsel.render.replay import event_line, render_replay_human, render_replay_json

    registry = None
    checker_factory = None
    if registry_paths:
        from toolsel.registry import load_registry
        from toolsel.replay.checks import RegistryChecker

        registry = load_registry(registry_paths, use_cache=use_cache)
        checker_factory = lambda: RegistryChecker(registry, permission)  # noqa: E731
    parent_tools = _parent_tools(registry)
    sink = None
    if output_format is ReplayFormat.JSONL:

        def sink(event: Event) -> None:
            sys.stdout.write(event_line(event, registry))

    with _progress_bar(paths) as progress:
        result = replay_paths(
            paths,
            checker_factory=checker_factory,
            sink=sink,
            parent_tools=parent_tools,
            input_format=input_format,
            progress=progress,
        )
    if output_format is ReplayFormat.JSON:
        sys.stdout.write(render_replay_json(result))
    elif output_format is ReplayFormat.HUMAN:
        render_replay_human(result, make_console())
    return int(ExitCode.FINDINGS) if failed(result, fail_on) else int(ExitCode.OK)


@contextlib.contextmanager
def _progress_bar(paths: list[str]) -> Iterator[Any]:
    """A byte-progress bar on stderr, only when stderr is a terminal and the input is large."""
    from toolsel.replay.core import expand_inputs

    files = [p for p in expand_inputs(paths) if p != "-"]
    total = sum(Path(p).stat().st_size for p in files)
    from toolsel.render.progress import progress_bar, wants_progress

    if not wants_progress() or total < PROGRESS_MIN_BYTES:
        yield None
        return
    with progress_bar("replaying", total, unit="bytes") as advance:
        yield advance


def _parent_tools(registry: Any) -> frozenset[str]:
    from toolsel.replay.matcher import PARENT_TASK_TOOLS

    if registry is None:
        return PARENT_TASK_TOOLS
    return PARENT_TASK_TOOLS | {t.name for t in registry.tools if t.launches_subagent}


def stats_payload(result: ReplayResult, registry: Any) -> dict[str, Any]:
    """Usage across transcripts: per tool, never-called registry tools, co-used pairs."""
    import statistics

    tools: dict[str, dict[str, Any]] = {}
    latencies: dict[str, list[float]] = {}
    pairs: dict[tuple[str, str], int] = {}
    for f in result.files:
        # a tool whose calls in this file are all copies of an earlier file's does not count
        used = {name: s for name, s in f.tools.items() if s.calls > s.copied}
        for name, s in used.items():
            entry = tools.setdefault(name, {"calls": 0, "errors": 0, "transcripts": 0})
            # copies of an earlier file's calls (resumed sessions) are counted once
            entry["calls"] += s.calls - s.copied
            entry["errors"] += s.errors - s.copied_errors
            entry["transcripts"] += 1
            latencies.setdefault(name, []).extend(s.latencies)
        for a, b in combinations(sorted(used), 2):
            pairs[(a, b)] = pairs.get((a, b), 0) + 1
    for name, entry in tools.items():
        entry["error_rate"] = round(entry["errors"] / entry["calls"], 4) if entry["calls"] else 0.0
        entry["success_rate"] = round(1 - entry["error_rate"], 4)
        entry["median_latency_s"] = (
            statistics.median(latencies[name]) if latencies.get(name) else None
        )
    never = (
        sorted(t.name for t in registry.tools if t.name not in tools)
        if registry is not None
        else None
    )
    top_pairs = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[:20]
    return {
        "schema": "toolsel.stats/v1",
        "transcripts": len(result.files),
        "tools": dict(sorted(tools.items(), key=lambda kv: (-kv[1]["calls"], kv[0]))),
        "never_called": never,
        "co_used_pairs": [{"tools": list(pair), "transcripts": n} for pair, n in top_pairs],
    }
