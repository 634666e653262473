"""Copy marks, added to mapped files in path order: the rule `replay` applies while it
reads (`RunMemory`, `Matcher._is_copy`), applied to rows. The reduce's SQL
(`toolsel.events.reduce.COPIES`) derives the same marks from the rows alone.

A call is a copy when the first call of its id in an earlier file had the same tool, and
either the same message id or a session that this file had named by then (a resumed
Claude Code session copies its predecessor's messages, ids included; Codex files share a
session id)."""

from __future__ import annotations

from toolsel.events.rows import FileEvents
from toolsel.replay.memory import RunMemory, copies, message_key, tool_key


class CopyMarks:
    """What the files marked so far left, kept as `replay` keeps it (`RunMemory`: 20 bytes
    a distinct call id, not a dict of strings), so that an archive of any size is marked in
    bounded memory."""

    def __init__(self) -> None:
        self.memory = RunMemory()

    def mark(self, events: FileEvents) -> FileEvents:
        """Set the file's `copied` column (files must come in path order), and remember it."""
        memory = self.memory
        columns = events.calls
        file_no = memory.files
        sessions: list[str] = events.file["sessions"]
        # the earlier files linked once the file had named its first k sessions
        linked: list[set[int]] = [set()]
        for session in sessions:
            linked.append(linked[-1] | set(memory.linked(session)))
        copied = []
        new: dict[int, tuple[int, int, int]] = {}  # ids no earlier file had: the first call's
        for call_id, tool, turn, seen in zip(
            columns["call_id"],
            columns["tool"],
            columns["turn"],
            columns["sessions_seen"],
            strict=True,
        ):
            key = hash(call_id)
            earlier = memory.find(key)
            if earlier is None:
                new.setdefault(key, (tool_key(tool), message_key(turn), file_no))
                copied.append(False)
            else:
                copied.append(copies(earlier, tool_key(tool), message_key(turn), linked[seen]))
        columns["copied"] = copied
        memory.add(new, sessions)
        return events
