"""The request log: a hostile path cannot forge a line or reach the terminal raw."""

from __future__ import annotations

import json
import logging

import pytest

from toolsel.serve.logs import JsonFormatter, TextFormatter

HOSTILE = [
    "/v1/x\n2026-01-01T00:00:00Z GET /admin 200 1ms",  # a forged line
    "/v1/\x1b[2J\x1b]0;owned\x07",  # clear screen, set the window title
    "/v1/\x9b31m",  # a C1 control sequence introducer
    "/v1/\u202etxt.exe",  # right-to-left override
    "/v1/\u2028next",  # line separator
    "/v1/\r\x00",
]


def _record(path: str) -> logging.LogRecord:
    record = logging.LogRecord(
        "toolsel.serve.access", logging.INFO, __file__, 1, "request", (), None
    )
    record.__dict__.update(method="GET", path=path, status=404, duration_ms=0.5)
    return record


def _unsafe(text: str) -> list[str]:
    return [c for c in text if not c.isprintable() or c in "\u202e\u2028\x9b"]


@pytest.mark.parametrize("path", HOSTILE)
def test_text_log_escapes_the_path(path: str) -> None:
    line = TextFormatter().format(_record(path))
    assert _unsafe(line) == [] and "\n" not in line
    assert line.endswith(" 404 0.5ms")


@pytest.mark.parametrize("path", HOSTILE)
def test_json_log_is_ascii_and_keeps_the_path_exactly(path: str) -> None:
    line = JsonFormatter().format(_record(path))
    assert line.isascii() and "\n" not in line
    assert json.loads(line)["path"] == path


def test_other_messages_and_tracebacks_are_escaped_too() -> None:
    try:
        raise ValueError("bad \x1b[31m value")
    except ValueError:
        import sys

        info = sys.exc_info()
    record = logging.LogRecord(
        "toolsel.serve", logging.ERROR, __file__, 1, "reload failed: %s", ("a\x1b[2Jb",), info
    )
    text = TextFormatter().format(record)
    assert "\x1b" not in text and "\\x1b" in text and "Traceback" in text
    assert JsonFormatter().format(record).isascii()
