"""`gc_paused`: the collector off inside the block, and as it was after it."""

from __future__ import annotations

import gc

import pytest

from toolsel.acyclic import gc_paused


def test_the_collector_is_paused_and_enabled_again() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: the outer block keeps it paused
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_is_enabled_again_after_an_error_and_left_off_when_it_was() -> None:
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("x")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
