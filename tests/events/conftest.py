from __future__ import annotations

from pathlib import Path

import pytest

from tests.events.archive import write_archive


@pytest.fixture(scope="session")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated archive with resumed sessions (copied calls), shared by the tests."""
    root = tmp_path_factory.mktemp("archive")
    write_archive(root, 120)
    return root
