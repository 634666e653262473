"""`parallel._pool` in this process, for tests."""

from __future__ import annotations

from typing import Any

from toolsel.replay import parallel


class InProcessPool:
    """`parallel._pool` in this process: each chunk done here as it is submitted, its
    answer pickled and read back as a worker's is (the first two done out of order once
    more, as workers may). The workers' code then runs where coverage and mutation
    testing see it; the tests above run it in real processes."""

    def __init__(self, workers: int, work: Any) -> None:
        self.work = work
        self.first: list[str] | None = None

    def submit(self, fn: Any, paths: list[str]) -> Any:
        import pickle
        from concurrent.futures import Future

        previous, parallel._work = parallel._work, self.work
        try:
            if self.first is None:
                self.first = paths
            elif self.first:
                fn(paths), fn(self.first)  # two chunks out of order, as workers may
                self.first = []
            future: Future[Any] = Future()
            future.set_result(pickle.loads(pickle.dumps(fn(paths))))
            return future
        finally:
            parallel._work = previous

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        pass

    def __enter__(self) -> InProcessPool:
        return self

    def __exit__(self, *exc: object) -> None:
        pass
