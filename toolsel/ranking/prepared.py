"""`PreparedIndex`: everything derived from a `RankIndex`, built once per index on first use.

The index itself is plain data (and what the cache stores). Lookups by name, the conflict
graph, the always-include list, fuzzy-matching strings, numpy views of the postings and,
with `toolsel[embed]`, the tool vectors are derived from it here, each at most once. Nothing
about a single query is kept: per-query state lives in the ranking call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from toolsel.ranking.index import RankIndex, ToolMeta
from toolsel.text import fold_name, split_name

if TYPE_CHECKING:
    import numpy as np

    from toolsel.embed.vectors import ProgressFactory
    from toolsel.ranking.cc import CcIndex
    from toolsel.ranking.fuzzy import FuzzyIndex


#: A query whose terms have at least this many postings in all is scored with numpy.
NUMPY_MIN_POSTINGS = 20_000


class PreparedIndex:
    """A `RankIndex` with the values ranking derives from it, computed lazily and once."""

    def __init__(self, index: RankIndex, *, bulk: bool = False) -> None:
        self.index = index
        #: many queries will be ranked (a batch, an evaluation, lint, a server): on a large
        #: index, scoring with numpy pays for its import
        self.bulk = bulk
        self._vectors: np.ndarray | None = None
        self._example_vectors: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.index)

    @property
    def tools(self) -> tuple[ToolMeta, ...]:
        return self.index.tools

    @cached_property
    def positions(self) -> dict[str, int]:
        """Tool name -> position (the first, if a name repeats)."""
        found: dict[str, int] = {}
        for position, tool in enumerate(self.index.tools):
            found.setdefault(tool.name, position)
        return found

    @cached_property
    def folded_names(self) -> dict[str, tuple[tuple[int, str], ...]]:
        """Names and aliases folded (case and separators ignored) -> (position, exact-name |
        alias) of each tool they name."""
        found: dict[str, list[tuple[int, str]]] = {}
        for position, tool in enumerate(self.index.tools):
            found.setdefault(fold_name(tool.name), []).append((position, "exact-name"))
        for position, tool in enumerate(self.index.tools):
            for alias in tool.aliases:
                entries = found.setdefault(fold_name(alias), [])
                if all(p != position for p, _ in entries):
                    entries.append((position, "alias"))
        return {name: tuple(entries) for name, entries in found.items()}

    @cached_property
    def conflicts(self) -> dict[str, frozenset[str]]:
        """Who conflicts with whom, both ways (a conflict declared on either side counts)."""
        graph: dict[str, set[str]] = {}
        for tool in self.index.tools:
            for other in tool.conflicts:
                graph.setdefault(tool.name, set()).add(other)
                graph.setdefault(other, set()).add(tool.name)
        return {name: frozenset(others) for name, others in graph.items()}

    @cached_property
    def learned_features(self) -> dict[str, int]:
        """Learned feature (word or word pair) -> its position in the `lw_*` arrays."""
        return {term: i for i, term in enumerate(self.index.lw_terms)}

    @cached_property
    def learned_tools(self) -> tuple[int, ...]:
        """The tools with a learned model, in registry order: those with examples (the
        others' bias is `learned.UNFITTED_BIAS`, and they never have a learned score)."""
        from toolsel.ranking.learned import UNFITTED_BIAS

        return tuple(t for t, bias in enumerate(self.index.lw_bias) if bias > UNFITTED_BIAS)

    @cached_property
    def taught_tools(self) -> frozenset[int]:
        """The tools with examples: the only ones examples add evidence to."""
        return frozenset(self.index.ex_owner)

    @cached_property
    def coverage(self) -> float:
        """The share of the registry's tools that have examples (0..1)."""
        return len(self.taught_tools) / len(self) if len(self) else 0.0

    @cached_property
    def confidence(self) -> float:
        """How far a prompt like no example may still be taken for a tool with examples: the
        share of the registry's tools that have examples, to COVERAGE_POWER. Near 1 where
        examples cover every tool (the learned ranking may then be trusted as it stands);
        near 0 where they cover part of it, so they never push the others down (0.9 of the
        tools gives 0.43, half of them 0.004)."""
        return float(self.coverage**COVERAGE_POWER)

    @cached_property
    def plain_vocabulary(self) -> Mapping[str, int]:
        """The words the tools themselves use, examples left out: what decides whether a
        prompt looks typed and which word a typo is corrected to, as an index without
        examples decides it (a word only an example holds must not turn that off)."""
        index = self.index
        if not index.ex_owner:
            return index.vocabulary
        ptr, bm25 = index.term_ptr, index.bm25
        return {
            term: position
            for term, position in index.vocabulary.items()
            if any(bm25[p] > 0 for p in range(ptr[position], ptr[position + 1]))
        }

    @cached_property
    def examples_per_tool(self) -> float:
        """The mean number of examples of the tools that have any."""
        owners = len(set(self.index.ex_owner))
        return self.index.example_count / owners if owners else 0.0

    @cached_property
    def learned_weight(self) -> float:
        """How much learned weights count beside the method's own (max-normalised) score:
        1 with 3 examples per tool or fewer, LEARNED_WEIGHT from 10, in proportion between.
        On the dev splits, with 3 per tool, 1 beat 2 and 4 by 0.4-1.3 NDCG@10; with all
        (about 60 per tool), 4 beat 2 by 0.6 on ToolLens (-0.2 on MetaTool) and 8 added
        0.2 on ToolLens but lost 0.1 on MetaTool."""
        ramp = max(0.0, min(1.0, (self.examples_per_tool - 3.0) / 7.0))
        return 1.0 + (LEARNED_WEIGHT - 1.0) * ramp

    @cached_property
    def vote_weight(self) -> float:
        """How much nearest-example votes count where nothing was learned: nothing with 3
        examples per tool or fewer (where votes lost 2-5 NDCG@10 on the dev splits), all
        of VOTE_WEIGHT from 10 (where they gained 1-5), and in between in proportion."""
        if not self.examples_per_tool:
            return 0.0
        return VOTE_WEIGHT * max(0.0, min(1.0, (self.examples_per_tool - 3.0) / 7.0))

    @cached_property
    def category_names(self) -> frozenset[str]:
        return frozenset(t.category for t in self.index.tools if t.category)

    @cached_property
    def tag_names(self) -> frozenset[str]:
        return frozenset(tag for t in self.index.tools for tag in t.tags)

    @cached_property
    def always_include(self) -> tuple[int, ...]:
        """Positions of the always-include tools, in registry order."""
        return tuple(d for d, t in enumerate(self.index.tools) if t.always_include)

    @cached_property
    def fuzzy_strings(self) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """The short strings fuzzy matching looks at (name words, display name, aliases,
        tags, search hint), and the position of each string's tool."""
        strings: list[str] = []
        owners: list[int] = []
        for position, tool in enumerate(self.index.tools):
            for text in (
                " ".join(split_name(tool.name)),
                tool.display_name,
                *tool.aliases,
                *tool.tags,
                tool.search_hint,
            ):
                if text:
                    strings.append(text)
                    owners.append(position)
        return tuple(strings), tuple(owners)

    @cached_property
    def fuzzy_index(self) -> FuzzyIndex:
        """`fuzzy_strings`, normalised, de-duplicated and indexed by word (`ranking.fuzzy`)."""
        from toolsel.ranking.fuzzy import FuzzyIndex

        return FuzzyIndex(*self.fuzzy_strings)

    @cached_property
    def cc_index(self) -> CcIndex:
        """What Claude Code's scorer reads of each tool, indexed once (see `ranking.cc`)."""
        from toolsel.ranking.cc import CcIndex

        return CcIndex(self.index.tools)

    @cached_property
    def arrays(self) -> dict[str, Any]:
        """The posting arrays as numpy views (no copy), for scoring large indexes."""
        import numpy as np

        names = ("doc_ids", "bm25", "tfidf", "bm25_taught", "tfidf_taught")
        return {n: np.frombuffer(a := getattr(self.index, n), dtype=a.typecode) for n in names}

    # -- embeddings (`toolsel[embed]`) -----------------------------------------------------
    def tool_vectors(
        self, *, use_cache: bool = True, progress: ProgressFactory | None = None
    ) -> np.ndarray:
        """The tools' embedding vectors, loaded from the vector cache or embedded once."""
        if self._vectors is None:
            from toolsel.embed.model import embedder, require
            from toolsel.embed.vectors import tool_vectors
            from toolsel.ranking.fields import EMBED_RECIPE

            require()
            embedder().start_loading()  # verify the model file while the vectors load
            texts: Sequence[str] = self.index.texts or tuple(t.description for t in self.tools)
            self._vectors = tool_vectors(
                texts, EMBED_RECIPE, use_cache=use_cache, progress=progress
            )
        return self._vectors

    def example_vectors(
        self, *, use_cache: bool = True, progress: ProgressFactory | None = None
    ) -> np.ndarray | None:
        """The example prompts' embedding vectors (None without examples), cached like the
        tool vectors: editing an overlay embeds only the examples that changed."""
        if not self.index.example_count:
            return None
        if self._example_vectors is None:
            from toolsel.embed.model import require
            from toolsel.embed.vectors import tool_vectors

            require()
            self._example_vectors = tool_vectors(
                self.index.example_texts, "examples", use_cache=use_cache, progress=progress
            )
        return self._example_vectors

    @cached_property
    def example_owners(self) -> np.ndarray:
        """Each example's tool position, as a numpy array."""
        import numpy as np

        return np.frombuffer(self.index.ex_owner, dtype=np.uint32).astype(np.intp)


#: The weight of learned scores once tools have 10 examples or more.
LEARNED_WEIGHT = 4.0
#: See `PreparedIndex.confidence`: 8 kept the cost to tools without examples, when examples
#: cover half the tools, at 0.9-1.6 NDCG@10 (4 gave the same on ToolLens, 0.4 more on
#: MetaTool), and the gain where they cover all of them within 0.1 of 4.
COVERAGE_POWER = 8.0
#: The weight of nearest-example votes once tools have 10 examples or more (1.5 and 2.5
#: were 0.3-1.4 NDCG@10 lower on the dev splits).
VOTE_WEIGHT = 1.0


def prepare(index: RankIndex | PreparedIndex) -> PreparedIndex:
    """The prepared form of `index` (a `PreparedIndex` is returned as it is)."""
    return index if isinstance(index, PreparedIndex) else PreparedIndex(index)


def wants_numpy(prepared: PreparedIndex, postings: int) -> bool:
    """Whether to score a query with numpy: when its terms have many postings, or when many
    queries are ranked over a large index (numpy's 0.1 s import is then paid once)."""
    return postings >= NUMPY_MIN_POSTINGS or (prepared.bulk and prepared.index.is_large)
