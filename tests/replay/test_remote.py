"""Transcripts in object storage, read from an S3 server the tests start on loopback
(moto's server mode): never a real cloud."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from toolsel.errors import UsageError
from toolsel.replay.lines import expand_inputs
from toolsel.replay.remote import is_remote

moto_server = pytest.importorskip("moto.server", reason="moto[server] is not installed")
pytest.importorskip("s3fs", reason="s3fs (toolsel[remote]) is not installed")

BUCKET = "fleet"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def s3() -> Iterator[str]:
    """An S3 endpoint on 127.0.0.1 holding the bundled transcripts under s3://fleet/t/."""
    import boto3

    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    patch = pytest.MonkeyPatch()
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
    }.items():
        patch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=endpoint)
    client.create_bucket(Bucket=BUCKET)
    for path in sorted((ROOT / "transcripts").rglob("*")):
        if path.is_file():
            key = f"t/{path.relative_to(ROOT / 'transcripts').as_posix()}"
            client.put_object(Bucket=BUCKET, Key=key, Body=path.read_bytes())
    try:
        yield endpoint
    finally:
        server.stop()
        patch.undo()


def local_names(paths: list[str]) -> list[str]:
    return [p.split("/t/", 1)[1] for p in paths]


def test_a_prefix_lists_like_a_directory(s3: str) -> None:
    local = expand_inputs([str(ROOT / "transcripts")])
    remote = expand_inputs([f"s3://{BUCKET}/t/"])
    assert all(is_remote(p) for p in remote)
    assert local_names(remote) == [str(Path(p).relative_to(ROOT / "transcripts")) for p in local]
    assert expand_inputs([f"s3://{BUCKET}/t/grid/*.jsonl"])  # a glob
    assert expand_inputs([f"s3://{BUCKET}/t/codex-exec.jsonl"]) == [f"s3://{BUCKET}/t/codex-exec.jsonl"]  # fmt: skip


def test_stats_of_a_bucket_are_the_stats_of_the_same_files_on_disk(cli: Cli, s3: str) -> None:
    local = json.loads(cli("stats", str(ROOT / "transcripts"), "-f", "json").stdout)
    remote = json.loads(cli("stats", f"s3://{BUCKET}/t", "-f", "json").stdout)
    assert remote["tools"] == local["tools"] and remote["transcripts"] == local["transcripts"]
    assert remote["co_used_pairs"] == local["co_used_pairs"]


def test_replay_reads_whole_documents_and_names_the_url(cli: Cli, s3: str) -> None:
    url = f"s3://{BUCKET}/t/anthropic-messages.json"
    local = json.loads(cli("replay", str(ROOT / "transcripts" / "anthropic-messages.json"), "-f", "json").stdout)  # fmt: skip
    remote = json.loads(cli("replay", url, "-f", "json").stdout)
    assert remote["summary"] == local["summary"]
    assert remote["files"][0]["path"] == url


def test_export_reads_urls_too(cli: Cli, s3: str, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    run = cli("export", f"s3://{BUCKET}/t/", "-o", str(tmp_path / "ev"))
    assert run.exit_code == 0
    expected = cli("stats", f"s3://{BUCKET}/t/").stdout
    assert cli("stats", "--events", str(tmp_path / "ev")).stdout == expected


def test_learn_reads_urls(cli: Cli, s3: str, tmp_path: Path) -> None:
    args = ["learn", "-r", str(ROOT / "registries"), "-o"]
    local = cli(*args, str(tmp_path / "a.yaml"), "--transcripts", str(ROOT / "transcripts"))
    remote = cli(*args, str(tmp_path / "b.yaml"), "--transcripts", f"s3://{BUCKET}/t/")
    assert (remote.exit_code, remote.stdout) == (local.exit_code, local.stdout)
    where = f"{ROOT / 'transcripts'}/"
    assert (tmp_path / "b.yaml").read_text() == (tmp_path / "a.yaml").read_text().replace(
        where, f"s3://{BUCKET}/t/"
    )


def test_a_missing_bucket_or_prefix_is_one_line(cli: Cli, s3: str) -> None:
    run = cli("stats", f"s3://{BUCKET}/nothing-here/")
    assert (run.exit_code, run.stdout) == (2, "")
    assert run.stderr.startswith(f"toolsel: error: s3://{BUCKET}/nothing-here/: no transcript files there")  # fmt: skip
    run = cli("stats", "s3://no-such-bucket/x/")
    assert run.exit_code == 2 and run.stderr.count("\n") == 1
    assert run.stderr.startswith("toolsel: error: s3://no-such-bucket/x/:")


def test_without_fsspec_a_url_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "fsspec", None)
    with pytest.raises(UsageError, match=r"needs fsspec, which is not installed \(install it with: pip install 'toolsel\[remote\]'\)"):  # fmt: skip
        expand_inputs(["gs://bucket/prefix/"])


@pytest.mark.parametrize("command", ["replay", "stats"])
def test_worker_processes_read_urls_as_this_one(
    cli: Cli, s3: str, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers are forked after fsspec has started its threads (listing the bucket): each
    reads its files through its own filesystem, and the output is the same as one
    process's."""
    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    args = [command, f"s3://{BUCKET}/t/", "-f", "json"]
    one, two = cli(*args, "-j", "1"), cli(*args, "-j", "2")
    assert one.stdout and (one.stdout, one.exit_code) == (two.stdout, two.exit_code)
    assert json.loads(one.stdout)


def test_worker_processes_export_urls_as_this_one(
    cli: Cli, s3: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    from toolsel.replay import parallel

    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    for jobs in ("1", "2"):
        run = cli("export", f"s3://{BUCKET}/t/", "-o", str(tmp_path / jobs), "-j", jobs)
        assert run.exit_code == 0, run.stderr
    for table in ("calls", "files"):
        one, two = (pq.read_table(tmp_path / jobs / table) for jobs in ("1", "2"))
        assert one.num_rows and one.equals(two)


def test_a_forked_worker_fetches_its_own_files_only() -> None:
    """A forked child has none of the parent's fetching threads: their fetches, which would
    never finish there, are dropped (the worker hung on them before), and it fetches ahead
    only among the files it was given."""
    from concurrent.futures import Future

    from toolsel.replay.remote import _Prefetcher

    prefetcher = _Prefetcher()
    urls = [f"s3://b/{n}.jsonl" for n in range(5)]
    prefetcher.plan(urls, dict.fromkeys(urls, 10))
    prefetcher.pending[urls[0]] = Future()  # a parent's fetch, in flight at the fork
    lock = prefetcher.lock
    prefetcher.forked()
    assert prefetcher.pending == {} and prefetcher.executor is None and prefetcher.lock is not lock
    prefetcher.only([urls[3], urls[1], "s3://b/unlisted.jsonl"])
    assert prefetcher.order == [urls[3], urls[1]] and prefetcher.place == {urls[3]: 0, urls[1]: 1}
