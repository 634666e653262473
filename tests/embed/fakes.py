"""A stand-in embedder for tests that are about toolsel's logic, not the model: hashed
bag-of-words vectors, so texts sharing words are close. Tests of the real model skip
cleanly where `toolsel[embed]` is not installed."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from toolsel.embed import model

needs_model = pytest.mark.skipif(
    model.missing() is not None, reason=f"toolsel[embed] not installed: {model.missing()}"
)


class FakeEmbedder:
    spec = model.MODEL

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def start_loading(self) -> None:
        pass

    def embed(self, texts: Sequence[str], *, batch_size: int = 1) -> np.ndarray:
        self.embedded.extend(texts)
        out = np.zeros((len(texts), self.spec.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                slot = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest())
                out[row, slot % self.spec.dimension] += 1.0
            out[row, -1] += 0.01  # never the zero vector
            out[row] /= np.linalg.norm(out[row])
        return out


@pytest.fixture
def fake_embedder(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEmbedder]:
    fake = FakeEmbedder()
    monkeypatch.setattr(model, "_EMBEDDER", fake)
    monkeypatch.setattr(model, "missing", lambda: None)
    yield fake


@pytest.fixture
def no_extra(monkeypatch: pytest.MonkeyPatch) -> Any:
    """As if `toolsel[embed]` were not installed."""
    monkeypatch.setattr(
        model, "missing", lambda: "the Python package 'onnxruntime' is not installed"
    )
