"""Permission levels (kept apart from the model: the CLI builds its options from this)."""

from __future__ import annotations

from enum import StrEnum


class Permission(StrEnum):
    READ = "read"
    WRITE = "write"
    ADMIN = "admin"
    DANGEROUS = "dangerous"

    @property
    def level(self) -> int:
        return _PERMISSION_ORDER.index(self)

    def allows(self, other: Permission) -> bool:
        """True when a caller cleared for `self` may use a tool that needs `other`."""
        return other.level <= self.level


_PERMISSION_ORDER = [Permission.READ, Permission.WRITE, Permission.ADMIN, Permission.DANGEROUS]
