"""Transcripts in object storage: `s3://` and `gs://` URLs, read through fsspec (s3fs,
gcsfs: `pip install 'toolsel[remote]'`). A prefix or a glob is listed like a directory.
Listed files are fetched ahead of the reader, PREFETCH_FILES at a time on as many threads,
so the latency of one request is not paid once per file; a file over PREFETCH_MAX_BYTES
is streamed instead. Credentials and endpoints come from the usual places (AWS_* and
AWS_ENDPOINT_URL, GOOGLE_APPLICATION_CREDENTIALS)."""

from __future__ import annotations

import io
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import IO, Any

from toolsel.errors import UsageError

SCHEMES = ("s3://", "gs://", "gcs://")
REMOTE_INSTALL = "pip install 'toolsel[remote]'"
#: Files fetched ahead of the one being read, and the threads that fetch them.
PREFETCH_FILES = 16
#: Larger files are streamed when read, not held whole in memory ahead of time.
PREFETCH_MAX_BYTES = 64 * 1024 * 1024
TRANSCRIPT_SUFFIXES = (".jsonl", ".json", ".traj", ".ndjson")


def is_remote(path: str) -> bool:
    return path.startswith(SCHEMES)


def _filesystem(url: str) -> tuple[Any, str]:
    try:
        import fsspec
    except ImportError:
        raise UsageError(
            f"{url}: reading object storage needs fsspec, which is not installed",
            hint=f"install it with: {REMOTE_INSTALL}",
        ) from None
    try:
        filesystem, path = fsspec.core.url_to_fs(url)
    except ImportError as error:  # fsspec names the package the scheme needs
        raise UsageError(
            f"{url}: {str(error).splitlines()[0]}", hint=f"install it with: {REMOTE_INSTALL}"
        ) from None
    return filesystem, path


def expand_remote(url: str) -> list[str]:
    """The transcript files a URL names: itself, every one under a prefix (recursively), or
    those a glob matches; in name order. Remembered for prefetching."""
    filesystem, path = _filesystem(url)
    scheme = url.split("://", 1)[0]
    try:
        if any(ch in path for ch in "*?["):
            found = filesystem.glob(path, detail=True)
        elif filesystem.isfile(path):
            found = {path: filesystem.info(path)}
        else:
            found = filesystem.find(path, detail=True)
            found = {k: v for k, v in found.items() if k.endswith(TRANSCRIPT_SUFFIXES)}
    except Exception as error:  # botocore, aiohttp, google-auth: each its own kinds
        raise UsageError(f"{url}: cannot list: {_reason(error)}") from None
    files = {
        f"{scheme}://{key}": int(info.get("size") or 0)
        for key, info in found.items()
        if info.get("type") != "directory"
    }
    if not files:
        raise UsageError(f"{url}: no transcript files there", hint="check the bucket and prefix")
    urls = sorted(files)
    _PREFETCHER.plan(urls, files)
    return urls


def open_remote(url: str) -> IO[bytes]:
    """A readable (peekable) stream of the object: its prefetched bytes, or a stream."""
    data = _PREFETCHER.take(url)
    if data is not None:
        return io.BufferedReader(io.BytesIO(data))
    filesystem, path = _filesystem(url)
    try:
        handle: IO[bytes] = filesystem.open(path, "rb")
    except Exception as error:
        raise UsageError(f"{url}: cannot read: {_reason(error)}") from None
    return handle


def read_remote(url: str, limit: int) -> bytes | None:
    """The whole object when it is at most `limit` bytes; None when larger."""
    with open_remote(url) as handle:
        data = handle.read(limit + 1)
    return data if len(data) <= limit else None


def _fetch(url: str) -> bytes:
    filesystem, path = _filesystem(url)
    data: bytes = filesystem.cat_file(path)
    return data


class _Prefetcher:
    """Fetches the files after the one being read, in the order they were listed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.order: list[str] = []
        self.place: dict[str, int] = {}
        self.sizes: dict[str, int] = {}
        self.pending: dict[str, Future[bytes]] = {}
        self.executor: ThreadPoolExecutor | None = None

    def forked(self) -> None:
        """In a forked child: the parent's fetching threads are not here, so neither are
        their fetches; a new lock, and threads of its own when it fetches."""
        self.lock = threading.Lock()
        self.pending = {}
        self.executor = None

    def only(self, urls: list[str]) -> None:
        """Fetch ahead among `urls` alone (a worker's share of the listed files): none of
        the files after them, which other processes read."""
        with self.lock:
            self.order = [u for u in urls if u in self.place]
            self.place = {u: i for i, u in enumerate(self.order)}

    def plan(self, urls: list[str], sizes: dict[str, int]) -> None:
        with self.lock:
            self.order.extend(u for u in urls if u not in self.place)
            self.place = {u: i for i, u in enumerate(self.order)}
            self.sizes.update(sizes)

    def take(self, url: str) -> bytes | None:
        """The object's bytes, fetched ahead (or now, when it is small); None to stream it."""
        with self.lock:
            place = self.place.get(url)
            if place is None:
                return None
            for ahead in self.order[place : place + PREFETCH_FILES]:
                if ahead not in self.pending and self.sizes.get(ahead, 0) <= PREFETCH_MAX_BYTES:
                    if self.executor is None:
                        self.executor = ThreadPoolExecutor(PREFETCH_FILES, "toolsel-fetch")
                    self.pending[ahead] = self.executor.submit(_fetch, ahead)
            future = self.pending.pop(url, None)
        if future is None:
            return None
        try:
            return future.result()
        except Exception as error:
            raise UsageError(f"{url}: cannot read: {_reason(error)}") from None


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


_PREFETCHER = _Prefetcher()
if hasattr(os, "register_at_fork"):  # replay's worker processes are forked (Linux)
    os.register_at_fork(after_in_child=_PREFETCHER.forked)


def fetch_ahead_only(urls: list[str]) -> None:
    """A worker process reads these of the listed URLs: fetch ahead among them only."""
    _PREFETCHER.only(urls)
