"""`replay.packing`: a file report survives being flattened, pickled and unpacked whole, and
the compact form keeps each tool's median latency in place of its latencies."""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace

from tests.replay.reports import full_report
from toolsel.replay.packing import (
    PackedReports,
    flatten,
    pack,
    pack_compact,
    unflatten,
    unpack,
)
from toolsel.replay.report import FileReport


def test_the_full_report_sets_every_field() -> None:
    report, empty = full_report(), FileReport("a.jsonl")
    same = [f.name for f in fields(FileReport) if getattr(report, f.name) == getattr(empty, f.name)]
    assert same == ["path"]


def test_flatten_and_pack_keep_every_field() -> None:
    report = full_report()
    assert unflatten(flatten(report)) == report
    assert unpack(pack(report)) == report
    nested = [item for value in flatten(report) if isinstance(value, tuple) for item in value]
    assert nested and not any(is_dataclass(item) for item in nested)  # findings as tuples


def test_the_compact_form_keeps_medians_in_place_of_latencies() -> None:
    report = full_report()
    compact = unpack(pack_compact(report))
    assert compact.tools["Bash"].latencies == ()
    assert compact.tools["Bash"].median_latency == 1.5
    assert compact.tools["Read"].median_latency == 4.0
    assert compact.tools["Bash"].result_sizes == compact.tools["Bash"].input_sizes == ()
    counts = ("calls", "errors", "answered", "copied", "copied_errors", "copied_answered")
    for name, stats in report.tools.items():
        assert [getattr(compact.tools[name], c) for c in counts] == [
            getattr(stats, c) for c in counts
        ]
    assert replace(compact, tools=report.tools) == report


def test_packed_reports_unpack_as_they_are_read() -> None:
    reports = [full_report(f"{n}.jsonl") for n in range(3)]
    packed = PackedReports([pack(r) for r in reports])
    assert len(packed) == 3
    assert packed[1] == reports[1]
    assert packed[1:] == tuple(reports[1:])
    assert list(packed) == reports
    assert packed == reports and packed != reports[:2]
