"""Check each replayed call against a registry: does the transcript break its rules?

Per call: an unknown tool (did you mean?), a deprecated tool (use X instead), a permission
above `--permission`, `requires` not satisfied (each required tool must have succeeded
earlier in the same transcript), a conflicting tool already used, and input that is not
valid against the tool's `parameters` (naming the failing path; checked safely, see
`toolsel.validate`: a schema that refers outside itself, is too deep, or too costly to
validate, is reported, and so is an input whose check runs over its budget or deadline).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolsel.registry.model import Permission, Registry
from toolsel.replay.events import Call, Result
from toolsel.replay.matcher import OpenCall
from toolsel.replay.report import Violation
from toolsel.suggest import did_you_mean
from toolsel.validate import InputValidator


class RegistryChecker:
    """One per transcript (a matcher listener): remembers which tools ran, and which
    succeeded, in this session, and collects the violations.

    A call's name, permission, `requires` and conflicts are checked when it starts; its
    input when the call is complete (answered, or still open when the transcript ends,
    `finish`), because a streaming agent may send the input in a later line (an enriched
    call)."""

    def __init__(
        self,
        registry: Registry,
        permission: Permission | None = None,
        *,
        validators: dict[str, InputValidator] | None = None,
        allow_unknown: tuple[str, ...] = (),
        transcript_format: Callable[[], str | None] | None = None,
        close_names: dict[str, str] | None = None,
    ) -> None:
        """`validators` (tool name -> validator) may be shared by checkers of one registry:
        building one checks the schema, and each check keeps its own budget; so may
        `close_names` (unknown tool -> its "did you mean", worked out once a run).
        `allow_unknown`: globs of tools the registry need not declare (built-ins, another
        team's servers). `transcript_format` says which client wrote the transcript, so an
        unknown built-in names its catalog."""
        self.registry = registry
        self.allow_unknown = allow_unknown
        self.transcript_format = transcript_format
        self.permission = permission
        self.called: set[str] = set()
        self.succeeded: set[str] = set()
        self.violations: list[Violation] = []
        self._validators = validators if validators is not None else {}
        self._suggestions: dict[str, str] = {}  # unknown tool -> its hint, in this transcript
        self._close = close_names if close_names is not None else {}
        self._input_pending: dict[str, tuple[OpenCall, int]] = {}  # call id -> (call, line)

    # -- the matcher's listener protocol ----------------------------------------------
    def started(self, opened: OpenCall, line: int) -> None:
        self.violations.extend(self.check_call(opened.call, line))
        if self.registry.resolve(opened.call.tool) is not None:
            self._input_pending[opened.call.id] = (opened, line)

    def enriched(self, opened: OpenCall, line: int) -> None:
        pass  # the input is checked once the call is complete

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        pending = self._input_pending.pop(opened.call.id, None)
        if pending is not None:
            self.violations.extend(self.check_input(opened.call, pending[1]))
        if not result.is_error:
            self.succeeded.add(self._canonical(opened.call.tool))

    def finish(self) -> tuple[Violation, ...]:
        """Check the input of the calls still open, and return every violation by line."""
        for opened, line in self._input_pending.values():
            self.violations.extend(self.check_input(opened.call, line))
        self._input_pending.clear()
        self.violations.sort(key=lambda v: v.line)
        return tuple(self.violations)

    # -- the checks ---------------------------------------------------------------------
    def check(self, call: Call, line: int, *, deadline: float | None = None) -> list[Violation]:
        """Every check of a complete call, at once (`/v1/validate`); `deadline`
        (`time.monotonic()`) bounds its input's check."""
        found = self.check_call(call, line)
        if self.registry.resolve(call.tool) is not None:
            found.extend(self.check_input(call, line, deadline=deadline))
        return found

    def check_call(self, call: Call, line: int) -> list[Violation]:
        """What a call's start tells: unknown, deprecated, permission, requires, conflicts."""
        found: list[Violation] = []

        def violation(rule: str, message: str) -> None:
            found.append(Violation(call.id, call.tool, rule, message, line))

        tool = self.registry.resolve(call.tool)
        if tool is None:
            self.called.add(call.tool)
            if self.allow_unknown and _allowed(call.tool, self.allow_unknown):
                return found
            suggestion = self._suggestions.get(call.tool)
            if suggestion is None:
                suggestion = self._suggestions[call.tool] = self._unknown_hint(call.tool)
            violation("unknown-tool", f"{call.tool!r} is not in the registry{suggestion}")
            return found
        if tool.deprecated:
            replacement = f"; use {tool.deprecated_by!r} instead" if tool.deprecated_by else ""
            violation("deprecated", f"{call.tool!r} is deprecated{replacement}")
        if self.permission is not None and not self.permission.allows(tool.permission):
            violation(
                "permission",
                f"{call.tool!r} needs permission {tool.permission}, above {self.permission}",
            )
        missing = [r for r in tool.requires if r not in self.succeeded]
        if missing:
            violation(
                "requires", f"{call.tool!r} requires {', '.join(missing)} to have succeeded first"
            )
        conflicts = sorted(set(tool.conflicts) & self.called) + sorted(
            self.registry.conflicted_by(tool.name) & self.called
        )
        for other in dict.fromkeys(conflicts):
            violation(
                "conflict",
                f"{call.tool!r} conflicts with {other!r}, already used in this transcript",
            )
        self.called.add(tool.name)  # an alias's call is its tool's
        return found

    def _canonical(self, name: str) -> str:
        tool = self.registry.resolve(name)
        return tool.name if tool is not None else name

    def _unknown_hint(self, name: str) -> str:
        """Did you mean a registry tool; else, for a client's built-in, its catalog."""
        close = self._close.get(name)
        if close is None:
            close = self._close[name] = did_you_mean(name, self.registry.names)
        if close:
            return close
        from toolsel.catalogs import builtin_of, client_name

        found = builtin_of(name, self.transcript_format() if self.transcript_format else None)
        if found is None:
            return ""
        return (
            f"; it is a {client_name(found)} built-in: add -r builtin:{found}, "
            f"or --allow-unknown {name!r}"
        )

    def check_input(
        self, call: Call, line: int, *, deadline: float | None = None
    ) -> list[Violation]:
        """The call's input against its tool's `parameters` (a known tool's), within
        `deadline`, or the current work's (`toolsel.deadline`, set by `serve`)."""
        tool = self.registry.resolve(call.tool)
        if tool is None or call.freeform:
            return []  # a freeform input follows the tool's grammar, which no schema states
        unreadable = call.arguments_problem()
        if unreadable is not None:
            reason = f"the call's arguments are {unreadable}; not checked"
            return [Violation(call.id, call.tool, "invalid-input", reason, line)]
        if deadline is None:
            from toolsel.deadline import current

            deadline = current()
        problem = self._validator(tool.name, tool.parameters).check(
            call.arguments, deadline=deadline
        )
        if problem is None:
            return []
        return [Violation(call.id, call.tool, problem.rule, problem.message, line)]

    def _validator(self, name: str, schema: dict[str, Any]) -> InputValidator:
        validator = self._validators.get(name)
        if validator is None:
            validator = self._validators[name] = InputValidator(schema)
        return validator


def _allowed(name: str, patterns: tuple[str, ...]) -> bool:
    from fnmatch import fnmatchcase

    return any(fnmatchcase(name, pattern) for pattern in patterns)
