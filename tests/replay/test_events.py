"""`replay.events`: what decoders give."""

from __future__ import annotations

import pickle

from toolsel.replay.events import NOTHING, UNKNOWN


def test_an_unknown_record_equals_only_itself() -> None:
    """Empty like a known record with nothing to count, but never equal to one: a test that
    compares a decoding with `(fmt, ())` tells the two apart."""
    assert UNKNOWN == UNKNOWN and not UNKNOWN and len(UNKNOWN) == 0
    assert UNKNOWN != () and NOTHING == () and UNKNOWN != NOTHING
    assert () != UNKNOWN  # noqa: SIM300 - the reflected comparison, from a plain tuple
    assert ("codex-rollout", UNKNOWN) != ("codex-rollout", ())
    assert ("codex-rollout", UNKNOWN) == ("codex-rollout", UNKNOWN)
    assert pickle.loads(pickle.dumps(UNKNOWN)) is UNKNOWN  # across `--jobs` processes
