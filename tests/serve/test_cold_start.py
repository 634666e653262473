"""Cold start: what `toolsel serve` and `toolsel mcp` import and do before their first
answer. The ranking index (scikit-learn, NumPy, SciPy) and the embeddings are made once the
server answers, and the MCP SDK's Rich logging is skipped; `benchmarks/cold_start.py` times
the whole start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

HEAVY = ("numpy", "scipy", "sklearn", "rich", "onnxruntime", "fastembed")
#: what `toolsel mcp` (without --db) needs only once a tool is called
MCP_LATER = (*HEAVY, "toolsel.serve.models", "toolsel.serve.store", "fastapi")
BEFORE_THE_FIRST_ANSWER = f"""
import json, sys
from toolsel.cli.serve import _service
from toolsel.serve.mcp import create_mcp

service = _service([], False, None, use_store=False)
create_mcp(service)  # what `toolsel mcp` does before it answers `initialize`
mcp = sorted(m for m in {MCP_LATER!r} if m in sys.modules)
from toolsel.serve.http import create_app

create_app(service, mcp_server=create_mcp(service))
before = sorted(m for m in {HEAVY!r} if m in sys.modules)
made = service.snapshot.built.done
service.warm()
service.snapshot.index  # waited for
print(json.dumps({{"before": before, "mcp": mcp, "made_before": made, "made": service.snapshot.built.done}}))
"""


def test_nothing_heavy_is_imported_or_built_before_the_first_answer(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", BEFORE_THE_FIRST_ANSWER],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TOOLSEL_CACHE_DIR": str(tmp_path / "c")},
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout.splitlines()[-1])
    assert found == {"before": [], "mcp": [], "made_before": False, "made": True}
