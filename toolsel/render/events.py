"""Render `toolsel export`'s summary: one line saying what was written where."""

from __future__ import annotations

from typing import IO

from toolsel.events.export import ExportSummary
from toolsel.render.escape import visible
from toolsel.replay.report import plural


def render_export_summary(summary: ExportSummary, out: IO[str]) -> None:
    copies = f" ({summary.copied} copied from earlier files)" if summary.copied else ""
    out.write(
        f"wrote {plural(summary.calls, 'call')}{copies} from "
        f"{plural(summary.files, 'transcript')} to {visible(summary.directory)}\n"
    )
