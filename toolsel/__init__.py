"""toolsel: inspect, lint and test LLM tool registries.

The library API is imported lazily so `import toolsel` stays cheap:

    >>> import toolsel
    >>> registry = toolsel.load_registry(["registries/"])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Registry", "Tool", "__version__", "lint_registry", "load_registry"]

if TYPE_CHECKING:
    from toolsel.lint.engine import lint_registry
    from toolsel.registry import Registry, Tool
    from toolsel.sources import load_registry

_LAZY = {
    "load_registry": "toolsel.sources",
    "Registry": "toolsel.registry",
    "Tool": "toolsel.registry",
    "lint_registry": "toolsel.lint.engine",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'toolsel' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module_name), name)
