"""`semantic` and `fusion` ranking: embedding similarity, alone or fused with BM25.

Needs the optional extra (`pip install 'toolsel[embed]'`); everything else in toolsel works
without it. Tool vectors belong to the prepared index (loaded or embedded once); a prompt's
vector is computed for its call, or passed in when many prompts were embedded up front.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolsel.ranking import scorers
from toolsel.ranking.prepared import PreparedIndex
from toolsel.ranking.scorers import Contribution

if TYPE_CHECKING:
    import numpy as np

    from toolsel.embed.vectors import ProgressFactory

#: fusion = FUSION_WEIGHT x cosine + (1 - FUSION_WEIGHT) x BM25, each min-max scaled per
#: query over every tool (chosen on the dev splits; see docs/quality.md).
FUSION_WEIGHT = 0.7
#: How many best-scoring tools go on to the selection pipeline.
CANDIDATES = 300


def embed_queries(
    queries: Iterable[str], *, use_cache: bool = True, progress: ProgressFactory | None = None
) -> dict[str, np.ndarray]:
    """Vectors for many prompts at once (eval, --batch, test), in batches, cached as a set
    so a rerun embeds no prompt again."""
    from toolsel.embed.vectors import prompt_set_vectors

    todo = list(dict.fromkeys(queries))
    if not todo:
        return {}
    vectors = prompt_set_vectors(todo, use_cache=use_cache, progress=progress)
    return dict(zip(todo, vectors, strict=True))


def query_vector(query: str) -> np.ndarray:
    """One prompt's vector, embedded now."""
    from toolsel.embed.vectors import query_vectors

    vector: np.ndarray = query_vectors([query])[0]
    return vector


def cosines(prepared: PreparedIndex, vector: np.ndarray) -> np.ndarray:
    """Cosine similarity of the prompt with every tool (both are unit length); for a tool
    with example prompts, blended with its nearest example's (`nearest_examples`)."""
    result: np.ndarray = prepared.tool_vectors() @ vector
    near = nearest_examples(prepared, vector)
    if near is not None:
        import numpy as np

        has = near > -1.0
        blend = EXAMPLE_COSINE_WEIGHT * near + (1 - EXAMPLE_COSINE_WEIGHT) * result
        result = np.where(has, np.maximum(result, blend), result)
    return result


#: A tool with examples scores max(own cosine, w x nearest example's + (1 - w) x own).
EXAMPLE_COSINE_WEIGHT = 0.5


def nearest_examples(prepared: PreparedIndex, vector: np.ndarray) -> np.ndarray | None:
    """Per tool, the cosine of the prompt with the tool's most similar example prompt (-1
    for a tool without examples); None when the index has no examples."""
    examples = prepared.example_vectors()
    if examples is None:
        return None
    import numpy as np

    near = np.full(len(prepared), -1.0, dtype=np.float32)
    np.maximum.at(near, prepared.example_owners, examples @ vector)
    return near


def fusion_parts(
    prepared: PreparedIndex, vector: np.ndarray, terms: Sequence[str]
) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """The two parts of a fused score, each min-max scaled over every tool: cosine, and
    hybrid's lexical evidence (BM25 and TF-IDF with the prompt's synonyms, `methods.
    lexical.dense_lexical_fusion`: 7 more first places than BM25 alone over the project's sets);
    and which tools have lexical evidence (above 0)."""
    import numpy as np

    from toolsel.ranking.lexical import dense_lexical_fusion

    lexical, base = dense_lexical_fusion(prepared, terms)
    own = (prepared.tool_vectors() @ vector).astype(np.float64)
    cosine = min_max(cosines(prepared, vector).astype(np.float64), own)
    return (cosine, min_max(lexical, base)), lexical > 0


#: The score a tool with evidence gets where both its scaled parts are the lowest (0):
#: small enough never to pass another tool, above the cut at 0 that drops tools without any.
EVIDENCE_FLOOR = 1e-6


def fused(
    parts: tuple[np.ndarray, np.ndarray], evidence: np.ndarray | None = None
) -> dict[int, float]:
    """The weighted parts. A tool with evidence (`evidence`: lexical matches) is never
    dropped for scoring the lowest on both scaled parts: min-max puts the least of every
    registry at 0, which once dropped the second of two tools."""
    import numpy as np

    cosine, lexical = parts
    combined = FUSION_WEIGHT * cosine + (1 - FUSION_WEIGHT) * lexical
    if evidence is not None:
        combined = np.where(evidence & (combined <= 0), EVIDENCE_FLOOR, combined)
    return scorers.top_entries(combined, CANDIDATES)


def min_max(values: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    """Scaled to 0..1 over every tool (all zeros when every tool scores the same), by the
    lowest and highest of `reference` when given (the scores without examples' parts: a
    tool with examples may pass 1, and no other tool moves)."""
    import numpy as np

    scale = values if reference is None else reference
    low, high = float(scale.min()), float(scale.max())
    if high <= low and reference is not None:  # only examples matched: scaled by their best
        low, high = float(values.min()), float(values.max())
    if high <= low:
        return np.zeros_like(values)
    result: np.ndarray = np.minimum((values - low) / (high - low), scorers.TAUGHT_CAP)
    return result


def explain_fusion(
    prepared: PreparedIndex, terms: Sequence[str], doc: int, parts: tuple[Any, Any]
) -> list[Contribution]:
    """What the embedding contributed (its weight times the prompt's scaled cosine with the
    tool), then the weighted lexical part split across the terms and fields that made it
    (synonyms named), so the parts sum to the score."""
    from toolsel.ranking.synonyms import expansions, sources

    cosine, lexical = parts
    scaled = float(cosine[doc])
    said = f"embedding: alike {scaled:.0%} of the way from the least to the most alike tool"
    rows = [Contribution(said, "semantic", FUSION_WEIGHT * scaled)]
    lexical_part = (1 - FUSION_WEIGHT) * float(lexical[doc])
    vocabulary = prepared.index.vocabulary
    extra = expansions(list(terms), vocabulary, prepared.index.bm25_idf)
    terms_rows = scorers.explain_lexical(
        prepared, terms, doc, "bm25", extra, sources(list(terms), vocabulary)
    )
    total = sum(r.value for r in terms_rows)
    if total > 0 and lexical_part > 0:
        rows += [Contribution(r.term, r.field, r.value * lexical_part / total) for r in terms_rows]
    return rows


def prepare_methods(
    prepared: PreparedIndex,
    methods: Iterable[Any],
    queries: Sequence[str] = (),
    *,
    use_cache: bool = True,
    progress: ProgressFactory | None = None,
    prompt_progress: ProgressFactory | None = None,
) -> dict[str, np.ndarray]:
    """Before ranking with `semantic` or `fusion`: check the extra is installed (exit 2 with
    the install command if not), load or embed the tool vectors (`progress` shows a bar for
    more than 100 tools), and embed many prompts in batches up front (their vectors are
    returned, to pass to `rank_index`). Other methods need none of this."""
    from toolsel.ranking.options import EMBEDDING_METHODS, Method, resolve

    # `auto` stands for fusion where the extra is installed: prepare what it will run
    ran = (resolve(m)[0] if isinstance(m, Method) else m for m in methods)
    wanted = [m for m in ran if m in EMBEDDING_METHODS]
    if not wanted:
        return {}
    from toolsel.embed.model import require

    require(wanted[0].value)
    prepared.tool_vectors(use_cache=use_cache, progress=progress)
    prepared.example_vectors(use_cache=use_cache, progress=progress)
    if len(queries) > 1:
        return embed_queries(queries, use_cache=use_cache, progress=prompt_progress)
    return {}
