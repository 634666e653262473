"""Write a whole file at once: a temporary file in the same folder, fsynced, then moved into
place, so an interrupt or a full disk never leaves half a file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from toolsel.errors import UsageError


def create_file(path: Path, text: str) -> None:
    """Write `path`, which must not exist: a file that appears meanwhile is not replaced."""
    temporary = _written(path, text)
    try:
        os.link(temporary, path)  # fails, atomically, when `path` exists
    except FileExistsError:
        raise UsageError(f"{_shown(path)} already exists; refusing to overwrite it") from None
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    finally:
        temporary.unlink(missing_ok=True)


def replace_file(path: Path, text: str) -> None:
    """Replace the content of `path` (keeping its permission bits), or write it anew; a
    symlink's target is what gets replaced, the link stays."""
    target = path.resolve()
    temporary = _written(target, text)
    try:
        with contextlib.suppress(OSError):
            temporary.chmod(target.stat().st_mode & 0o7777)
        temporary.replace(target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise _cannot_write(path, exc) from None


def _written(path: Path, text: str) -> Path:
    folder = path.parent if str(path.parent) else Path()
    try:
        descriptor, name = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    temporary = Path(name)
    try:
        # newline="" writes the text's own line endings (a CRLF file stays CRLF)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException as exc:
        temporary.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _cannot_write(path, exc) from None
        raise
    return temporary


def _shown(path: Path) -> str:
    from toolsel.inputs import display_path

    return display_path(path)


def _cannot_write(path: Path, error: OSError) -> UsageError:
    from toolsel.inputs import os_reason

    return UsageError(f"{_shown(path)}: cannot write: {os_reason(error)}")
