"""Caches that cannot lie: every cache file is sealed with its key and a digest of its
content, so a damaged, emptied or misplaced entry is discarded and rebuilt (noted at -v),
and the ranking index is built from exactly the bytes its key hashes."""

from __future__ import annotations

import json
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
