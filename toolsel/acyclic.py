"""Pause the cyclic garbage collector while building large acyclic data.

Parsing a registry or replaying a transcript allocates millions of small objects that never
form reference cycles (JSON values, events, counters): reference counting frees them all,
and collection passes only cost time (2-5% of a replay).
"""

from __future__ import annotations

import gc


class gc_paused:  # lower case: it was a function, and reads as one (`with gc_paused():`)
    """The collector paused inside a `with` block (and enabled again after it, if it was).
    A class, not a generator-based context manager: entered once per transcript file, where
    `contextlib`'s generator costs a few microseconds more."""

    __slots__ = ("enabled",)

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *_: object) -> None:
        if self.enabled:
            gc.enable()
