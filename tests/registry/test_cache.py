"""Caches that cannot lie: every cache file is sealed with its key and a digest of its
content, so a damaged, emptied or misplaced entry is discarded and rebuilt (noted at -v),
and the ranking index is built from exactly the bytes its key hashes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Cli
from toolsel.ranking import load_index, rank_index, store
from toolsel.registry import cache, load_registry

REGISTRY = json.dumps(
    {
        "tools": [
            {"name": "read_file", "description": "Read a file from disk."},
            {"name": "send_email", "description": "Send an email to a person."},
        ]
    }
)
EDITED = REGISTRY.replace("read_file", "fetch_page").replace(
    "Read a file from disk", "Fetch a web page"
)


def _entries(suffix: str) -> list[Path]:
    return sorted(cache.cache_dir().rglob(f"*{suffix}"))


def test_seal_round_trip_and_every_kind_of_damage() -> None:
    sealed = cache.seal("k1", b"payload")
    assert cache.unseal("k1", sealed) == b"payload"
    assert cache.unseal("k2", sealed) is None  # written for another key
    assert cache.unseal("k1", sealed[:-1]) is None  # truncated
    assert cache.unseal("k1", sealed[:-1] + b"X") is None  # altered
    assert cache.unseal("k1", b"") is None
    assert cache.unseal("k1", b'{"valid": "json"}') is None  # not a sealed file


@pytest.mark.parametrize("damage", ["empty", "truncated", "garbage", "other-registry"])
def test_a_damaged_rank_index_is_rebuilt(cli: Cli, write, damage: str) -> None:
    path = write("r.json", REGISTRY)
    assert cli("rank", "read a file", "-r", str(path), "-f", "json").exit_code == 0
    (entry,) = _entries(store.INDEX_SUFFIX)
    data = entry.read_bytes()
    if damage == "empty":
        entry.write_bytes(b"")
    elif damage == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        entry.write_bytes(b"\x00" * 100)
    else:  # another registry's valid index, copied under this key
        other = write("o.json", EDITED)
        cli("rank", "x", "-r", str(other))
        donor = next(p for p in _entries(store.INDEX_SUFFIX) if p != entry)
        entry.write_bytes(donor.read_bytes())
    run = cli("-v", "rank", "read a file", "-r", str(path), "-f", "json")
    assert run.exit_code == 0 and "Traceback" not in run.stderr
    assert json.loads(run.stdout)["results"][0]["name"] == "read_file"  # never fetch_page
    assert "discarded a cache file" in run.stderr and "rebuilt" in run.stderr
    quiet = cli("rank", "read a file", "-r", str(path))
    assert quiet.stderr == ""  # rebuilt and sealed again: nothing to say without -v


def test_a_load_entry_with_wrong_fields_is_discarded(write, monkeypatch) -> None:
    monkeypatch.setattr(cache, "MIN_CACHED_BYTES", 0)
    path = write("r.json", REGISTRY)
    load_registry(path)
    (entry,) = _entries(".load.json")
    key = entry.name.removesuffix(".load.json")
    # valid JSON, correctly sealed, but the wrong shape
    entry.write_bytes(cache.seal(key, b'{"format_version": "toolsel-load/5", "document": 1}'))
    assert [t.name for t in load_registry(path).tools] == ["read_file", "send_email"]


def test_the_index_is_built_from_the_bytes_its_key_hashes(write, monkeypatch) -> None:
    """An edit between hashing and parsing used to store new content under the old key."""
    path = write("r.json", REGISTRY)
    original = store.read_contents

    def read_then_edit(files):
        contents = original(files)
        path.write_text(EDITED)  # someone saves the file right after it was read
        return contents

    monkeypatch.setattr(store, "read_contents", read_then_edit)
    first = load_index(path)
    assert [t.name for t in first.tools] == ["read_file", "send_email"]  # what was hashed
    monkeypatch.setattr(store, "read_contents", original)
    again = load_index(path)  # the edited file has another key: rebuilt, not served stale
    assert rank_index(again, "fetch a web page").results[0].name == "fetch_page"


def test_cache_files_are_written_whole(write, monkeypatch) -> None:
    synced: list[int] = []
    real_fsync = cache.os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(cache.os, "fsync", fsync)
    load_index(write("r.json", REGISTRY))
    assert synced  # fsync before the rename
    assert not list(cache.cache_dir().rglob(".tmp-*"))  # no temporary file left behind


def test_integers_beyond_64_bits_are_never_read_back_from_the_cache_as_floats(
    write, monkeypatch
) -> None:
    """orjson cannot write them, and reads such digits back as floats: the file is simply
    not cached, and every load has the exact integers."""
    from tests.test_emit import BEYOND_64_BITS

    monkeypatch.setattr(cache, "MIN_CACHED_BYTES", 0)
    path = write("big.yaml", BEYOND_64_BITS)
    for _ in range(2):
        (tool,) = load_registry(path).tools
        value = tool.parameters["properties"]["value"]
        assert value["maximum"] == 2**64 and type(value["maximum"]) is int
        assert value["default"] == -(2**63) - 1 and type(value["default"]) is int


# --- whose cache it is ------------------------------------------------------------------

posix_only = pytest.mark.skipif(not hasattr(os, "getuid"), reason="owners and modes are POSIX")


def _forged_entry(write, monkeypatch) -> tuple[Path, Path]:
    """A registry whose cached load result has been swapped for one naming another tool, as
    someone who could write to the cache would plant it (sealed under the right key)."""
    monkeypatch.setattr(cache, "MIN_CACHED_BYTES", 0)
    path = write("r.json", REGISTRY)
    load_registry(path)
    (entry,) = _entries(".load.json")
    key = entry.name.removesuffix(".load.json")
    payload = json.loads(cache.unseal(key, entry.read_bytes()) or b"")
    payload["document"]["tools"][0]["name"] = "planted_tool"
    entry.write_bytes(cache.seal(key, json.dumps(payload).encode()))
    assert "planted_tool" in load_registry(path).names  # what a trusting reader would serve
    return path, entry


@posix_only
@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757], ids=["world", "group", "others"])
def test_a_cache_directory_others_can_write_is_not_used(
    cli: Cli, write, monkeypatch, mode: int
) -> None:
    path, _ = _forged_entry(write, monkeypatch)
    root = cache.cache_dir()
    root.chmod(mode)
    before = sorted(root.rglob("*"))
    run = cli("rank", "read a file", "-r", str(path), "-f", "json")
    assert run.exit_code == 0 and "Traceback" not in run.stderr
    assert json.loads(run.stdout)["results"][0]["name"] == "read_file"
    (warning,) = run.stderr.splitlines()  # once, though the cache is asked several times
    assert warning.startswith(f"toolsel: warning: cache directory {root} is writable by ")
    assert f"(mode {mode:o}); running without the cache" in warning
    assert sorted(root.rglob("*")) == before  # nothing written either


@posix_only
def test_a_cache_directory_of_another_user_is_not_used(cli: Cli, write, monkeypatch) -> None:
    path, _ = _forged_entry(write, monkeypatch)
    monkeypatch.setattr(os, "getuid", lambda: 4242)
    run = cli("rank", "read a file", "-r", str(path), "-f", "json")
    assert json.loads(run.stdout)["results"][0]["name"] == "read_file"
    assert "is owned by another user (uid " in run.stderr
    assert "running without the cache" in run.stderr and run.stderr.count("\n") == 1


@posix_only
@pytest.mark.parametrize("how", ["owner", "mode"])
def test_a_planted_entry_is_not_read(cli: Cli, write, monkeypatch, how: str) -> None:
    path, entry = _forged_entry(write, monkeypatch)
    if how == "mode":
        entry.chmod(0o666)
    else:  # files of other users cannot be made without root: fake the owner fstat sees
        planted, real_fstat = entry.stat().st_ino, os.fstat

        def fstat(fd: int) -> os.stat_result:
            info = real_fstat(fd)
            if info.st_ino != planted:
                return info
            return os.stat_result((info.st_mode, info.st_ino, info.st_dev, info.st_nlink, 4242, *info[5:]))  # fmt: skip

        monkeypatch.setattr(os, "fstat", fstat)
    run = cli("rank", "read a file", "-r", str(path), "-f", "json")
    assert json.loads(run.stdout)["results"][0]["name"] == "read_file"
    why = "is owned by another user (uid 4242)" if how == "owner" else "is writable by"
    assert run.stderr.startswith(f"toolsel: warning: cache file {entry} {why}")
    assert run.stderr.endswith("; ignored\n") and run.stderr.count("\n") == 1


@posix_only
def test_new_cache_directories_are_private(cli: Cli, write, monkeypatch, tmp_path) -> None:
    root = tmp_path / "home" / "cache" / "toolsel"
    monkeypatch.setenv("TOOLSEL_CACHE_DIR", str(root))
    monkeypatch.setattr(cache, "MIN_CACHED_BYTES", 0)
    assert cli("rank", "read", "-r", str(write("r.json", REGISTRY))).exit_code == 0
    folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
    files = [p for p in root.rglob("*") if p.is_file()]
    assert len(folders) >= 2 and len(files) >= 3
    assert {oct(p.stat().st_mode & 0o777) for p in folders} == {"0o700"}
    assert {oct(p.stat().st_mode & 0o777) for p in files} == {"0o600"}
