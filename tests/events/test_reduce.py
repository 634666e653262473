"""The reduce in SQL gives exactly `toolsel stats`'s numbers on the same transcripts."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tests.events.archive import write_archive
from toolsel.errors import UsageError
from toolsel.events.export import export_events
from toolsel.events.reduce import events_stats
from toolsel.registry import load_registry
from toolsel.render.formats import StatsFormat
from toolsel.render.stats import STATS_RENDERERS
from toolsel.replay.driver import replay_paths
from toolsel.replay.totals import usage_stats

pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")

BUNDLED = str(ROOT / "transcripts")
CORPUS = str(ROOT / "tests" / "corpus" / "transcripts")


def rendered(stats: object, fmt: StatsFormat) -> str:
    out = io.StringIO()
    STATS_RENDERERS[fmt](stats, out, top=0)  # type: ignore[arg-type]
    return out.getvalue()


def assert_same_stats(paths: list[str], out: Path, registry: object = None) -> None:
    export_events(paths, str(out))
    expected = usage_stats(replay_paths(paths), registry)  # type: ignore[arg-type]
    got = events_stats(str(out), registry)  # type: ignore[arg-type]
    assert got == expected
    for fmt in (StatsFormat.JSON, StatsFormat.HUMAN):
        assert rendered(got, fmt) == rendered(expected, fmt)


@pytest.mark.parametrize("where", [BUNDLED, CORPUS, "archive"])
def test_stats_from_the_events_equal_stats_from_the_transcripts(
    where: str, archive: Path, tmp_path: Path
) -> None:
    assert_same_stats([str(archive) if where == "archive" else where], tmp_path / "events")


def test_the_registrys_never_called_tools_are_the_same(tmp_path: Path) -> None:
    registry = load_registry([ROOT / "registries"])
    assert_same_stats([BUNDLED], tmp_path / "events", registry)


def test_the_sql_finds_the_copies_export_marked(archive: Path, tmp_path: Path) -> None:
    from toolsel.events.reduce import COPIES

    export_events([str(archive)], str(tmp_path / "events"))
    with duckdb.connect() as con:
        for table in ("calls", "files"):
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{tmp_path}/events/{table}/*.parquet')")  # fmt: skip
        con.execute(COPIES)
        wrong = con.execute("SELECT count(*) FROM marked WHERE is_copy <> copied").fetchone()
        copies = con.execute("SELECT count(*) FROM marked WHERE is_copy").fetchone()
    assert wrong == (0,) and copies[0] > 0


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10_000), sessions=st.integers(1, 30), calls=st.integers(1, 8))
def test_any_generated_archive_reduces_to_the_same_stats(
    tmp_path_factory: pytest.TempPathFactory, seed: int, sessions: int, calls: int
) -> None:
    root = tmp_path_factory.mktemp("gen")
    write_archive(root / "t", sessions, seed=seed, calls=calls)
    assert_same_stats([str(root / "t")], root / "events")


def test_a_directory_that_is_no_export_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"not an events directory \(no calls/\*\.parquet\)"):
        events_stats(str(tmp_path))
    (tmp_path / "calls").mkdir()
    (tmp_path / "files").mkdir()
    (tmp_path / "calls" / "part-0.parquet").write_bytes(b"PAR1 not really")
    (tmp_path / "files" / "part-0.parquet").write_bytes(b"")
    with pytest.raises(UsageError, match=r"part-0\.parquet: not a Parquet file"):
        events_stats(str(tmp_path))


def test_another_schema_version_is_refused(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    export_events([BUNDLED], str(tmp_path / "events"))
    part = tmp_path / "events" / "files" / "part-00000.parquet"
    table = pq.read_table(part)
    pq.write_table(table.replace_schema_metadata({b"toolsel.schema": b"toolsel.events/v0"}), part)
    with pytest.raises(UsageError, match=r"schema 'toolsel.events/v0', but this toolsel reads 'toolsel.events/v1'"):  # fmt: skip
        events_stats(str(tmp_path / "events"))
