"""A real `toolsel serve` under the attack the issue reproduced: a small registry schema
whose `$defs` reference the next level twice, so naive validation visits the leaf 2^L
times, sent 40 times at once. The server keeps answering, each call is a clear
violation, and SIGTERM stops it."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from tests.serve.process import running_server

LEVELS = 40


def fan_out_registry(path: Path, levels: int = LEVELS) -> Path:
    defs: dict[str, object] = {
        f"L{i}": {"allOf": [{"$ref": f"#/$defs/L{i + 1}"}, {"$ref": f"#/$defs/L{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"L{levels}"] = {"type": "string", "minLength": 1}
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/L0"}}, "$defs": defs}
    tool = {"name": "fan_out", "description": "Takes one value, checked very thoroughly."}
    path.write_text(json.dumps({"tools": [{**tool, "parameters": schema}]}), encoding="utf-8")
    return path


def test_forty_costly_validations_at_once_leave_the_server_answering(tmp_path: Path) -> None:
    registry = fan_out_registry(tmp_path / "tools.json")
    with running_server(tmp_path, "--request-timeout", "10", registry=registry) as server:
        answers: list[tuple[int, object]] = []

        def validate() -> None:
            answers.append(server.request("/v1/validate", {"tool": "fan_out", "input": {"x": "a"}}))

        callers = [threading.Thread(target=validate) for _ in range(40)]
        for caller in callers:
            caller.start()
        started = time.monotonic()
        assert server.request("/healthz") == (200, {"ok": True})
        status, stored = server.request("/v1/usage", {"tool": "fan_out", "ok": True})
        assert status == 200 and stored["stored"] == 1  # type: ignore[index]
        assert time.monotonic() - started < 10
        for caller in callers:
            caller.join(60)
        assert len(answers) == 40
        for status, body in answers:
            assert status == 200, body
            (violation,) = body["violations"]  # type: ignore[index]
            assert "too costly to validate" in violation["message"]
    assert server.process.returncode == 0, server.stderr[-2000:]
    assert "Traceback" not in server.stderr
