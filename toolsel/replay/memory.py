"""What the files replayed so far in one run left behind, to recognise the calls a later
file copies (a resumed session): each call id's tool, message id and first file, and each
session's files.

Kept compact, because a run may cover a million sessions: each call id is a 64-bit hash
in a sorted numpy array beside the hashes of its tool and message id and its file number
(28 bytes an id, against about 250 for a dict of strings), behind a one-bit-per-id Bloom
filter so that the common answer, "never seen", costs no search. The most recent ids wait
in a small dict until the arrays take them in. A false "seen" needs two 64-bit hashes to
collide at once (the id's, and the tool's or the message id's), so it is left to chance.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

#: Ids kept in the dict before they are merged into the sorted arrays.
PENDING = 1 << 15
#: Bloom filter bits per id (one hash): about 6% of new ids are searched for nothing.
BITS_PER_ID = 16
NO_MESSAGE = 0  # the hash stored for a call with no message id


def message_key(text: str | None) -> int:
    return NO_MESSAGE if text is None else hash(text) or 1


def copies(
    earlier: tuple[int, int, int], tool: str, message_id: str | None, linked: Collection[int]
) -> bool:
    """Whether a call copies the earlier call of its id (`RunMemory.find`): the same tool,
    and the same message id (a resumed Claude Code session copies its messages) or a file
    of the same lineage (`linked`: a shared session or thread id)."""
    if earlier[0] != hash(tool):
        return False
    if message_id is not None and earlier[1] == message_key(message_id):
        return True
    return earlier[2] in linked


class RunMemory:
    """One run's call ids and sessions, by file number (the order files are replayed in)."""

    def __init__(self) -> None:
        self.files = 0
        self.sessions: dict[str, list[int]] = {}
        self._pending: dict[int, tuple[int, int, int]] = {}  # id hash -> (tool, message, file)
        # sorted id hashes and their (tool, message, file), once PENDING ids were seen
        # (numpy is imported then: a run of a few files does not pay for it)
        self._keys: np.ndarray[Any, Any] | None = None
        self._values: np.ndarray[Any, Any] | None = None
        self._mask = (1 << 16) - 1
        self._bloom = bytearray((self._mask + 1) >> 3)

    def __len__(self) -> int:
        return len(self._pending) + (0 if self._keys is None else len(self._keys))

    def linked(self, session: str) -> list[int]:
        """The earlier files of a session (one lineage)."""
        return self.sessions.get(session, [])

    def is_copy(
        self, call_id: str, tool: str, message_id: str | None, linked: set[int] | frozenset[int]
    ) -> bool:
        """Whether a call copies one of an earlier file of the run (`copies`)."""
        earlier = self.find(hash(call_id))
        return earlier is not None and copies(earlier, tool, message_id, linked)

    def find(self, key: int) -> tuple[int, int, int] | None:
        """An id hash's (tool hash, message id hash, first file), or None."""
        earlier = self._pending.get(key)
        if earlier is None:
            if not self._bloom[(key & self._mask) >> 3] & (1 << (key & 7)):
                return None
            earlier = self._search(key)
        return earlier

    def _search(self, key: int) -> tuple[int, int, int] | None:
        keys = self._keys
        if keys is None:
            return None
        at = int(keys.searchsorted(key))
        if at < len(keys) and int(keys[at]) == key:
            assert self._values is not None
            tool, message, file = self._values[at]
            return int(tool), int(message), int(file)
        return None

    def remember(
        self, started: Mapping[str, tuple[str, str | None]], sessions: Iterable[str]
    ) -> None:
        """Add the next file: its calls (id -> (tool, message id), first seen first) and
        its sessions. An id already known keeps its first file."""
        self.add(
            {
                key: (hash(tool), message_key(message_id))
                for call_id, (tool, message_id) in started.items()
                if self.find(key := hash(call_id)) is None
            },
            sessions,
        )

    def add(self, new: Mapping[int, tuple[int, int]], sessions: Iterable[str]) -> None:
        """Add the next file: the hashes of its ids that no earlier file had, each with its
        tool's and message id's, and its sessions."""
        number = self.files
        self.files += 1
        pending = self._pending
        for key, (tool, message) in new.items():
            pending[key] = (tool, message, number)
        for session in sessions:
            files = self.sessions.setdefault(session, [])
            if not files or files[-1] != number:
                files.append(number)
        if len(pending) >= PENDING:
            self._merge()

    def _merge(self) -> None:
        import numpy as np

        pending = self._pending
        keys = np.fromiter(pending.keys(), np.int64, len(pending))
        values = np.array(list(pending.values()), np.int64).reshape(-1, 3)
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
        if self._keys is None or self._values is None:
            self._keys, self._values = keys, values
        else:
            at = self._keys.searchsorted(keys)
            self._keys = np.insert(self._keys, at, keys)
            self._values = np.insert(self._values, at, values, axis=0)
        pending.clear()
        bits = self._mask + 1
        if bits < BITS_PER_ID * len(self._keys):
            while bits < BITS_PER_ID * len(self._keys):
                bits <<= 1
            self._mask = bits - 1
            self._rebuild_bloom(self._keys)
        else:
            self._add_to_bloom(keys)

    def _rebuild_bloom(self, keys: np.ndarray[Any, Any]) -> None:
        self._bloom = bytearray((self._mask + 1) >> 3)
        self._add_to_bloom(keys)

    def _add_to_bloom(self, keys: np.ndarray[Any, Any]) -> None:
        import numpy as np

        bits = np.zeros(self._mask + 1, np.bool_)
        bits[(keys & self._mask).astype(np.int64)] = True
        packed = np.packbits(bits, bitorder="little")
        current = np.frombuffer(self._bloom, np.uint8)
        self._bloom = bytearray((current | packed).tobytes())
