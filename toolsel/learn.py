"""`toolsel learn`: example prompts for tools, from labelled cases or mined from transcripts,
written as an examples overlay (a registry file that adds examples and defines no tool).

- From cases (`toolsel.cases`, as `eval` and `test` read them): each expected tool of a
  case gets its prompt.
- From transcripts: each successful call gets the user's request that led to it (the last
  human message before the assistant turn that made the call); a sub-agent's calls get the
  prompt of the Task that launched them. Tool results and system text are never examples.
- Secrets and personal data in a prompt are replaced by typed placeholders (`<email>`,
  `<aws-key>`; see `toolsel.secrets`) and the prompt is kept; a prompt that is nothing but
  one, or that matches a `--redact` pattern, is dropped. Both are counted.
- Examples mined from transcripts for `dangerous` tools are left out unless asked for: a
  transcript shows what an agent did once, not what it should do (labelled cases are kept).
- `--max-per-tool N` keeps N representative and diverse examples per tool (see `diverse`).
- With a registry, the examples `lint` would flag are left out, each with why: one that
  ranks another tool first (TS702), or that is already an example of another tool (TS703),
  by the checks lint runs (`toolsel.example_checks`), so the overlay passes `lint --strict`.

Everything here returns data; `toolsel.cli.learn` writes the overlay.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsel.acyclic import gc_paused
from toolsel.errors import UsageError
from toolsel.registry.model import DEFAULT_PARENT_TASK_TOOLS
from toolsel.secrets import PLACEHOLDERS
from toolsel.secrets import redact as with_placeholders
from toolsel.text import visible

if TYPE_CHECKING:
    from toolsel.registry.model import OverlayExample, Registry
    from toolsel.replay.driver import ForkingPromptSink
    from toolsel.replay.events import Call, Result
    from toolsel.replay.matcher import OpenCall

OVERLAY_HEADER = "# toolsel examples overlay (written by `toolsel learn`; edit freely)\n"


@dataclass(frozen=True, slots=True)
class Example:
    tool: str
    text: str
    source: str  # file:line it came from (the first, if it was seen several times)
    count: int = 1  # how many calls it led to (transcripts)


@dataclass(frozen=True, slots=True)
class Flagged:
    """An example left out because lint would flag it: the rule, and why."""

    example: Example
    rule: str  # TS702 (ranks another tool first) or TS703 (an example of another tool)
    why: str


@dataclass(frozen=True, slots=True)
class Learned:
    """What learning found: examples by tool (sorted), and what it left out and why."""

    examples: dict[str, tuple[Example, ...]]
    redacted: int = 0  # prompts kept with secrets or personal data replaced by placeholders
    placeholders: tuple[tuple[str, int], ...] = ()  # each placeholder and how often it was used
    dropped: int = 0  # prompts that matched a --redact pattern
    only_secret: int = 0  # prompts that were nothing but secrets or personal data
    unknown_tools: tuple[str, ...] = ()  # tools the registry does not have (dropped)
    below_min_count: tuple[str, ...] = ()  # tools seen fewer than --min-count times
    calls_seen: int = 0  # transcripts: successful calls looked at
    calls_without_prompt: int = 0  # transcripts: calls no human prompt preceded
    problems: tuple[str, ...] = field(default_factory=tuple)  # cases it could not read
    notes: tuple[str, ...] = ()  # about the case files (the other spelling of a key, ...)
    kept_from_overlay: int = 0  # --merge: examples the existing overlay already had
    read: int = 0  # examples read from cases and transcripts, before cleaning
    too_long: int = 0  # prompts over --max-chars (pasted files and logs), left out
    dangerous_left_out: int = 0  # transcript examples for `dangerous` tools, left out
    dangerous_tools: tuple[str, ...] = ()  # the tools they were for
    flagged: tuple[Flagged, ...] = ()  # examples lint would flag (TS702, TS703), left out
    pruned: int = 0  # transcripts: rarer distinct prompts the bounded pool let go
    pool: int | None = None  # transcripts: the prompts each tool's pool keeps (None: all)

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.examples.values())


#: Longer prompts are not learned: a pasted file, diff or log says little about how people
#: ask for a tool, and its words would match every query (every query of the benchmarks'
#: dev splits is under 1,100 characters; real transcripts hold pasted prompts of 3-5k).
MAX_CHARS = 2000


def normalise(text: str) -> str:
    """One example's text as stored: whitespace collapsed, ends trimmed."""
    return " ".join(text.split())


# -- from cases -------------------------------------------------------------------------


def from_cases(paths: Sequence[Path]) -> tuple[list[Example], list[str], list[str]]:
    """(examples, problems, notes) from case files (`toolsel.cases`: YAML, JSON or JSON
    lines): each expected tool of a case gets its prompt. Each case that could not be read
    is one problem (`file:line:col: what`); the others are still used. Raises UsageError
    for a file with no readable case."""
    from toolsel.cases import read_cases

    examples: list[Example] = []
    problems: list[str] = []
    notes: list[str] = []
    for path in paths:
        found = read_cases(path)
        if not found.cases:
            raise found.no_cases()
        notes += found.notes
        problems += [problem.located(found.file) for problem in found.problems]
        for case in found.cases:
            source = f"{found.file}:{case.line}"
            examples += [Example(tool, case.prompt, source) for tool in case.expect]
    return examples, problems, notes


# -- from transcripts ---------------------------------------------------------------------


def from_transcripts(
    paths: list[str],
    *,
    jobs: int = 1,
    since: float | None = None,
    progress: Callable[[int], None] | None = None,
    pool: int | None = None,
) -> Mined:
    """The examples mined with the replay readers in every format they read (`jobs`
    processes at once; files last modified before `since` skipped), with the successful
    calls seen and those with no human prompt before them. With `pool`, each tool keeps
    at most 2 x `pool` distinct prompts at a time (see `_Miner.join`), and its `pool` most
    frequent in the end: memory is bounded whatever the archive, and the rarer prompts let
    go are counted."""
    from toolsel.replay.driver import mine_paths

    miner = _Miner(pool)
    mine_paths(paths, miner, jobs=jobs, since=since, progress=progress)
    miner.finish()
    with gc_paused():  # one object per distinct prompt, no cycles
        examples = [
            Example(tool, text, f"{file}:{line}", count)
            for tool, prompts in miner.found.items()
            for text, (file, line, count) in prompts.items()
        ]
    return Mined(
        examples,
        miner.calls,
        miner.without_prompt,
        pruned=dict(miner.pruned),
        pruned_calls=dict(miner.pruned_calls),
    )


@dataclass(frozen=True, slots=True)
class Mined:
    """What mining transcripts found: the examples (by tool, each tool's in the order first
    seen), the successful calls seen and those no human prompt preceded, and per tool the
    distinct prompts a bounded pool let go and the calls they had led to (a prompt let go
    and seen again is counted again)."""

    examples: list[Example]
    calls: int = 0
    without_prompt: int = 0
    pruned: dict[str, int] = field(default_factory=dict)
    pruned_calls: dict[str, int] = field(default_factory=dict)


#: `--max-per-tool` when transcripts are mined and none is given: an archive's distinct
#: prompts are unbounded, an overlay of every one of them is no help to `rank`, and all of
#: them would have to be kept in memory to write it (cases alone keep all by default).
TRANSCRIPT_MAX_PER_TOOL = 50
#: The pool of distinct prompts each tool keeps while mining, for `--max-per-tool N`: at
#: least this many, and this many per example wanted (`pool_size`).
POOL_FLOOR = 1000
POOL_PER_EXAMPLE = 20


def pool_size(max_per_tool: int) -> int | None:
    """The prompts each tool's pool is pruned down to (`_Miner.join`), for choosing
    `max_per_tool` examples: enough that the diverse choice has plenty to choose from;
    None (every distinct prompt kept) when all are wanted."""
    return max(POOL_FLOOR, POOL_PER_EXAMPLE * max_per_tool) if max_per_tool else None


def keep_most_frequent(prompts: dict[str, list[Any]], n: int) -> tuple[dict[str, list[Any]], int]:
    """(the `n` prompts with the highest counts, ties to the first seen, in the order they
    were first seen; the calls the others had led to). Each prompt's value ends with its
    count."""
    if len(prompts) <= n:
        return prompts, 0
    counts = [value[-1] for value in prompts.values()]
    least = sorted(counts, reverse=True)[n - 1]  # the count of the n-th most frequent
    ties = n - sum(1 for count in counts if count > least)  # how many of that count stay
    chosen: dict[str, list[Any]] = {}
    let_go = 0
    for text, value in prompts.items():
        count = value[-1]
        if count > least or (count == least and ties > 0):
            chosen[text] = value
            ties -= count == least
        else:
            let_go += count
    return chosen, let_go


class _Miner:
    """A replay listener that remembers, per file, the last human prompt, each call's
    prompt (a sub-agent call: its Task's prompt), and keeps those of successful calls.
    Files are mined each by a `fork` and added with `join`, in path order, in one process
    or several: pruning happens only in `join`, so at the same points for any `--jobs`."""

    def __init__(self, pool: int | None = None) -> None:
        #: tool -> prompt -> [file, line where first seen, how many calls it led to]:
        #: memory grows with distinct prompts, not with calls; with `pool`, a tool's
        #: prompts are cut to the `pool` most frequent each time they reach 2 x `pool`
        self.found: dict[str, dict[str, list[Any]]] = {}
        self.pool = pool
        self.calls = 0
        self.without_prompt = 0
        self.pruned: Counter[str] = Counter()  # tool -> distinct prompts let go
        self.pruned_calls: Counter[str] = Counter()  # tool -> the calls they had led to
        self.prompt: tuple[str, int] | None = None
        self.file = ""
        self.pending: dict[str, tuple[str, int] | None] = {}  # call id -> its prompt
        self.task_prompts: dict[str, tuple[str, int]] = {}  # Task call id -> its prompt

    def __reduce__(self) -> tuple[Any, ...]:
        # what a worker sends back for a file: what it found, not the listener's state
        return (_mined, (self.found, self.calls, self.without_prompt))

    def fork(self) -> _Miner:
        """An empty miner, to mine one file with."""
        return _Miner()

    def join(self, other: ForkingPromptSink) -> None:
        """Add what another miner found (the next file's, in path order); then each tool
        whose prompts reached 2 x `pool` keeps its `pool` most frequent (`keep_most_frequent`),
        and what it let go is counted."""
        assert isinstance(other, _Miner)
        for tool, prompts in other.found.items():
            pool = self.found.get(tool)
            if pool is None:
                pool = self.found[tool] = {}
            for text, value in prompts.items():
                seen = pool.get(text)
                if seen is None:
                    pool[text] = value  # the other miner is not used again
                else:
                    seen[2] += value[2]
            if self.pool is not None:
                self._prune(tool, 2 * self.pool - 1)
        self.calls += other.calls
        self.without_prompt += other.without_prompt

    def finish(self) -> None:
        """After the last join: each tool keeps its `pool` most frequent prompts."""
        if self.pool is not None:
            for tool in self.found:
                self._prune(tool, self.pool)

    def _prune(self, tool: str, limit: int) -> None:
        """Over `limit` prompts, the tool keeps its `pool` most frequent."""
        prompts = self.found[tool]
        if self.pool is not None and len(prompts) > limit:
            self.found[tool], let_go = keep_most_frequent(prompts, self.pool)
            self.pruned[tool] += len(prompts) - self.pool
            self.pruned_calls[tool] += let_go

    def start_file(self, path: str) -> None:
        self.file, self.prompt = path, None
        self.pending.clear()
        self.task_prompts.clear()

    def human(self, text: str, line: int) -> None:
        if text.strip():
            self.prompt = (text, line)

    def started(self, opened: OpenCall, line: int) -> None:
        call, parent = opened.call, opened.parent
        prompt = self.task_prompts.get(parent) if parent else self.prompt
        self.pending[call.id] = prompt
        self._task_prompt(call)

    def enriched(self, opened: OpenCall, line: int) -> None:
        self._task_prompt(opened.call)  # a Task's prompt may arrive in a later line

    def _task_prompt(self, call: Call) -> None:
        if call.tool not in DEFAULT_PARENT_TASK_TOOLS:
            return  # only a sub-agent launch carries a prompt (and arguments decode lazily)
        arguments = call.arguments
        task = arguments.get("prompt") if isinstance(arguments, dict) else None
        if isinstance(task, str) and task.strip():
            self.task_prompts[call.id] = (task, 0)

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        tool = opened.call.tool
        prompt = self.pending.pop(opened.call.id, None)
        if result.is_error:
            return
        self.calls += 1
        if prompt is None:
            self.without_prompt += 1
            return
        text, at = prompt
        prompts = self.found.get(tool)
        if prompts is None:
            prompts = self.found[tool] = {}
        seen = prompts.get(text)
        if seen is None:
            prompts[text] = [self.file, at or line, 1]
        else:
            seen[2] += 1


def _mined(found: dict[str, dict[str, list[Any]]], calls: int, without_prompt: int) -> _Miner:
    miner = _Miner()
    miner.found, miner.calls, miner.without_prompt = found, calls, without_prompt
    return miner


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
    """`toolsel learn`: examples from `cases` and mined from `transcripts`, plus those of the
    overlay `merge` (kept first, never duplicated), cleaned and chosen by `learn`. Examples
    mined from transcripts for the tools of `leave_out` (the `dangerous` ones) are left out
    and counted. With `registry`, new examples lint would flag are left out, each with why
    (`lint_clean`; the overlay at `replacing`, which the new one replaces, is not read).
    `max_per_tool` None: `TRANSCRIPT_MAX_PER_TOOL` with transcripts (mining then keeps a
    bounded pool of prompts per tool, `pool_size`), else all."""
    if max_per_tool is None:
        max_per_tool = TRANSCRIPT_MAX_PER_TOOL if transcripts else 0
    patterns = []
    for pattern in redact:
        try:
            patterns.append(re.compile(pattern))
        except re.error as error:
            raise UsageError(f"--redact {pattern!r} is not a regular expression: {error}") from None
    found, problems, notes = from_cases(cases) if cases else ([], [], [])
    mined = Mined([])
    pool = pool_size(max_per_tool)
    left_out: list[Example] = []
    unasked = set(leave_out)
    if transcripts:
        mined = from_transcripts(
            list(transcripts), jobs=jobs, since=since, progress=progress, pool=pool
        )
        for example in mined.examples:
            (left_out if example.tool in unasked else found).append(example)
    let_go = {t: n for t, n in mined.pruned.items() if t not in unasked}
    kept: list[Example] = []
    if merge is not None and merge.exists() and merge.stat().st_size:
        kept = read_overlay(merge)
    with gc_paused():  # tens of thousands of examples, no cycles: collections only cost
        learned = learn(
            [*kept, *found],
            known_tools=known_tools,
            max_per_tool=max_per_tool,
            min_count=min_count,
            redact=patterns,
            keep=len(kept),
            max_chars=max_chars,
            pruned_calls={t: n for t, n in mined.pruned_calls.items() if t not in unasked},
        )
    flagged: list[Flagged] = []
    if registry is not None:
        chosen, flagged = lint_clean(learned.examples, registry, kept=kept, replacing=replacing)
        learned = replace(learned, examples=chosen)
    return replace(
        learned,
        flagged=tuple(flagged),
        calls_seen=mined.calls,
        calls_without_prompt=mined.without_prompt,
        read=len(found) + len(left_out) + sum(mined.pruned.values()),
        problems=tuple(problems),
        notes=tuple(notes),
        kept_from_overlay=len(kept),
        dangerous_left_out=len(left_out) + sum(mined.pruned.values()) - sum(let_go.values()),
        dangerous_tools=tuple(sorted({e.tool for e in left_out})),
        pruned=sum(let_go.values()),
        pool=pool if transcripts else None,
    )


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

    def conflicting(a: str, b: str) -> bool:
        first, second = registry.get(a), registry.get(b)
        return (first is not None and b in first.conflicts) or (
            second is not None and a in second.conflicts
        )

    for position, first in contradictions(pairs, conflicting):
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
    """Group, clean and choose: secrets and personal data replaced by placeholders (a prompt
    that is nothing else, or that matches a `redact` pattern, dropped), counted; unknown
    tools dropped and named, prompts longer than `max_chars` (0: no limit) left out and
    counted, tools seen fewer than `min_count` times dropped, duplicates merged, at most
    `max_per_tool` diverse examples each; sorted by tool and text. The first `keep`
    examples (an overlay being merged into) are kept, redacted but otherwise as they are,
    and new ones are added to them up to `max_per_tool` new examples per tool.
    `pruned_calls` (tool -> calls whose prompts mining let go) count toward `min_count`."""
    known = set(known_tools) if known_tools is not None else None
    by_tool: dict[str, dict[str, Example]] = {}
    kept: dict[str, dict[str, Example]] = {}
    seen: dict[str, int] = {}
    counts = {"redacted": 0, "dropped": 0, "only_secret": 0, "too_long": 0}
    used: Counter[str] = Counter()
    unknown: set[str] = set()
    # a prompt repeats for each call it led to: clean and check each text once
    cleaned: dict[str, _Cleaned] = {}
    for number, example in enumerate(examples):
        clean = cleaned.get(example.text)
        if clean is None:
            clean = cleaned[example.text] = _clean(example.text, redact, max_chars)
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
            unknown.add(example.tool)
            continue
        if clean.placeholders:
            counts["redacted"] += 1
            used.update(clean.placeholders)
        seen[example.tool] = seen.get(example.tool, 0) + example.count
        group = by_tool.setdefault(example.tool, {})
        if clean.key not in group:
            group[clean.key] = Example(example.tool, clean.text or "", example.source)
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
        placeholders=tuple(sorted(used.items(), key=lambda kv: (-kv[1], kv[0]))),
        dropped=counts["dropped"],
        only_secret=counts["only_secret"],
        unknown_tools=tuple(sorted(unknown)),
        below_min_count=tuple(few),
        too_long=counts["too_long"],
    )


@dataclass(frozen=True, slots=True)
class _Cleaned:
    """One prompt as it would be written, or why it is not."""

    text: str | None  # normalised, secrets replaced; None: nothing that can be written
    key: str  # what tells duplicates apart
    placeholders: tuple[str, ...]  # the placeholders put in
    left_out: str | None  # why a new example with it is left out: a `learn` counter


def _clean(raw: str, patterns: Sequence[re.Pattern[str]], max_chars: int) -> _Cleaned:
    text = normalise(raw)
    if not text:
        return _Cleaned(None, "", (), None)
    redacted = with_placeholders(text)
    if redacted is None or (redacted.placeholders and _only_placeholders(redacted.text)):
        return _Cleaned(None, "", (), "only_secret")
    key = redacted.text.casefold()
    left_out = None
    if any(p.search(text) for p in patterns):
        left_out = "dropped"
    elif max_chars and len(text) > max_chars:
        left_out = "too_long"
    return _Cleaned(redacted.text, key, redacted.placeholders, left_out)


def _only_placeholders(text: str) -> bool:
    """Nothing but placeholders and punctuation: a pasted key, a bare e-mail address."""
    for placeholder in PLACEHOLDERS:
        if placeholder in text:
            text = text.replace(placeholder, " ")
    return not any(ch.isalnum() for ch in text)


#: Maximal marginal relevance weight: how much a chosen example must represent the others
#: (mean similarity) against how much it must differ from those already chosen.
RELEVANCE = 0.7
#: Values of the choice closer than this are a tie (cosines of unit vectors, and sums
#: that are equal but for the order they were added in).
TIE = 1e-9


def diverse(examples: Sequence[Example], n: int, relevance: float = RELEVANCE) -> list[Example]:
    """`n` examples that represent the rest and differ from one another, by maximal
    marginal relevance over TF-IDF cosine: each pick maximises 0.7 x its mean similarity
    to all the tool's examples (how typical a request it is) minus 0.3 x its similarity to
    the closest example already picked (how much it repeats one). The first pick is the
    most typical request; ties (within `TIE`) go to the text that sorts first. So the N
    kept cover the common ways people asked, instead of the first N, which are often
    rephrasings."""
    import numpy as np

    from toolsel.ranking.fields import tokens
    from toolsel.tfidf import tfidf

    texts = [e.text for e in examples]
    # scikit-learn's TfidfVectorizer(sublinear_tf=True) vectors, in numpy (its import: 1.5 s)
    vectors = tfidf([tokens(text) for text in texts])
    if vectors is None:  # no words at all: keep the first n in text order
        return sorted(examples, key=lambda e: e.text)[:n]
    rows, columns, weights, starts = vectors.rows, vectors.columns, vectors.weights, vectors.starts
    size = len(texts)
    # mean similarity to every example, from the centroid: no n x n matrix, so a tool with
    # 100k mined prompts costs linear memory
    centroid = np.bincount(columns, weights) / size
    typical = np.bincount(rows, weights * centroid[columns], minlength=size)
    rank = {i: r for r, i in enumerate(sorted(range(size), key=lambda i: texts[i]))}
    chosen: list[int] = []
    closest = np.zeros(size)
    available = np.ones(size, dtype=bool)
    picked = np.zeros(len(centroid))
    for _ in range(n):
        value = relevance * typical - (1 - relevance) * closest
        value[~available] = -np.inf
        # ties (to rounding: the order of a sum can move its last bit) go to the first text
        best = value.max() - TIE
        pick = min((int(i) for i in np.flatnonzero(value >= best)), key=rank.__getitem__)
        chosen.append(pick)
        available[pick] = False
        own = slice(starts[pick], starts[pick + 1])
        picked[:] = 0.0
        picked[columns[own]] = weights[own]
        closest = np.maximum(closest, np.bincount(rows, weights * picked[columns], minlength=size))
    return [examples[i] for i in chosen]


# -- writing ----------------------------------------------------------------------------------


def overlay_text(learned: Learned) -> str:
    """The overlay as YAML: tools sorted, examples sorted, each with where it came from in
    a comment, so a learned overlay diffs cleanly in review."""
    lines = [OVERLAY_HEADER.rstrip("\n"), "examples:"]
    for tool, examples in learned.examples.items():
        lines.append(f"  {_quoted(tool)}:")
        for example in examples:
            lines.append(f"    - {_quoted(example.text)}  # {visible(example.source)}")
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar that reads back exactly: JSON's escapes, plus
    every character that is not printable (line and paragraph separators, bidi and other
    format characters) escaped, so nothing in a prompt or a tool name can fold, hide or
    reorder the file. Characters beyond the Basic Multilingual Plane are written as they
    are, or as `\\U0001F680` when not printable; never as a surrogate pair, which YAML does
    not read. A lone surrogate (from a JSON `\\ud800`), which no UTF-8 file can hold, is
    written as U+FFFD."""
    from json.encoder import encode_basestring  # json.dumps of a str, without its layers

    dumped = encode_basestring(text)
    if dumped.isprintable():  # the common case, checked in one call
        return dumped
    out = []
    for ch in dumped:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        elif "\ud800" <= ch <= "\udfff":
            out.append("\\ufffd")
        elif ord(ch) > 0xFFFF:
            out.append(f"\\U{ord(ch):08x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)


def read_overlay(path: Path) -> list[Example]:
    """The examples of an existing overlay (for `--merge`); refuses anything else."""
    from toolsel.inputs import InputProblem, read_bounded
    from toolsel.registry.formats import is_overlay
    from toolsel.registry.source import SourceSyntaxError, parse_text

    try:
        data = read_bounded(path, 100 * 1024 * 1024).decode("utf-8")
        document = parse_text(data, is_json=path.suffix.lower() == ".json").value
    except (InputProblem, UnicodeDecodeError, SourceSyntaxError) as problem:
        raise UsageError(f"{path}: cannot read it as an overlay: {problem}") from None
    if not is_overlay(document) or not isinstance(document.get("examples"), dict):
        raise UsageError(
            f"{path}: not an examples overlay (no top-level `examples:` mapping)",
            hint="learn writes and merges overlays only; pass another -o",
        )
    sources = _comment_sources(data)
    found: list[Example] = []
    for tool, prompts in document["examples"].items():
        for prompt in prompts if isinstance(prompts, list) else []:
            if isinstance(prompt, str):
                found.append(Example(str(tool), prompt, sources.get(prompt, str(path))))
    return found


_SOURCE_COMMENT = re.compile(r'^\s*-\s*("(?:[^"\\]|\\.)*")\s+#\s*(\S.*?)\s*$')


def _comment_sources(text: str) -> dict[str, str]:
    """Example text -> the provenance comment `learn` wrote after it, so that `--merge`
    keeps where each kept example came from."""
    import yaml

    sources: dict[str, str] = {}
    for line in text.splitlines():
        match = _SOURCE_COMMENT.match(line)
        if match:
            try:
                value = yaml.safe_load(match.group(1))  # a double-quoted YAML scalar
            except yaml.YAMLError:
                continue
            if isinstance(value, str):
                sources.setdefault(value, match.group(2))
    return sources


def is_overlay_file(path: Path) -> bool:
    """Whether `path` holds an overlay (or nothing): the only files `learn -o` overwrites."""
    try:
        if path.stat().st_size == 0:
            return True
        read_overlay(path)
    except (OSError, UsageError):
        return False
    return True
