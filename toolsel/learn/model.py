"""What `learn` finds: examples, the ones left out and why, and the totals."""

from __future__ import annotations

from dataclasses import dataclass, field


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
    from_misroutes: int = 0  # requests read from misroute files (examples of the winner)

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
