"""Check each replayed call against a registry: does the transcript break its rules?

Per call: an unknown tool (did you mean?), a deprecated tool (use X instead), a permission
above `--permission`, `requires` not satisfied (each required tool must have succeeded
earlier in the same transcript), a conflicting tool already used, and input that is not
valid against the tool's `parameters` (naming the failing path; checked safely, see
`toolsel.validate`: a schema that refers outside itself, is too deep, or too costly to
validate, is reported, and so is an input whose check runs over its budget or deadline).
"""

from __future__ import annotations

from typing import Any

from toolsel.registry.model import Permission, Registry
from toolsel.replay.events import Call, Result
from toolsel.replay.matcher import OpenCall
from toolsel.replay.report import Violation
from toolsel.suggest import did_you_mean
from toolsel.validate import InputValidator


class RegistryChecker:
    """One per transcript (a matcher listener): remembers which tools ran, and which
    succeeded, in this session, and collects the violations."""

    def __init__(self, registry: Registry, permission: Permission | None = None) -> None:
        self.registry = registry
        self.permission = permission
        self.called: set[str] = set()
        self.succeeded: set[str] = set()
        self.violations: list[Violation] = []
        self._validators: dict[str, InputValidator] = {}
        self._suggestions: dict[str, str] = {}  # unknown tool -> " (did you mean ...)"

    # -- the matcher's listener protocol ----------------------------------------------
    def started(self, opened: OpenCall, line: int) -> None:
        self.violations.extend(self.check(opened.call, line))

    def enriched(self, opened: OpenCall, line: int) -> None:
        pass  # the call was checked when it started

    def paired(self, opened: OpenCall, result: Result, line: int) -> None:
        if not result.is_error:
            self.succeeded.add(opened.call.tool)

    # -- the checks ---------------------------------------------------------------------
    def check(self, call: Call, line: int, *, deadline: float | None = None) -> list[Violation]:
        """The call's violations; `deadline` (time.monotonic()) bounds its input's check."""
        found: list[Violation] = []

        def violation(rule: str, message: str) -> None:
            found.append(Violation(call.id, call.tool, rule, message, line))

        tool = self.registry.get(call.tool)
        if tool is None:
            suggestion = self._suggestions.get(call.tool)
            if suggestion is None:
                suggestion = self._suggestions[call.tool] = did_you_mean(
                    call.tool, self.registry.names
                )
            violation("unknown-tool", f"{call.tool!r} is not in the registry{suggestion}")
            self.called.add(call.tool)
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
            other
            for other in self.called
            if (o := self.registry.get(other)) is not None and call.tool in o.conflicts
        )
        for other in dict.fromkeys(conflicts):
            violation(
                "conflict",
                f"{call.tool!r} conflicts with {other!r}, already used in this transcript",
            )
        unreadable = call.arguments_problem()
        if unreadable is not None:
            violation("invalid-input", f"the call's arguments are {unreadable}; not checked")
        else:
            validator = self._validator(tool.name, tool.parameters)
            problem = validator.check(call.arguments, deadline=deadline)
            if problem is not None:
                violation(problem.rule, problem.message)
        self.called.add(call.tool)
        return found

    def _validator(self, name: str, schema: dict[str, Any]) -> InputValidator:
        validator = self._validators.get(name)
        if validator is None:
            validator = self._validators[name] = InputValidator(schema)
        return validator
