"""No nested value of an odd type makes a reader fail: a real record of every format with
any value at any depth (a dict's value or a list's item) replaced by one of another JSON
type, read through every path a user can reach (detection, the fast path, the full parse,
each forced `--input-format`, the command line)."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any, get_args

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from toolsel.replay.events import UNSET, Call
from toolsel.replay.formats import DECODERS, detect
from toolsel.replay.formats.fast import decode_line
from toolsel.replay.formats.fast_shapes import DECODE_ERRORS, FALLBACK, Line

HUGE = 2**70  # beyond 64 bits: msgspec refuses it as an int, orjson reads it as a float
#: Values of every JSON type, and odd ones of each.
ODD_VALUES: list[Any] = [None, True, False, 0, -1, 7, HUGE, 1.5, -0.0, 1e300, "", " ", "x",
                         "0", "true", "\u2028\x00é", "a" * 300, [], [None], [{}], [[]], ["x"],
                         {}, {"type": 1}, {"": None}]  # fmt: skip
#: Examples per format: a quarter of the profile's (CI: 25, 675 in all; explore: 250). The
#: sweep below tries each field with each type in full; these draw places and mixes.
EXAMPLES = max(settings.default.max_examples // 4, 8)
#: One value of each type, for the sweep.
SWEEP_VALUES: list[Any] = [None, True, 0, HUGE, 1.5, "", "x", [], [{}], {}, {"type": 1}]


@cache
def samples_by_format() -> dict[str, list[Any]]:
    """The real records of every format, by the format detected: the bundled transcripts and
    the labelled corpus (its JSON documents read as records, as replay reads them)."""
    from toolsel.replay.lines import Reading, read_objects

    found: dict[str, list[Any]] = {}
    for top in (ROOT / "transcripts", ROOT / "tests/corpus/transcripts"):
        for path in sorted(top.rglob("*")):
            if not path.is_file() or path.suffix in (".md", ".py", ".yaml"):
                continue
            for _, obj in read_objects(str(path), Reading()):
                if (decoded := detect(obj)) is not None:
                    found.setdefault(decoded[0], []).append(obj)
    return found


def _kind(value: Any) -> str:
    """A value's JSON type (a huge integer and each string count apart: odd of their own)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        return "huge"
    return repr(value) if isinstance(value, str) else type(value).__name__


def _value_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path to every value nested in a JSON value (not the value itself)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()  # fmt: skip
    found = []
    for step, item in items:
        found.append((*path, step))
        found += _value_paths(item, (*path, step))
    return found


def _by_field(record: Any) -> dict[tuple[Any, ...], list[tuple[Any, ...]]]:
    """The paths to a record's nested values by field (their path with list positions left
    out): a field of a session's thousandth part is drawn as often as its title."""
    fields: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
    for path in _value_paths(record):
        fields.setdefault(tuple("*" if type(step) is int else step for step in path), []).append(
            path
        )
    return fields


odd_values = st.sampled_from(ODD_VALUES) | st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


@st.composite
def records_with_odd_values(draw: st.DrawFn, fmt: str) -> Any:
    """A real record of `fmt` in which one to three nested values (at any depth) are
    replaced by values of another type."""
    record = copy.deepcopy(draw(st.sampled_from(samples_by_format()[fmt])))
    for _ in range(draw(st.integers(1, 3))):
        fields = _by_field(record)
        if not fields:
            break
        *steps, last = draw(
            st.sampled_from(fields[draw(st.sampled_from(sorted(fields, key=repr)))])
        )
        parent = record
        for step in steps:
            parent = parent[step]
        old = parent[last]
        new = draw(odd_values.filter(lambda new, old=old: _kind(new) != _kind(old)))
        parent[last] = copy.deepcopy(new)  # the odd values are shared
    return record


def assert_sound(decoded: Any) -> None:
    """A decoding is None or (format, events) whose fields have the types they are declared
    with (the structs do not check them, and later steps rely on them)."""
    if decoded is None:
        return
    fmt, events = decoded
    assert type(fmt) is str and isinstance(events, (tuple, list))
    for event in events:
        for name, allowed in _declared(type(event)):
            value = getattr(event, name)
            assert value is UNSET or isinstance(value, allowed), (name, event)


@cache
def _declared(struct: type) -> list[tuple[str, tuple[type, ...]]]:
    """Each field of an event type and the types its annotation allows (Any: not checked)."""
    return [
        (field.name, get_args(field.type) or (field.type,))
        for field in msgspec.structs.fields(struct)
        if field.type is not Any
    ]


def assert_every_decoder_reads(record: Any) -> None:
    """Detection, the fast path on the record's line and every forced decoder read the
    record (on the value written and on the value the full parse reads back)."""
    try:
        raw, values = orjson.dumps(record), [record]
    except TypeError:  # an integer beyond 64 bits: the full parse reads it as a float
        raw = json.dumps(record).encode()
        values = [record, orjson.loads(raw)]
    for value in values:
        assert_sound(detect(value))
        for decoder in DECODERS.values():
            assert_sound(decoder(value))
    try:
        line = msgspec.json.Decoder(Line).decode(raw)
    except DECODE_ERRORS:
        return  # a shape the fast path leaves to the full one
    fast = decode_line(line)
    if fast is not FALLBACK:
        assert_sound(fast)
        assert _plain(fast) == _plain(detect(values[-1])), "the fast path reads it as the full one"


def _plain(decoded: Any) -> Any:
    """A decoding with each call's arguments decoded (the fast path keeps them as JSON text)."""
    if decoded is None:
        return None
    fmt, events = decoded
    return fmt, [
        msgspec.structs.replace(e, input=e.arguments, encoded=False) if isinstance(e, Call) else e
        for e in events
    ]


@pytest.mark.parametrize("fmt", sorted(DECODERS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_an_odd_nested_value_makes_no_decoder_fail(fmt: str, data: st.DataObject) -> None:
    """A `isConfirmed.type` that was a list made a reader fail: any value, at any depth, may
    be of any type."""
    assert_every_decoder_reads(data.draw(records_with_odd_values(fmt)))


@pytest.mark.parametrize("fmt", sorted(DECODERS))
def test_each_field_of_each_format_may_hold_a_value_of_any_type(fmt: str) -> None:
    """Every field of the real records (its first and last place in each record), in turn,
    holds a value of each other type: the sweep the property test draws from, done in full."""
    for record in samples_by_format().get(fmt, []):
        for paths in _by_field(record).values():
            for path in {paths[0], paths[-1]}:
                *steps, last = path
                parent = record
                for step in steps:
                    parent = parent[step]
                old = parent[last]
                for new in SWEEP_VALUES:
                    if _kind(new) != _kind(old):
                        parent[last] = copy.deepcopy(new)
                        try:
                            assert_every_decoder_reads(record)
                        finally:
                            parent[last] = old


def test_every_format_has_real_records() -> None:
    assert set(samples_by_format()) == set(DECODERS)


def _write(folder: Path, records: list[Any]) -> list[Path]:
    """The records as a JSON Lines file, and the first as a JSON document (as VS Code, Cline
    and Continue keep theirs)."""
    lines, document = folder / "t.jsonl", folder / "t.json"
    lines.write_text("".join(json.dumps(record) + "\n" for record in records))
    document.write_text(json.dumps(records[0], indent=2))
    return [lines, document]


@pytest.mark.parametrize("fmt", sorted(DECODERS))
@settings(max_examples=EXAMPLES // 4, deadline=None)
@given(data=st.data())
def test_replaying_odd_records_loses_nothing(fmt: str, data: st.DataObject) -> None:
    """Replay of a file of such records, detected (the fast path, then the full parse) and
    forced to their format, with a registry to check inputs against: every line is counted,
    and every call and result is accounted for."""
    import tempfile

    from toolsel.replay.file import replay_file

    records = data.draw(st.lists(records_with_odd_values(fmt), min_size=1, max_size=4))
    with tempfile.TemporaryDirectory() as folder:
        for path in _write(Path(folder), records):
            for forced in (None, fmt):
                report = replay_file(str(path), registry=_registry(), input_format=forced)
                if path.suffix == ".jsonl":
                    assert report.lines == len(records)
                assert report.calls == report.paired + len(report.unanswered)
                repeats = sum(len(d.lines) - 1 for d in report.duplicate_results)
                assert report.results == report.paired + len(report.orphans) + repeats


@cache
def _registry() -> Any:
    from toolsel.registry import load_registry

    return load_registry(ROOT / "registries")


@settings(
    max_examples=EXAMPLES // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(fmt=st.sampled_from(sorted(DECODERS)), data=st.data())
def test_the_command_line_on_odd_records_exits_with_a_documented_code(
    fmt: str, data: st.DataObject, cli: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`toolsel replay` on such files, detected and forced to their format, exits 0 or 1
    (findings) with its report: never a traceback, never exit 2 (the files can be read)."""
    records = data.draw(st.lists(records_with_odd_values(fmt), min_size=1, max_size=4))
    paths = [str(path) for path in _write(tmp_path_factory.mktemp("odd"), records)]
    for forced in ("auto", fmt):
        run = cli("replay", *paths, "--input-format", forced, "--format", "json")
        assert run.exit_code in (0, 1), run.stderr
        assert "Traceback" not in run.stderr
        assert json.loads(run.stdout)["files"][0]["lines"] == len(records)


#: A list nested 1,000 levels deep, as JSON (the full parse reads up to 1,024 levels).
DEEP = "[" * 1000 + "]" * 1000


def _line_with(record: Any, path: tuple[Any, ...], raw: str) -> str:
    """The record's JSON line with the value at `path` written as `raw` JSON text."""
    *steps, last = path
    parent = record
    for step in steps:
        parent = parent[step]
    old, parent[last] = parent[last], "__toolsel_raw__"
    try:
        return json.dumps(record).replace('"__toolsel_raw__"', raw)
    finally:
        parent[last] = old


@pytest.mark.parametrize("fmt", sorted(DECODERS))
def test_a_value_nested_a_thousand_levels_deep_in_any_field_is_read(
    fmt: str, tmp_path: Path
) -> None:
    """Python writes, measures and compares values recursively, which fails some 900 levels
    down: a tool's name written as text, an input's size and a repeated call's input
    compared with the first failed with a RecursionError. Each field of a record with
    calls, in turn, holds such a value, on two lines (the second repeats the first's ids)."""
    from toolsel.replay.file import replay_file

    samples = samples_by_format()[fmt]
    with_events = [record for record in samples if (detect(record) or ("", ()))[1]]
    path = tmp_path / "t.jsonl"
    for record in (with_events or samples)[:2]:
        for paths in _by_field(record).values():
            line = _line_with(record, paths[0], DEEP)
            path.write_text(f"{line}\n{line}\n")
            for forced in (None, fmt):
                report = replay_file(str(path), input_format=forced)
                assert report.lines == 2
                assert report.calls == report.paired + len(report.unanswered)
