"""What a rule sees: the registry, the configuration, and shared derived data."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from toolsel.lint.config import LintConfig
from toolsel.lint.model import Hit, Severity
from toolsel.lint.schema import SchemaNode, walk_schema
from toolsel.lint.suppress import Suppressions
from toolsel.lint.worker import SimilarityWorker
from toolsel.registry.model import Registry, Tool

if TYPE_CHECKING:
    from toolsel.misroute_evidence import MisrouteEvidence
    from toolsel.ranking.core import RankResult
    from toolsel.ranking.prepared import PreparedIndex
from toolsel.registry.source import escape_token

#: Registries at least this large compute TF-IDF similarity in a worker process.
BACKGROUND_MIN_TOOLS = 2000
#: A shared resource rules can declare in `uses`: similar description pairs (TF-IDF).
DESCRIPTION_PAIRS = "description-pairs"
#: Resources a worker process can compute while the other rules run.
BACKGROUND_RESOURCES = frozenset({DESCRIPTION_PAIRS})

# Profile rules apply when their target is selected; strict profiles also apply to any
# tool marked `strict: true` when the matching base target is selected.
_PROFILE_TARGETS = {
    "openai": ("openai", "openai-strict"),
    "openai-strict": ("openai-strict",),
    "anthropic": ("anthropic", "anthropic-strict"),
    "anthropic-strict": ("anthropic-strict",),
    "gemini": ("gemini",),
    "mcp": ("mcp",),
}
_STRICT_BASE = {"openai-strict": "openai", "anthropic-strict": "anthropic"}


class LintContext:
    def __init__(
        self,
        registry: Registry,
        config: LintConfig,
        *,
        use_cache: bool = True,
        evidence: tuple[MisrouteEvidence, ...] = (),
    ) -> None:
        self.registry = registry
        #: misroutes recorded in transcripts (`lint --misroutes FILE`), for TS708
        self.evidence = evidence
        self.use_cache = use_cache
        self.config = config
        self.targets = frozenset(config.targets)
        self._schema_nodes: dict[int, tuple[SchemaNode, ...]] = {}
        self._strings: dict[int, tuple[tuple[str, str], ...]] = {}
        self._languages: dict[int, bool] = {}
        self._worker: SimilarityWorker | None = None
        self._own_worker: SimilarityWorker | None = None
        #: suppression comments by file, set by the engine (after-rules read how they were used)
        self.suppressions: dict[str, Suppressions] = {}

    @property
    def tools(self) -> tuple[Tool, ...]:
        return self.registry.tools

    def option(self, name: str) -> Any:
        return self.config.option(name)

    def targets_any(self, *names: str) -> bool:
        return any(name in self.targets for name in names)

    @property
    def mcp_only(self) -> bool:
        return self.targets == {"mcp"}

    def profile_active(self, profile: str) -> bool:
        base = _STRICT_BASE.get(profile)
        return self.targets_any(*_PROFILE_TARGETS[profile]) or (
            base is not None and base in self.targets
        )

    def profile_tools(self, profile: str) -> Iterator[Tool]:
        """Tools a profile rule applies to (strict profiles: strict targets or strict tools)."""
        direct = self.targets_any(*_PROFILE_TARGETS[profile])
        base = _STRICT_BASE.get(profile)
        return (t for t in self.tools if direct or (base in self.targets and t.strict))

    def hit(
        self,
        tool: Tool,
        field: str,
        *tokens: str | int,
        message: str,
        severity: Severity | None = None,
        key: bool = False,
    ) -> Hit:
        pointer = tool.source.field_pointer(field, *tokens)
        return Hit(message, tool.source.file, pointer, tool.name, severity, key)

    def schema_hit(
        self,
        tool: Tool,
        relative: str,
        message: str,
        *,
        severity: Severity | None = None,
        key: bool = False,
    ) -> Hit:
        pointer = tool.source.field_pointer("parameters") + relative
        return Hit(message, tool.source.file, pointer, tool.name, severity, key)

    def schema_nodes(self, tool: Tool) -> tuple[SchemaNode, ...]:
        """Every subschema of the tool's parameters, walked once and shared by all rules."""
        key = id(tool)
        nodes = self._schema_nodes.get(key)
        if nodes is None:
            nodes = self._schema_nodes[key] = tuple(walk_schema(tool.parameters))
        return nodes

    def tool_strings(self, tool: Tool) -> tuple[tuple[str, str], ...]:
        """Every string in the tool's entry as (pointer, text); keys end their pointer in #key."""
        key = id(tool)
        found = self._strings.get(key)
        if found is None:
            found = self._strings[key] = tuple(_strings(tool.raw, tool.source.pointer))
        return found

    @functools.cached_property
    def tool_ignores(self) -> dict[tuple[str, str | None], tuple[str, ...]]:
        """(file, tool) -> the rule ids the tool's `x-toolsel-ignore` lists."""
        ignores: dict[tuple[str, str | None], tuple[str, ...]] = {}
        for tool in self.tools:
            ids = tool.raw.get("x-toolsel-ignore")
            if isinstance(ids, list):
                ignores[(tool.source.file, tool.name)] = tuple(str(i) for i in ids)
        return ignores

    # -- shared expensive work --------------------------------------------------------
    def prefetch(self, resources: set[str], worker: SimilarityWorker | None = None) -> None:
        """Start computing the background resources active rules use, so the other rules
        overlap them: the description-pairs TF-IDF scan in a worker process.

        Uses `worker` when the caller forked one early; otherwise forks one itself, but only
        for large registries. Nothing starts when the result is already cached.
        """
        if DESCRIPTION_PAIRS not in resources or self._cached_pairs() is not None:
            return
        if worker is None and len(self.tools) >= BACKGROUND_MIN_TOOLS:
            from toolsel.lint.worker import start_worker

            worker = self._own_worker = start_worker()
        if worker is not None:
            worker.submit(*self._similarity_inputs())
            self._worker = worker

    def close(self) -> None:
        if self._own_worker is not None:
            self._own_worker.close()

    def _similarity_inputs(self) -> tuple[list[str], float]:
        return [t.description for t in self.described_tools], float(
            self.option("overlap-threshold")
        )

    def _similarity_key(self) -> str:
        from toolsel.registry.cache import content_key

        texts, threshold = self._similarity_inputs()
        return content_key("\0".join(texts).encode(), kind=f"toolsel-ts209/2|{threshold}")

    def _cached_pairs(self) -> list[tuple[int, int, float]] | None:
        if not self.use_cache:
            return None
        from toolsel.registry.cache import load_json

        cached = load_json(self._similarity_key(), ".ts209.json")
        return (
            [(int(i), int(j), float(v)) for i, j, v in cached] if isinstance(cached, list) else None
        )

    @functools.cached_property
    def described_tools(self) -> list[Tool]:
        return [t for t in self.tools if t.description.strip()]

    def description_pairs(self) -> list[tuple[int, int, float]]:
        """Pairs of `described_tools` (indexes) whose TF-IDF cosine reaches the threshold."""
        cached = self._cached_pairs()
        if cached is not None:
            return cached
        pairs = None
        if self._worker is not None:
            try:
                pairs = [(int(i), int(j), float(v)) for i, j, v in self._worker.result()]
            except (EOFError, OSError, RuntimeError):
                pairs = None  # a dead worker only costs the overlap
        if pairs is None:
            from toolsel.lint.similarity import similar_pairs

            pairs = similar_pairs(*self._similarity_inputs())
        if self.use_cache:
            from toolsel.registry.cache import store_json

            store_json(self._similarity_key(), ".ts209.json", [list(p) for p in pairs])
        return pairs

    @functools.cached_property
    def rank_index(self) -> PreparedIndex:
        from toolsel.ranking.index import build_index
        from toolsel.ranking.prepared import PreparedIndex

        return PreparedIndex(build_index(self.registry), bulk=True)

    def ranked_for(self, query: str, top: int) -> RankResult | None:
        """What `toolsel rank QUERY --top TOP --method hybrid` offers, by rank's pipeline;
        None when the query has no searchable words. Always `hybrid`, never `auto`: lint's
        findings must not depend on which extras are installed (nor load a model)."""
        from toolsel.ranking.core import RankOptions, rank_index
        from toolsel.ranking.fields import tokens
        from toolsel.ranking.options import Method

        if not tokens(query):
            return None
        return rank_index(self.rank_index, query, RankOptions(method=Method.HYBRID, top=top))

    @functools.cached_property
    def names(self) -> set[str]:
        return {tool.name for tool in self.tools}

    def in_other_language(self, tool: Tool) -> bool:
        """The tool is described in a language other than English: checks that read English
        words (a verb in the name, "Use this when", "Returns") say nothing about it."""
        key = id(tool)
        found = self._languages.get(key)
        if found is None:
            from toolsel.text import looks_english

            found = self._languages[key] = looks_english(tool.description) is False
        return found


def _strings(value: Any, pointer: str) -> Iterator[tuple[str, str]]:
    stack = [(value, pointer)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, str):
            yield where, current
        elif isinstance(current, dict):
            for key, sub in current.items():
                child = f"{where}/{escape_token(str(key))}"
                yield child + "#key", str(key)
                stack.append((sub, child))
        elif isinstance(current, list):
            stack.extend((sub, f"{where}/{i}") for i, sub in enumerate(current))
