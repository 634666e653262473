"""Render `toolsel learn`: the one-line summary of what was learned, and why nothing was."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolsel.learn import Learned


def summary(learned: Learned, path: Path | None = None) -> str:
    """What was learned and what was left out, and where it went, in one line."""
    kept = learned.kept_from_overlay
    parts = [
        f"{counted(learned.count, 'example')} for {counted(len(learned.examples), 'tool')}"
        + (f" ({kept} kept from the overlay)" if kept else ""),
        *_what_was_read(learned),
        *_what_was_left_out(learned),
    ]
    where = f"; wrote {path}" if path is not None else ""
    return "learned " + "; ".join(parts) + where


def _what_was_read(learned: Learned) -> list[str]:
    """The summary's parts on the calls and misroutes read, and the prompts let go."""
    parts = []
    if learned.calls_seen:
        parts.append(
            f"{counted(learned.calls_seen, 'successful call')} read, "
            f"{learned.calls_without_prompt} with no human prompt before "
            f"{'it' if learned.calls_seen == 1 else 'them'}"
        )
    if learned.from_misroutes:
        parts.append(
            f"{counted(learned.from_misroutes, 'misroute request')} read as examples of the "
            "tool that then worked"
        )
    if learned.pruned:
        parts.append(
            f"{counted(learned.pruned, 'rarer prompt')} let go while mining, each tool keeping "
            f"its {learned.pool} most frequent (--max-per-tool 0 keeps all)"
        )
    return parts


def _what_was_left_out(learned: Learned) -> list[str]:
    """The summary's parts on the prompts changed or left out, and why."""
    parts = []
    if learned.redacted:
        used = ", ".join(f"{p} x{n}" for p, n in learned.placeholders[:5])
        more = ", ..." if len(learned.placeholders) > 5 else ""
        parts.append(
            f"{counted(learned.redacted, 'prompt')} kept with secrets or personal data replaced "
            f"({used}{more})"
        )
    if learned.only_secret:
        parts.append(
            f"{counted(learned.only_secret, 'prompt')} that {'was' if learned.only_secret == 1 else 'were'} "
            "only a secret or personal data dropped"
        )
    if learned.dropped:
        parts.append(f"{counted(learned.dropped, 'prompt')} matching --redact dropped")
    if learned.dangerous_left_out:
        parts.append(
            f"{counted(learned.dangerous_left_out, 'transcript example')} for dangerous tools left out "
            f"({some(learned.dangerous_tools)}; --include-dangerous learns them)"
        )
    if learned.too_long:
        parts.append(f"{counted(learned.too_long, 'prompt')} over --max-chars left out")
    if learned.unknown_tools:
        parts.append(
            f"{counted(len(learned.unknown_tools), 'tool')} not in the registry dropped "
            f"({some(learned.unknown_tools)})"
        )
    if learned.below_min_count:
        parts.append(f"{counted(len(learned.below_min_count), 'tool')} below --min-count dropped")
    if learned.flagged:
        parts.append(
            f"{counted(len(learned.flagged), 'example')} lint would flag left out ({_why_flagged(learned)})"
        )
    if learned.problems:
        parts.append(f"{counted(len(learned.problems), 'unreadable case')} skipped")
    return parts


#: What each rule learn applies says about an example it leaves out.
FLAGGED_BY = {
    "TS702": "ranks another tool first",
    "TS703": "an example of another tool",
}
#: How many left-out examples are listed one a line (the summary counts them all).
FLAGGED_SHOWN = 20


def _why_flagged(learned: Learned) -> str:
    by_rule = Counter(f.rule for f in learned.flagged)
    return "; ".join(f"{rule}, {FLAGGED_BY[rule]}: {n}" for rule, n in sorted(by_rule.items()))


def flagged_lines(learned: Learned) -> list[str]:
    """One line for each example left out because lint would flag it (the first
    FLAGGED_SHOWN), saying why."""
    lines = [
        f"left out {f.example.tool}: {f.example.text!r} {f.why} ({f.rule}; {f.example.source})"
        for f in learned.flagged[:FLAGGED_SHOWN]
    ]
    more = len(learned.flagged) - FLAGGED_SHOWN
    if more > 0:
        lines.append(f"... and {counted(more, 'more example')} left out")
    return lines


def nothing_learned(learned: Learned, *, from_transcripts: bool) -> str:
    """Why no example came out: all found were left out, or there was nothing to find."""
    if learned.read:  # found, then every one left out: the summary says why
        return (
            f"no examples learned: all {learned.read} found were left out "
            "(see below); nothing written"
        )
    what = "human prompts before successful calls" if from_transcripts else "usable cases"
    return f"no examples learned: no {what} in the input; nothing written"


UNKNOWN_DANGEROUS = (
    "without -r, learn cannot tell which tools are dangerous: examples for all of "
    "them were learned (see `toolsel learn` in docs/commands.md)"
)


def counted(n: int, noun: str) -> str:
    """`1 example`, `2 examples`: a count and its noun, in English."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def some(names: tuple[str, ...], shown: int = 5) -> str:
    """The first few names: "a, b, c, d, e and 2 more"."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
