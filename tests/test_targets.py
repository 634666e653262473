"""What a recorded call works on (`toolsel.targets`), as the misroutes compare calls."""

from __future__ import annotations

import pytest

from toolsel.targets import call_targets, share_target


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        # Read on a folder, then ls of it (a trailing / and the case do not matter)
        (
            {"file_path": "/p/Demo/src/components"},
            {"command": "ls -la /p/demo/src/components/"},
            True,
        ),
        # find refused, then Glob with the same folder (Windows separators) and pattern
        (
            {"command": 'find "c:\\Proj\\Orch" -name "*.py" | head'},
            {"pattern": "*.py", "path": "c:\\Proj\\Orch"},
            True,
        ),
        # a sub-agent asked to check a file, then Glob for it
        (
            {"prompt": "Please verify that pyproject.toml exists here."},
            {"pattern": "pyproject.toml"},
            True,
        ),
        # a relative path names the absolute path it ends
        ({"path": "src/app.py"}, {"file_path": "/home/me/proj/src/app.py"}, True),
        # the folder a command ran in is not the file read next
        (
            {"command": "cd /p/app && npx tsc --noEmit"},
            {"file_path": "/p/app/src/x.test.ts"},
            False,
        ),
        # another file of the same folder
        (
            {"file_path": "/p/src/hooks/useTodos.ts"},
            {"file_path": "/p/src/hooks/useSimpleTodos.ts"},
            False,
        ),
        (
            {"command": "ls -la", "description": "List files"},
            {"file_path": "/p/types/index.ts"},
            False,
        ),
    ],
)
def test_calls_on_one_thing_share_a_target(
    first: dict[str, str], second: dict[str, str], shared: bool
) -> None:
    assert share_target(call_targets(first), call_targets(second)) is shared
    assert share_target(call_targets(second), call_targets(first)) is shared


def test_content_and_prose_name_nothing() -> None:
    content = "import os\nprint(os.listdir('src/app.py'))\n"
    assert call_targets({"content": content, "n": 3, "flag": True}) == frozenset()
    thought = "I need to recalculate the payment of $305 " + "with care " * 40
    assert call_targets({"thought": thought}) == frozenset()
    assert call_targets({"path": "./Reports/Q3.CSV/"}) == {"reports/q3.csv"}


def test_a_thought_is_prose_a_query_is_not() -> None:
    from toolsel.targets import only_prose

    assert only_prose({"thought": "The total is off; I should recalculate it " * 8})
    assert not only_prose({"query": "retry policy"})  # a short value is a target
    assert not only_prose({})  # nothing at all: no evidence either way
    assert not only_prose({"n": 3})
