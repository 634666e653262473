"""One background process for lint's expensive shared work (TS209's TF-IDF scan).

For large registries the worker is forked before the registry is parsed, so that importing
scipy (about 0.4 s) happens while the main process parses YAML. It is a daemon that
answers one request over a pipe; if its answer is not needed (the result was cached) it is
killed at once. Linux only: fork is cheap there and safe at that point (no threads yet);
elsewhere everything runs inline.
"""

from __future__ import annotations

import multiprocessing
import sys
from multiprocessing.connection import Connection
from typing import Any


def _serve(conn: Connection) -> None:
    import scipy.sparse  # noqa: F401 - warm the import while the parent parses

    from toolsel.lint.similarity import similar_pairs

    request = conn.recv()
    if request is not None:
        conn.send(similar_pairs(*request))
    conn.close()


class SimilarityWorker:
    """A forked process that computes `similar_pairs(texts, threshold)` once."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child,), daemon=True)
        self._process.start()
        child.close()
        self._sent = False

    def submit(self, texts: list[str], threshold: float) -> None:
        self._conn.send((texts, threshold))
        self._sent = True

    def result(self) -> Any:
        """The pairs, or raises (EOFError, OSError) when the worker died; callers fall back."""
        if not self._sent:
            raise RuntimeError("nothing was submitted")
        return self._conn.recv()

    def close(self) -> None:
        if self._process.is_alive():
            self._process.kill()
        self._process.join(timeout=5)
        self._conn.close()


def start_worker() -> SimilarityWorker | None:
    """A started worker that is already importing scipy, or None where fork is unsafe."""
    fork = sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()
    return SimilarityWorker() if fork else None
