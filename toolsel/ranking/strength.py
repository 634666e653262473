"""Strength: an absolute signal beside the relative score. A tool's score says how it
compares with the others (the best is always 1.0); its strength says how much of the prompt
it matches, so a weak best match is told apart from a strong one."""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from toolsel.ranking import scorers
from toolsel.ranking.index import ToolMeta
from toolsel.ranking.methods import Scores, looks_typed, names_a_tool
from toolsel.ranking.options import Method
from toolsel.ranking.prepared import PreparedIndex
from toolsel.text import split_name

#: A best match at or above this strength is a strong match; below it, output says that
#: nothing matches the prompt well. Calibrated by benchmarks/strong_match.py on 27,980 eval
#: queries (three benchmarks' dev splits and the project's eval sets), where it is the
#: threshold at which the note most often tells the truth: 69 % of the flagged best tools
#: are wrong and 69 % of the others right (0.5 flagged 93 % of the right answers).
STRONG_MATCH = 0.22
#: A word share at or above this is taken as the strength without comparing the prompt
#: with the tool's names (rapidfuzz stays unloaded); STRONG_MATCH's value before it was
#: calibrated, kept so that strengths (and --min-strength) did not change with it.
SHARE_ENOUGH = 0.5


@dataclass(frozen=True, slots=True)
class Matching:
    """The prompt's searchable terms as (term, weight, credit): the weight is the term's
    BM25 idf (a word the registry never uses weighs as much as the rarest word can); the
    credit is 1, or 1/2 for a typo correction, which is a guess."""

    query: str
    terms: tuple[tuple[str, float, float], ...]
    total: float


#: Below this, a prompt and a name are not alike at all ("purple elephant" and
#: send_chat_message are 0.41 alike by edit distance).
NAME_LIKENESS_FLOOR = 0.6
#: Prompts of more words than this are sentences, not names typed by hand.
NAME_LIKENESS_MAX_WORDS = 4
#: What a term corrected for a typo ("raed" -> "read") counts for when found.
CORRECTED_CREDIT = 0.5


def strength_terms(
    prepared: PreparedIndex, query: str, terms: list[str], method: Method
) -> Matching:
    index = prepared.index
    corrected = terms
    if looks_typed(prepared, terms) and (
        method is Method.HYBRID or (method is Method.FUSION and names_a_tool(prepared, query))
    ):
        corrected = scorers.correct_terms(prepared, terms)
    unseen = math.log(1 + (len(index) + 0.5) / 0.5)
    weighted: dict[str, tuple[float, float]] = {}
    for original, term in zip(terms, corrected, strict=True):
        position = index.vocabulary.get(term)
        weight = index.bm25_idf[position] if position is not None else unseen
        weighted.setdefault(term, (weight, 1.0 if term == original else CORRECTED_CREDIT))
    return Matching(
        query.strip().lower(),
        tuple((term, w, c) for term, (w, c) in weighted.items()),
        sum(w for w, _ in weighted.values()),
    )


def strength(prepared: PreparedIndex, doc: int, scores: Scores, matching: Matching) -> float:
    """How much of the prompt tool `doc` matches, 0..1, whatever the other tools score: 1 for
    an exact name or alias; the cosine for `semantic`; otherwise the larger of the
    idf-weighted share of the prompt's words found in the tool's indexed text, and how
    alike the prompt and the tool's name are (a typed name: "raed fle")."""
    if doc in scores.match:
        return 1.0
    if scores.cosine is not None and scores.fusion is None:
        return max(0.0, min(1.0, float(scores.cosine[doc])))
    index = prepared.index
    doc_ids = index.doc_ids
    found = 0.0
    for term, weight, credit in matching.terms:
        span = index.postings(term)
        if span:
            at = bisect.bisect_left(doc_ids, doc, span.start, span.stop)
            if at < span.stop and doc_ids[at] == doc:
                found += weight * credit
    share = found / matching.total if matching.total else 0.0
    if share >= SHARE_ENOUGH or len(matching.query.split()) > NAME_LIKENESS_MAX_WORDS:
        return share  # a sentence is not a name typed by hand (and rapidfuzz stays unloaded)
    return max(share, _name_likeness(prepared.tools[doc], matching.query))


def _name_likeness(tool: ToolMeta, query: str) -> float:
    """The best plain edit-distance ratio between the prompt and the tool's name (as words),
    display name or aliases: "raed fle" and read_file are 0.82 alike."""
    from rapidfuzz import fuzz

    names = [tool.name, *tool.aliases] + ([tool.display_name] if tool.display_name else [])
    best = max(fuzz.ratio(query, " ".join(split_name(name))) for name in names) / 100.0
    return best if best >= NAME_LIKENESS_FLOOR else 0.0
