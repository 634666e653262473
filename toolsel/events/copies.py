"""Copy marks, added to mapped files in path order: the rule `replay` applies while it
reads (`RunMemory`, `Matcher._is_copy`), applied to rows through the copy pass that
`replay --jobs` makes (`copypass.copied_calls`). The reduce's SQL
(`toolsel.events.reduce.COPIES`) derives the same marks from the rows alone.

A call is a copy when the first call of its id in an earlier file had the same tool, and
either the same message id or a session that this file had named by then (a resumed
Claude Code session copies its predecessor's messages, ids included; Codex files share a
session id)."""

from __future__ import annotations

from array import array

from toolsel.events.rows import FileEvents
from toolsel.replay.copypass import PackedLog, copied_calls, pack_opens
from toolsel.replay.memory import RunMemory


class CopyMarks:
    """What the files marked so far left, kept as `replay` keeps it (`RunMemory`: 20 bytes
    a distinct call id, not a dict of strings), so that an archive of any size is marked in
    bounded memory."""

    def __init__(self) -> None:
        self.memory = RunMemory()

    def mark(self, events: FileEvents) -> FileEvents:
        """Set the file's `copied` column (files must come in path order), and remember it."""
        columns = events.calls
        opens = zip(
            *(columns[c] for c in ("call_id", "tool", "turn", "sessions_seen")), strict=True
        )
        log = PackedLog(pack_opens(opens, hash), array("q"), events.file["sessions"], set())
        copied = copied_calls(log, self.memory)
        columns["copied"] = [number in copied for number in range(events.rows)]
        return events
