"""TS708: a tool agents called where another then answered (misroutes as evidence)."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.misroute_evidence import EvidencePair
from toolsel.schemas import Output, schema_name


def misrouted(context: LintContext) -> Iterator[Hit]:
    """Transcripts show agents calling this tool for requests that a different tool then
    answered (`toolsel stats --misroutes`: the call failed or came back empty, and the
    other tool worked for the same step), and `toolsel rank -m hybrid` does not put the
    tool that worked above this one for those requests: nothing in the two descriptions
    tells them apart, so an agent is as likely to pick this one again. Say what this tool
    is for and what it is not for, naming the other ("for folders, use `ls`"), or give the
    other tool examples of those requests (`toolsel learn --misroutes FILE`).

    Runs only with evidence: `toolsel lint --misroutes misroutes.json`, where the file is
    `toolsel stats PATH... --misroutes --format json` (`toolsel schema --output
    misroutes`). A pair is reported on the failed tool when both tools are in the registry
    and at least one of the pair's requests ranks the winner below the failed tool (or not
    at all); a pair whose document holds no requests cannot be ranked and is not reported."""
    pairs = _pairs(context)
    if not pairs:
        return
    from toolsel.ranking.core import RankOptions
    from toolsel.ranking.fields import tokens
    from toolsel.ranking.options import Method
    from toolsel.ranking.requests import rank_each_once

    everything = RankOptions(method=Method.HYBRID, top=max(1, len(context.tools)))
    texts = (r.text for pair in pairs for r in pair.requests if tokens(r.text))
    orders = rank_each_once(context.rank_index, texts, everything)
    for pair in pairs:
        ranked = [orders[r.text] for r in pair.requests if r.text in orders]
        missed = sum(not _above(order, pair.winner, pair.loser) for order in ranked)
        tool = context.registry.get(pair.loser)
        if not missed or tool is None:
            continue
        example = f", e.g. {pair.where[0][0]}:{pair.where[0][1]}" if pair.where else ""
        yield context.hit(
            tool,
            "description",
            message=(
                f"agents called {pair.loser!r} where {pair.winner!r} then answered "
                f"({pair.count} time{'' if pair.count == 1 else 's'}{example}); for {missed} "
                f"of {len(ranked)} of those "
                f"requests rank does not put {pair.winner!r} above it: its description "
                f"does not separate it from {pair.winner!r}"
            ),
        )


def _pairs(context: LintContext) -> list[EvidencePair]:
    """The evidence's pairs of two different tools of the registry, with requests."""
    names = context.names
    return [
        pair
        for evidence in context.evidence
        for pair in evidence.pairs
        if pair.loser in names and pair.winner in names and pair.requests
    ]


def _above(order: tuple[str, ...], winner: str, loser: str) -> bool:
    at = {name: n for n, name in enumerate(order)}
    won = at.get(winner)
    return won is not None and won < at.get(loser, len(order))


_EVIDENCE = (
    f'# file: week.misroutes.json\n{{"schema": "{schema_name(Output.MISROUTES)}", "pairs": [{{"loser": '
    '"read_file", "winner": "list_dir", "count": 2, "occurrences": [{"file": "s.jsonl", '
    '"line": 12}], "requests": [{"text": "what is in the reports folder", "count": 2}]}]}\n'
)

TS708 = Rule(
    "TS708",
    "misrouted",
    Severity.WARNING,
    "For the requests of recorded misroutes, rank puts the tool that answered above the one "
    "that failed (with `--misroutes FILE`)",
    bad=(
        "- name: read_file\n  description: Read what is in a file or folder on disk.\n"
        "- name: list_dir\n  description: Show entries.\n" + _EVIDENCE
    ),
    good=(
        "- name: read_file\n  description: Read the text of one file by its path; not for "
        "folders (use list_dir).\n- name: list_dir\n  description: List what is in a folder: "
        "the files in the reports folder, the entries of a directory.\n" + _EVIDENCE
    ),
    check=misrouted,
)
