"""A content-addressed cache of loaded registry files, stored as JSON (never pickle).

The key hashes the file's bytes with the cache format version, so an edited file is never
served stale. Each entry is two files: the load result and the position map (read only when
a command needs a position). Every cache file is sealed against truncation, damage and
copying under another key (`seal`), and written atomically; a file that fails the check is
rebuilt. Failures are otherwise silent: the cache only ever saves time.

A cache someone else could write to is never used: the cache directory, every folder down
to the entry and the entry itself must be the user's and writable by nobody else (POSIX);
otherwise a warning says so, once, and the command runs without the cache.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

try:  # BLAKE2 itself: importing hashlib also loads OpenSSL, 6 ms of every start-up
    from _blake2 import blake2b as blake2b  # re-exported for the other caches
except ImportError:  # pragma: no cover - a Python without the builtin module
    from hashlib import blake2b as blake2b

if TYPE_CHECKING:
    from toolsel.registry.source import SourceMap

#: Part of every key. 7: files with infinity or NaN, cached by 6 with null in their place,
#: are refused now, so 6's entries must not be served. 9: an unknown key that is no typo
#: is an `unread-key` problem (TS011), not `unknown-key`.
CACHE_FORMAT = "toolsel-load/9"
#: The first bytes of every sealed cache file; then the BLAKE2b-256 digest of the key (32
#: bytes), the payload's length (8 bytes) and CRC-32 (4 bytes), and the payload. A CRC is
#: enough to catch a damaged file, and checks a 20 MB ranking index in 9 ms (BLAKE2b: 30).
SEAL = b"toolsel-cache/2\n"
_HEADER = len(SEAL) + 32 + 8 + 4
log = logging.getLogger("toolsel")
#: Files smaller than this load faster than a cache round-trip, so they are not cached.
MIN_CACHED_BYTES = 64 * 1024


def cache_dir() -> Path:
    override = os.environ.get("TOOLSEL_CACHE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("toolsel", appauthor=False))


def cache_enabled() -> bool:
    return os.environ.get("TOOLSEL_NO_CACHE", "") in ("", "0")


def content_key(data: bytes, *, kind: str = CACHE_FORMAT) -> str:
    """BLAKE2b of the format version and the bytes: collision-safe and ~5x faster than sha256."""
    digest = blake2b(kind.encode() + b"\0", digest_size=32)
    digest.update(data)
    return digest.hexdigest()


def entry_path(key: str, suffix: str) -> Path:
    return cache_dir() / key[:2] / f"{key}{suffix}"


def wants_cache(data: bytes, use_cache: bool) -> bool:
    return use_cache and len(data) >= MIN_CACHED_BYTES and cache_enabled()


def _key_digest(key: str) -> bytes:
    return blake2b(key.encode("utf-8", "surrogateescape"), digest_size=32).digest()


def seal(key: str, payload: bytes) -> bytes:
    """`payload` with the header that lets `unseal` prove it is whole and meant for `key`."""
    import zlib

    check = len(payload).to_bytes(8, "big") + zlib.crc32(payload).to_bytes(4, "big")
    return SEAL + _key_digest(key) + check + payload


def unseal(key: str, data: bytes, *, what: str = "cache entry") -> bytes | None:
    """The payload of a sealed file written for `key`, or None (with a note at `-v`) when
    the file is truncated, altered, of another format, or was written for another key."""
    import zlib

    start = _HEADER
    if len(data) < start or not data.startswith(SEAL):
        reason = "empty" if not data else "truncated or not a toolsel cache file"
    elif data[len(SEAL) : len(SEAL) + 32] != _key_digest(key):
        reason = "written for other content"
    elif int.from_bytes(data[start - 12 : start - 4], "big") != len(data) - start:
        reason = "truncated or extended"
    elif zlib.crc32(memoryview(data)[start:]) != int.from_bytes(data[start - 4 : start], "big"):
        reason = "its content does not match its checksum"
    else:
        return data[start:]
    log.info("discarded a %s (%s); it will be rebuilt", what, reason)
    return None


def read_sealed(path: Path, key: str) -> bytes | None:
    """A sealed cache file's payload, or None when it is missing or cannot be trusted."""
    if not _private_folders(path):
        return None
    try:
        with open(path, "rb", opener=_open_no_follow) as handle:
            why = _not_private(os.fstat(handle.fileno()))
            if why is not None:
                _warn_once(f"cache file {path} {why}; ignored")
                return None
            data = handle.read()
    except OSError:
        return None
    return unseal(key, data, what=f"cache file {path.name}")


def write_sealed(path: Path, key: str, payload: bytes) -> None:
    """Raises `UntrustedCache` (an OSError, as every writer expects) where others could
    write."""
    if not _private_folders(path):
        raise UntrustedCache(f"{path.parent} is not private")
    _make_private_folders(path.parent)
    write_atomic(path, seal(key, payload))


class UntrustedCache(OSError):
    """The cache directory could be written by another user; it is not used."""


def _not_private(info: os.stat_result) -> str | None:
    """Why a file or folder with this status could be written by someone else, or None.
    Windows has no owners and modes here (its per-user cache folder is private by ACL)."""
    if not hasattr(os, "getuid"):  # pragma: no cover - POSIX in CI
        return None
    if info.st_uid != os.getuid():
        return f"is owned by another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        who = {0o020: "its group", 0o002: "others"}.get(info.st_mode & 0o022, "group and others")
        return f"is writable by {who} (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def _folders(folder: Path) -> list[Path]:
    """The folders an entry in `folder` is only as safe as: the cache directory and each
    one below it down to `folder`."""
    root = cache_dir()
    try:
        below = folder.relative_to(root).parts
    except ValueError:
        return [folder]
    return [root.joinpath(*below[:depth]) for depth in range(len(below) + 1)]


def _private_folders(path: Path) -> bool:
    """True when every existing folder from the cache directory down to `path` is private;
    else a warning (once) and False."""
    for folder in _folders(path.parent):
        try:
            info = folder.stat()
        except OSError:
            return True  # nothing below a missing folder exists yet; it is made private
        why = _not_private(info)
        if why is not None:
            name = "cache directory" if folder == cache_dir() else "cache folder"
            _warn_once(
                f"{name} {folder} {why}; running without the cache "
                f"(make it private: chmod 700 {folder}, or set TOOLSEL_CACHE_DIR)"
            )
            return False
    return True


def _make_private_folders(folder: Path) -> None:
    """The cache directory and folders below it are made 0700; folders above it (such as
    ~/.cache) as the user's umask says."""
    folders = _folders(folder)
    folders[0].parent.mkdir(parents=True, exist_ok=True)
    for each in folders:
        with contextlib.suppress(FileExistsError):
            each.mkdir(mode=0o700)


def _open_no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning("%s", message)


def load_entry(key: str) -> dict[str, Any] | None:
    """The cached load result for `key`, with a lazily loaded `source` map, or None."""
    payload = _read_json(key, ".load.json")
    if not isinstance(payload, dict) or payload.get("format_version") != CACHE_FORMAT:
        return None
    from toolsel.registry.source import SourceMap

    payload["source"] = SourceMap(loader=lambda: _load_source(key))
    return payload


def _load_source(key: str) -> SourceMap:
    from toolsel.registry.source import SourceMap

    data = read_sealed(entry_path(key, ".source.json"), key)
    try:
        return SourceMap.from_json(orjson.loads(data)) if data is not None else SourceMap({}, {})
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        log.info("discarded a position map that does not add up")
        return SourceMap({}, {})


def store_entry(key: str, payload: dict[str, Any], source: SourceMap) -> None:
    # A document with integers beyond 64 bits is not cached: orjson refuses to write them
    # (TypeError), and would read such digits back as floats.
    with contextlib.suppress(OSError, TypeError, orjson.JSONEncodeError):
        write_sealed(entry_path(key, ".source.json"), key, orjson.dumps(source.to_json()))
        payload = {**payload, "format_version": CACHE_FORMAT}
        write_sealed(entry_path(key, ".load.json"), key, orjson.dumps(payload))


def load_json(key: str, suffix: str) -> Any:
    """Any cached JSON value, or None."""
    return _read_json(key, suffix) if cache_enabled() else None


def _read_json(key: str, suffix: str) -> Any:
    data = read_sealed(entry_path(key, suffix), key)
    try:
        return orjson.loads(data) if data is not None else None
    except orjson.JSONDecodeError:
        return None


def store_json(key: str, suffix: str, value: Any) -> None:
    if cache_enabled():
        with contextlib.suppress(OSError, TypeError, orjson.JSONEncodeError):
            write_sealed(entry_path(key, suffix), key, orjson.dumps(value))


def write_atomic(path: Path, data: bytes) -> None:
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())  # on disk before the rename makes it visible
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
