"""The service's log: one line per request (method, path, status, duration) and the
reloader's notes, on stderr, as text or as JSON lines (`--log-format json`).

A request's path is the client's text, logged before any check: every control, C1, bidi
and line-separator character is escaped (text: as the CLI shows it, `\\x1b`; JSON: as
`\\u001b`, ASCII only), so no request can forge a log line or act on a terminal."""

from __future__ import annotations

import json
import logging
import sys
import time

FIELDS = ("method", "path", "status", "duration_ms")


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        from toolsel.render.escape import visible

        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        if record.getMessage() == "request":
            values = [visible(str(getattr(record, f, ""))) for f in FIELDS]
            return f"{stamp}Z {values[0]} {values[1]} {values[2]} {values[3]}ms"
        text = f"{stamp}Z {record.levelname.lower()} {visible(record.getMessage())}"
        if record.exc_info:
            text += "\n" + visible(self.formatException(record.exc_info), newlines=True)
        return text


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.created)),
            "level": record.levelname.lower(),
            "event": record.getMessage(),
        }
        for name in FIELDS:
            if hasattr(record, name):
                entry[name] = getattr(record, name)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=True)


def configure_logging(log_format: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    # the MCP SDK's own notes: warnings and errors only
    levels = dict.fromkeys(("toolsel.serve", "toolsel.serve.access", "uvicorn.error"), logging.INFO)
    for name, level in {**levels, "mcp": logging.WARNING}.items():
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(level)
        logger.propagate = False
