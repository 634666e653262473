"""Copy marks, added to mapped files in path order: the rule `replay` applies while it
reads (`RunMemory`, `Matcher._is_copy`), applied to rows. The reduce's SQL
(`toolsel.events.reduce.COPIES`) derives the same marks from the rows alone.

A call is a copy when the first call of its id in an earlier file had the same tool, and
either the same message id or a session that this file had named by then (a resumed
Claude Code session copies its predecessor's messages, ids included; Codex files share a
session id)."""

from __future__ import annotations

from toolsel.events.rows import FileEvents


class CopyMarks:
    """What the files marked so far left: each call id's first (tool, turn, file_no), and
    each session's files. Bounded by the distinct call ids, as `replay` is."""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[str, str | None, int]] = {}
        self.sessions: dict[str, set[int]] = {}

    def mark(self, events: FileEvents) -> FileEvents:
        """Set the file's `copied` column (files must come in path order), and remember it."""
        columns = events.calls
        file_no: int = events.file["file_no"]
        sessions: list[str] = events.file["sessions"]
        # the earlier files linked once the file had named its first k sessions
        linked: list[set[int]] = [set()]
        for session in sessions:
            linked.append(linked[-1] | self.sessions.get(session, set()))
        copied = []
        for call_id, tool, turn, seen in zip(
            columns["call_id"],
            columns["tool"],
            columns["turn"],
            columns["sessions_seen"],
            strict=True,
        ):
            earlier = self.calls.get(call_id)
            copied.append(
                earlier is not None
                and earlier[0] == tool
                and ((turn is not None and earlier[1] == turn) or earlier[2] in linked[seen])
            )
        columns["copied"] = copied
        for call_id, tool, turn in zip(
            columns["call_id"], columns["tool"], columns["turn"], strict=True
        ):
            self.calls.setdefault(call_id, (tool, turn, file_no))
        for session in sessions:
            self.sessions.setdefault(session, set()).add(file_no)
        return events
