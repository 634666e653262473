"""Expected failures and the exit codes they map to. The CLI edge is the only catcher."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # lint findings at or above --fail-on, failing tests, replay findings
    USAGE = 2  # bad arguments, bad configuration, unreadable input


class ToolselError(Exception):
    """A failure the user can fix. `str()` is the one-line message shown on stderr."""

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message)

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class UsageError(ToolselError):
    """Options that contradict each other or name things that do not exist."""


class ConfigError(ToolselError):
    """A pyproject.toml / toolsel.toml that toolsel cannot use."""


class RegistryError(ToolselError):
    """A registry that cannot be loaded: missing path, unparsable file, invalid tool.
    `problem` is the loader's problem (a `LoadProblem`) when one caused it."""

    def __init__(self, message: str, *, hint: str | None = None, problem: object = None) -> None:
        super().__init__(message, hint=hint)
        self.problem = problem


class PostError(ToolselError):
    """Events that a server refused, or that could not be sent (`replay --post`)."""
