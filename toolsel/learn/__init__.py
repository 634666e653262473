"""`toolsel learn`: example prompts for tools, from labelled cases (each expected tool gets
the case's prompt), mined from transcripts (each successful call gets the user's request
that led to it; a sub-agent's calls, the prompt of the Task that launched them) or from
misroutes (`stats --misroutes -f json`: each pair's requests become examples of the tool
that then worked), written as an examples overlay (a registry file that adds examples and
defines no tool). Secrets become typed placeholders (`toolsel.secrets`); mined examples of
`dangerous` tools are left out unless asked for (a transcript shows what an agent did once,
not what it should do); with a registry, examples `lint` would flag are left out, so the
overlay passes `lint --strict`.

Everything here returns data; `toolsel.cli.learn` writes the overlay. The rooms: `model`
(what is found), `mine` (from cases and transcripts), `choose` (cleaning, the diverse
choice), `overlay` (the file); this module runs the whole job.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.acyclic import gc_paused
from toolsel.errors import UsageError
from toolsel.learn.choose import RELEVANCE, Cleaned, diverse, prepare
from toolsel.learn.mine import (
    TRANSCRIPT_MAX_PER_TOOL,
    Mined,
    Miner,
    from_cases,
    from_transcripts,
    keep_most_frequent,
    pool_size,
)
from toolsel.learn.model import MAX_CHARS, Example, Flagged, Learned, normalise
from toolsel.learn.overlay import OVERLAY_HEADER, is_overlay_file, overlay_text, read_overlay

if TYPE_CHECKING:
    from toolsel.registry.model import OverlayExample, Registry

__all__ = [
    "MAX_CHARS", "OVERLAY_HEADER", "RELEVANCE", "TRANSCRIPT_MAX_PER_TOOL", "Example", "Flagged",
    "Learned", "Mined", "Miner", "check_output", "diverse", "from_cases", "from_transcripts",
    "is_overlay_file", "keep_most_frequent", "learn", "learn_examples", "lint_clean", "normalise",
    "overlay_text", "pool_size", "read_overlay", "registry_policy",
]  # fmt: skip


# -- the whole job ----------------------------------------------------------------------------


def check_output(output: Path | None, merge: bool) -> None:
    """Refuse what `learn` must never do: merge without an overlay to add to, or overwrite a
    file that is not an examples overlay."""
    if merge and output is None:
        raise UsageError("--merge needs -o OVERLAY (the overlay to add to)")
    if output is not None and output.exists() and not is_overlay_file(output):
        raise UsageError(
            f"{output}: exists and is not an examples overlay; refusing to overwrite it",
            hint="pass another -o, or remove the file",
        )


def registry_policy(
    registry: Registry | None, *, include_dangerous: bool
) -> tuple[list[str] | None, list[str]]:
    """(the tools that may receive examples, those whose transcript examples are left out):
    every tool of the registry, and its `dangerous` ones unless asked (one call seen once
    must not put a destructive tool first); with no registry, any tool and none left out."""
    if registry is None:
        return None, []
    known = [tool.name for tool in registry.tools]
    if include_dangerous:
        return known, []
    from toolsel.registry.permission import Permission

    return known, [t.name for t in registry.tools if t.permission is Permission.DANGEROUS]


def learn_examples(
    *,
    cases: Sequence[Path] = (),
    transcripts: Sequence[str] = (),
    misroutes: Sequence[Path] = (),
    known_tools: Iterable[str] | None = None,
    merge: Path | None = None,
    max_per_tool: int | None = None,
    min_count: int = 1,
    redact: Sequence[str] = (),
    max_chars: int = MAX_CHARS,
    leave_out: Iterable[str] = (),
    registry: Registry | None = None,
    replacing: Path | None = None,
    jobs: int = 1,
    since: float | None = None,
    progress: Callable[[int], None] | None = None,
) -> Learned:
    """`toolsel learn`: examples from `cases`, `transcripts` and `misroutes`, plus those of the
    overlay `merge` (kept first), cleaned and chosen by `learn`; mined ones for the tools of
    `leave_out` left out and counted; with `registry`, those lint would flag left out
    (`lint_clean`, not reading the overlay at `replacing`). `max_per_tool` None:
    `TRANSCRIPT_MAX_PER_TOOL` with transcripts (each tool's pool bounded), else all."""
    if max_per_tool is None:
        max_per_tool = TRANSCRIPT_MAX_PER_TOOL if transcripts else 0
    patterns = redact_patterns(redact)
    pool = pool_size(max_per_tool)
    read = _read(cases, transcripts, misroutes, merge, set(leave_out), jobs, since, progress, pool)
    mined, left_out, kept = read.mined, read.left_out, read.kept
    with gc_paused():  # tens of thousands of examples, no cycles: collections only cost
        learned = learn(
            [*kept, *read.found],
            known_tools=known_tools,
            max_per_tool=max_per_tool,
            min_count=min_count,
            redact=patterns,
            keep=len(kept),
            max_chars=max_chars,
            pruned_calls=read.pruned_calls,
        )
    if registry is not None:
        chosen, flagged = lint_clean(learned.examples, registry, kept=kept, replacing=replacing)
        learned = replace(learned, examples=chosen, flagged=tuple(flagged))
    return replace(
        learned,
        calls_seen=mined.calls,
        calls_without_prompt=mined.without_prompt,
        read=len(read.found) + len(left_out) + sum(mined.pruned.values()),
        problems=tuple(read.problems),
        notes=tuple(read.notes),
        kept_from_overlay=len(kept),
        dangerous_left_out=len(left_out) + sum(mined.pruned.values()) - read.pruned,
        dangerous_tools=tuple(sorted({e.tool for e in left_out})),
        pruned=read.pruned,
        pool=pool if transcripts else None,
        from_misroutes=read.from_misroutes,
    )


def misroute_examples(paths: Sequence[Path]) -> list[Example]:
    """Each request of each misroute pair in the `stats --misroutes -f json` files at
    `paths`, as an example of the pair's winner (its source: the first failed call)."""
    from toolsel.misroute_evidence import read_misroutes

    examples: list[Example] = []
    for path in paths:
        evidence = read_misroutes(path)
        for pair in evidence.pairs:
            file, line = pair.where[0] if pair.where else (evidence.path, 0)
            source = f"{file}:{line}" if line else file
            examples += [Example(pair.winner, r.text, source, r.count) for r in pair.requests]
    return examples


@dataclass(frozen=True, slots=True)
class _Read:
    """What `learn_examples` reads before choosing: the examples to learn from (the cases',
    then those mined), those mined for tools left out, the merged overlay's (`kept`), what
    mining counted, the cases' problems and notes, and the prompts (and their calls) mining
    let go for the tools not left out."""

    found: list[Example]
    left_out: list[Example]
    kept: list[Example]
    mined: Mined
    problems: list[str]
    notes: list[str]
    pruned: int
    pruned_calls: dict[str, int]
    from_misroutes: int  # of `found` and `left_out`: requests of misroute pairs


def _read(
    cases: Sequence[Path],
    transcripts: Sequence[str],
    misroutes: Sequence[Path],
    merge: Path | None,
    unasked: set[str],
    jobs: int,
    since: float | None,
    progress: Callable[[int], None] | None,
    pool: int | None,
) -> _Read:
    """The cases, the transcripts' mined examples and the misroutes' requests (those for the
    `unasked` tools set apart), and the overlay `merge`, unless it is empty."""
    found, problems, notes = from_cases(cases) if cases else ([], [], [])
    mined = Mined([])
    if transcripts:
        mined = from_transcripts(
            list(transcripts), jobs=jobs, since=since, progress=progress, pool=pool
        )
    from_misroutes = misroute_examples(misroutes)
    taken = [*mined.examples, *from_misroutes]
    left_out = [example for example in taken if example.tool in unasked]
    found += (example for example in taken if example.tool not in unasked)
    kept: list[Example] = []
    if merge is not None and merge.exists() and merge.stat().st_size:
        kept = read_overlay(merge)
    pruned = sum(n for t, n in mined.pruned.items() if t not in unasked)
    pruned_calls = {t: n for t, n in mined.pruned_calls.items() if t not in unasked}
    return _Read(
        found, left_out, kept, mined, problems, notes, pruned, pruned_calls, len(from_misroutes)
    )


def redact_patterns(redact: Sequence[str]) -> list[re.Pattern[str]]:
    """The `--redact` patterns, compiled; a UsageError names the first that is not one."""
    patterns = []
    for pattern in redact:
        try:
            patterns.append(re.compile(pattern))
        except re.error as error:
            raise UsageError(f"--redact {pattern!r} is not a regular expression: {error}") from None
    return patterns


# -- agreeing with lint ----------------------------------------------------------------------


def lint_clean(
    examples: dict[str, tuple[Example, ...]],
    registry: Registry,
    *,
    kept: Sequence[Example] = (),
    replacing: Path | None = None,
) -> tuple[dict[str, tuple[Example, ...]], list[Flagged]]:
    """(the examples lint's TS702 and TS703 would not flag, those left out and why), read
    as `lint` reads the registry with the overlay last. `kept` examples (an overlay merged
    into) are never left out. Leaving one out changes the index the others rank on, so
    the rest are checked again until none is flagged."""
    from toolsel.example_checks import example_key

    fixed = {(e.tool, example_key(e.text)) for e in kept}
    base = tuple(e for e in registry.overlay_examples if not _same_file(e.file, replacing))
    own = [(tool.name, text) for tool in registry.tools for text in tool.examples]
    own += [(e.tool, e.text) for e in base]
    candidates = [e for tool in examples.values() for e in tool]
    left_out: list[Flagged] = []
    while True:
        found = _flagged(candidates, registry, base, own, fixed)
        if not found:
            break
        left_out += found.values()
        candidates = [e for i, e in enumerate(candidates) if i not in found]
    chosen: dict[str, tuple[Example, ...]] = {}
    for example in candidates:
        chosen[example.tool] = (*chosen.get(example.tool, ()), example)
    return chosen, sorted(left_out, key=lambda f: (f.example.tool, f.example.text.casefold()))


def _flagged(
    candidates: list[Example],
    registry: Registry,
    base: tuple[OverlayExample, ...],
    own: list[tuple[str, str]],
    fixed: set[tuple[str, str]],
) -> dict[int, Flagged]:
    """One round: the candidates (by position) that rank first a tool none of their group
    is (a multi-tool prompt is an example of each of its tools: one of them first is no
    collision), then those given to a tool that conflicts with another of the prompt's."""
    from toolsel.example_checks import collision, contradictions, example_key, groups
    from toolsel.ranking.index import build_index
    from toolsel.ranking.prepared import PreparedIndex
    from toolsel.registry.model import OverlayExample

    learned = tuple(OverlayExample(e.tool, e.text, "", "") for e in candidates)
    index = PreparedIndex(
        build_index(replace(registry, overlay_examples=(*base, *learned))), bulk=True
    )
    found: dict[int, Flagged] = {}
    grouped = groups([*own, *((e.tool, e.text) for e in candidates)])
    for i, example in enumerate(candidates):
        key = example_key(example.text)
        if (example.tool, key) in fixed:
            continue
        hit = collision(index, example.tool, example.text, grouped[key])
        if hit is not None:
            why = f"ranks {hit.first!r} first; {example.tool!r} is {hit.where}"
            found[i] = Flagged(example, "TS702", why)
    rest = [i for i in range(len(candidates)) if i not in found]
    pairs = own + [(candidates[i].tool, candidates[i].text) for i in rest]
    for position, first in contradictions(pairs, registry.in_conflict):
        if position < len(own):
            continue  # the registry's own: lint reports it, learn did not write it
        i = rest[position - len(own)]
        example = candidates[i]
        if (example.tool, example_key(example.text)) not in fixed:
            why = f"also an example of {pairs[first][0]!r}, which conflicts with it"
            found[i] = Flagged(example, "TS703", why)
    return found


def _same_file(file: str, path: Path | None) -> bool:
    if path is None:
        return False
    try:
        return Path(file).resolve() == path.resolve()
    except OSError:
        return False


# -- choosing and cleaning -------------------------------------------------------------------


def learn(
    examples: Iterable[Example],
    *,
    known_tools: Iterable[str] | None = None,
    max_per_tool: int = 0,
    min_count: int = 1,
    redact: Sequence[re.Pattern[str]] = (),
    keep: int = 0,
    max_chars: int = MAX_CHARS,
    pruned_calls: Mapping[str, int] | None = None,
) -> Learned:
    """Group, clean (`choose.prepare`) and choose: unknown tools and tools seen fewer than
    `min_count` times (`pruned_calls` included) dropped, duplicates merged, at most
    `max_per_tool` new diverse examples each, sorted by tool and text. The first `keep`
    examples (an overlay being merged into) are kept as they are, but redacted."""
    known = set(known_tools) if known_tools is not None else None
    grouped = _group(examples, known, redact, keep, max_chars)
    seen, by_tool, kept, counts = grouped.seen, grouped.by_tool, grouped.kept, grouped.counts
    for tool, calls in (pruned_calls or {}).items():
        if tool in seen:
            seen[tool] += calls  # prompts let go while mining still count as seen
    few = sorted(t for t, n in seen.items() if n < min_count)
    chosen: dict[str, tuple[Example, ...]] = {}
    for tool in sorted(set(by_tool) | set(kept)):
        items = [] if tool in few else list(by_tool.get(tool, {}).values())
        if max_per_tool and len(items) > max_per_tool:
            items = diverse(items, max_per_tool, RELEVANCE)
        items += kept.get(tool, {}).values()
        if items:
            chosen[tool] = tuple(sorted(items, key=lambda e: (e.text.casefold(), e.text)))
    return Learned(
        chosen,
        redacted=counts["redacted"],
        placeholders=tuple(sorted(grouped.used.items(), key=lambda kv: (-kv[1], kv[0]))),
        dropped=counts["dropped"],
        only_secret=counts["only_secret"],
        unknown_tools=tuple(sorted(grouped.unknown)),
        below_min_count=tuple(few),
        too_long=counts["too_long"],
    )


@dataclass(slots=True)
class _Grouped:
    """What `learn` gathers before choosing: new examples and an overlay's (`kept`) by tool
    and cleaned text, calls seen per tool, what was left out or redacted, unknown tools."""

    by_tool: dict[str, dict[str, Example]] = field(default_factory=dict)
    kept: dict[str, dict[str, Example]] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    used: Counter[str] = field(default_factory=Counter)
    unknown: set[str] = field(default_factory=set)


def _group(
    examples: Iterable[Example],
    known: set[str] | None,
    redact: Sequence[re.Pattern[str]],
    keep: int,
    max_chars: int,
) -> _Grouped:
    """`learn`'s first step: each example cleaned (`prepare`) and grouped, or counted as
    left out; the first `keep` are the overlay's."""
    grouped = _Grouped()
    by_tool, kept, seen, counts = grouped.by_tool, grouped.kept, grouped.seen, grouped.counts
    # a prompt repeats for each call it led to: clean and check each text once
    cleaned: dict[str, Cleaned] = {}
    for number, example in enumerate(examples):
        clean = cleaned.get(example.text)
        if clean is None:
            clean = cleaned[example.text] = prepare(example.text, redact, max_chars)
        if clean.text is None and clean.left_out is None:
            continue  # nothing but spaces
        if number < keep:
            if clean.text is not None:
                kept.setdefault(example.tool, {}).setdefault(
                    clean.key, Example(example.tool, clean.text, example.source)
                )
            continue
        if clean.key in kept.get(example.tool, {}):
            continue
        if clean.left_out is not None:
            counts[clean.left_out] += 1
            continue
        if known is not None and example.tool not in known:
            grouped.unknown.add(example.tool)
            continue
        if clean.placeholders:
            counts["redacted"] += 1
            grouped.used.update(clean.placeholders)
        seen[example.tool] = seen.get(example.tool, 0) + example.count
        group = by_tool.setdefault(example.tool, {})
        if clean.key not in group:
            group[clean.key] = Example(example.tool, clean.text or "", example.source)
    return grouped
