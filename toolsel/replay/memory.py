"""What the files replayed so far in one run left behind, to recognise the calls a later
file copies (a resumed session): each call id's tool, message id and first file, and each
session's files.

Kept compact, because a run may cover a million sessions: each call id is a 64-bit hash
in a sorted numpy array beside 32-bit hashes of its tool and message id and its file number
(20 bytes an id, against about 250 for a dict of strings), behind a 16-bits-per-id Bloom
filter so that the common answer, "never seen", costs no search. The most recent ids wait
in a dict (an int an id: `pack`) until the arrays take them in: up to 131,072 ids, about as
much memory as numpy itself takes (16 MB), so a run of fewer never imports it (0.1 s). A
false "seen" needs the 64-bit hashes of two ids to collide, and then their tools' (and
message ids') 32-bit ones: it is left to chance. A worker process, which does not know the earlier files, keeps a `CopyLog` instead.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

#: Ids kept in the dict before they are merged into the sorted arrays.
PENDING = 1 << 17
#: Bloom filter bits per id (one hash): about 6% of new ids are searched for nothing.
BITS_PER_ID = 16
#: Sorted arrays the ids are kept in, by the top byte of their hash.
BUCKETS = 256
NO_MESSAGE = 0  # the hash stored for a call with no message id


def message_key(text: str | None) -> int:
    """A message id's hash, as the memory keeps it (32 bits; 0 for none)."""
    return NO_MESSAGE if text is None else message_key_of(hash(text))


def message_key_of(hashed: int) -> int:
    """A message id's 64-bit hash as the memory keeps it."""
    return (hashed & 0xFFFFFFFF) or 1


def tool_key(tool: str) -> int:
    """A tool name's hash, as the memory keeps it (32 bits)."""
    return hash(tool) & 0xFFFFFFFF


def pack(tool: int, message: int, file: int) -> int:
    """What the dict keeps of an id's first call: its tool's and message id's keys and its
    file number, in one int."""
    return tool | message << 32 | file << 64


def unpack(packed: int) -> tuple[int, int, int]:
    return packed & 0xFFFFFFFF, (packed >> 32) & 0xFFFFFFFF, packed >> 64


def copies(earlier: tuple[int, int, int], tool: int, message: int, linked: Collection[int]) -> bool:
    """Whether a call copies the earlier call of its id (`RunMemory.find`): the same tool,
    and the same message id (a resumed Claude Code session copies its messages) or a file
    of the same lineage (`linked`: a shared session or thread id). `tool` and `message`
    are keys (`tool_key`, `message_key`)."""
    if earlier[0] != tool:
        return False
    if message != NO_MESSAGE and earlier[1] == message:
        return True
    return earlier[2] in linked


class RunMemory:
    """One run's call ids and sessions, by file number (the order files are replayed in)."""

    def __init__(self) -> None:
        self.files = 0
        self.sessions: dict[str, list[int]] = {}
        self._pending: dict[int, int] = {}  # id hash -> `pack`(tool, message, file)
        # per bucket (the top byte of an id hash): its sorted id hashes, and beside them
        # their tool and message id hashes (32 bits) and first file, once PENDING ids were
        # seen (numpy is imported then: a run of a few files does not pay for it). Buckets
        # keep each merge small: a copy of one bucket, never of every id.
        self._keys: list[np.ndarray[Any, Any] | None] = [None] * BUCKETS
        self._values: list[np.ndarray[Any, Any] | None] = [None] * BUCKETS
        self._stored = 0
        self._mask = (1 << 16) - 1
        self._bloom = bytearray((self._mask + 1) >> 3)
        #: this file's ids that `is_copy` found in no earlier file, each with what is kept
        #: of its first call, packed (`add` takes them), first seen first
        self._new: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._pending) + self._stored

    def linked(self, session: str) -> list[int]:
        """The earlier files of a session (one lineage)."""
        return self.sessions.get(session, [])

    def is_copy(
        self, call_id: str, tool: str, message_id: str | None, linked: set[int] | frozenset[int]
    ) -> bool:
        """Whether a call copies one of an earlier file of the run (`copies`)."""
        key = hash(call_id)
        packed = self._pending.get(key)
        if packed is not None:
            earlier: tuple[int, int, int] | None = unpack(packed)
        # `find`, inline (once per call): the common answer, never seen, is the filter's
        elif (
            not self._bloom[(key & self._mask) >> 3] & (1 << (key & 7))
            or (earlier := self._search(key)) is None
        ):
            new = self._new
            if key not in new:  # its first call in this file: kept for `file_done`
                new[key] = pack(tool_key(tool), message_key(message_id), self.files)
            return False
        assert earlier is not None
        return copies(earlier, tool_key(tool), message_key(message_id), linked)

    def find(self, key: int) -> tuple[int, int, int] | None:
        """An id hash's (tool hash, message id hash, first file), or None."""
        packed = self._pending.get(key)
        if packed is not None:
            return unpack(packed)
        if not self._bloom[(key & self._mask) >> 3] & (1 << (key & 7)):
            return None
        return self._search(key)

    def none_of(self, keys: Iterable[int]) -> bool:
        """Whether no earlier file had any of these id hashes: True is sure; False may be
        the filter's "maybe" (`find` each to know)."""
        if not self._pending.keys().isdisjoint(keys):
            return False
        if not self._stored:
            return True
        bloom, mask = self._bloom, self._mask
        return not any(bloom[(key & mask) >> 3] & (1 << (key & 7)) for key in keys)

    def _search(self, key: int) -> tuple[int, int, int] | None:
        bucket = (key >> 56) & 0xFF
        keys = self._keys[bucket]
        if keys is None:
            return None
        at = int(keys.searchsorted(key))
        if at < len(keys) and int(keys[at]) == key:
            values = self._values[bucket]
            assert values is not None
            tool, message, file = values[at]
            return int(tool), int(message), int(file)
        return None

    def remember(
        self, started: Mapping[str, tuple[str, str | None]], sessions: Iterable[str]
    ) -> None:
        """Add the next file: its calls (id -> (tool, message id), first seen first) and
        its sessions. An id already known keeps its first file. (The ids `is_copy` was
        asked about are known to be new or not already: see `file_done`.)"""
        new, file = self._new, self.files
        for call_id, (tool, message_id) in started.items():
            key = hash(call_id)
            if key not in new and self.find(key) is None:
                new[key] = pack(tool_key(tool), message_key(message_id), file)
        self.file_done(sessions)

    def file_done(self, sessions: Iterable[str]) -> None:
        """Add the next file, every call of which `is_copy` was asked about (a matcher's):
        the ids it found in no earlier file, and the file's sessions."""
        new, self._new = self._new, {}
        self.add(new, sessions)

    def add(self, new: Mapping[int, int], sessions: Iterable[str]) -> None:
        """Add the next file (number `files`): the hashes of its ids that no earlier file
        had, each with its tool's and message id's keys (`tool_key`, `message_key`) and that
        number, packed (`pack`), and its sessions."""
        number = self.files
        self.files += 1
        self._pending.update(new)
        for session in sessions:
            files = self.sessions.setdefault(session, [])
            if not files or files[-1] != number:
                files.append(number)
        if len(self._pending) >= PENDING:
            self._merge()

    def _merge(self) -> None:
        import numpy as np

        pending = self._pending
        keys = np.fromiter(pending.keys(), np.int64, len(pending))
        values = np.array([unpack(v) for v in pending.values()], np.uint32).reshape(-1, 3)
        pending.clear()
        order = np.argsort(keys.view(np.uint64))  # by bucket, then by key within it
        keys, values = keys[order], values[order]
        buckets = (keys >> 56) & 0xFF
        bounds = np.searchsorted(buckets, np.arange(BUCKETS + 1))
        for bucket in np.flatnonzero(np.diff(bounds)):
            start, end = bounds[bucket], bounds[bucket + 1]
            stored, beside = self._keys[bucket], self._values[bucket]
            if stored is None or beside is None:
                self._keys[bucket], self._values[bucket] = keys[start:end], values[start:end]
            else:
                at = stored.searchsorted(keys[start:end])
                self._keys[bucket] = np.insert(stored, at, keys[start:end])
                self._values[bucket] = np.insert(beside, at, values[start:end], axis=0)
        self._stored += len(keys)
        bits = self._mask + 1
        if bits < BITS_PER_ID * self._stored:
            while bits < BITS_PER_ID * self._stored:
                bits <<= 1
            self._mask = bits - 1
            self._bloom = bytearray(bits >> 3)
            for stored in self._keys:
                if stored is not None:
                    self._add_to_bloom(stored)
        else:
            self._add_to_bloom(keys)

    def _add_to_bloom(self, keys: np.ndarray[Any, Any]) -> None:
        import numpy as np

        bits = keys & self._mask
        bloom = np.frombuffer(self._bloom, np.uint8)  # a view: the bytearray is written
        np.bitwise_or.at(bloom, bits >> 3, (1 << (bits & 7)).astype(np.uint8))


class CopyMemory(Protocol):
    """What a matcher asks about the earlier files of its run (`RunMemory`, or `CopyLog`)."""

    def is_copy(
        self, call_id: str, tool: str, message_id: str | None, linked: set[int]
    ) -> bool: ...

    def linked(self, session: str) -> Iterable[int]: ...


class CopyLog:
    """Stands in for the run's memory where the earlier files are not known (a worker
    process): records, in order, what the copy pass needs to decide later, in the parent,
    which calls were copies (`toolsel.replay.parallel`). Says no call is one."""

    def __init__(self) -> None:
        #: each opened call: (id, tool, message id, how many of `sessions` were known then)
        self.opens: list[tuple[str, str, str | None, int]] = []
        self.sessions: list[str] = []  # the file's sessions, in the order they appeared
        #: each opened call, by number: (answered with an error, index of its latency or
        #: -1, the latency in seconds or NaN (none, or outside the window), result bytes or
        #: NaN (not measured), input bytes), what the matcher knows as the call is
        #: answered; None until it is
        self.closes: list[tuple[bool, int, float, float, int] | None] = []
        self.uncounted: set[int] = set()  # calls outside the window counted per tool

    def is_copy(self, call_id: str, tool: str, message_id: str | None, linked: set[int]) -> bool:
        self.opens.append((call_id, tool, message_id, len(self.sessions)))
        self.closes.append(None)
        return False

    def linked(self, session: str) -> Iterable[int]:
        self.sessions.append(session)
        return ()
