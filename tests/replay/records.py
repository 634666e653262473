"""A helper for the format tests: replay records written as a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolsel.replay.file import replay_file
from toolsel.replay.report import FileReport


def replay(folder: Path, records: list[Any], name: str = "t.jsonl", **options: Any) -> FileReport:
    """Write `records` one JSON value per line (a `.json` name: as one indented document)
    into `folder`, and replay the file."""
    path = folder / name
    if name.endswith(".json"):
        path.write_text(json.dumps(records, indent=2) + "\n")
    else:
        path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return replay_file(str(path), **options)


def labelled(name: str) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int], str]:
    """A corpus transcript's counts as replayed and as labelled (calls, results, error
    results, unanswered), and the format it was read as."""
    import yaml

    corpus = Path(__file__).resolve().parent.parent / "corpus/transcripts"
    label = yaml.safe_load((corpus / "labels.yaml").read_text(encoding="utf-8"))["files"][name]
    report = replay_file(str(corpus / name))
    counted = (report.calls, report.results, report.error_results, len(report.unanswered))
    expected = (label["calls"], label["results"], label["error_results"], label["unanswered"])
    return counted, expected, report.format


CORPUS = Path(__file__).resolve().parent.parent / "corpus/transcripts"


def corpus_sizes(name: str) -> dict[str, tuple[float, ...]]:
    """Each tool's result sizes in a corpus transcript, for the tools with a measured one."""
    report = replay_file(str(CORPUS / name))
    return {tool: stats.result_sizes for tool, stats in report.tools.items() if stats.result_sizes}


def corpus_result_bytes(run: Any, name: str) -> dict[str, Any]:
    """Each tool's `result_bytes` in `stats --format json` of a corpus transcript, through
    the CLI (`run`: the `cli` fixture)."""
    result = run("stats", str(CORPUS / name), "--format", "json")
    return {
        tool: entry["result_bytes"] for tool, entry in json.loads(result.stdout)["tools"].items()
    }


def detected_as(obj: Any) -> str | None:
    """The format detection takes a record for (None: no format's)."""
    from toolsel.replay.formats import detect

    decoded = detect(obj)
    return None if decoded is None else decoded[0]


def failed_calls(run: Any, path: Path, fmt: str) -> list[tuple[str, str]]:
    """(tool, message) of each failed call `replay -f json` lists, read as `fmt` (`run`:
    the tests' `cli` fixture)."""
    args = ("replay", str(path), "--no-registry", "--input-format", fmt, "-f", "json")
    files = json.loads(run(*args).stdout)["files"]
    return [(c["tool"], c["message"]) for f in files for c in f["failed_calls"]]
