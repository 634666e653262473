"""The registry: the frozen model, parsed with positions from files in any tool-list shape
toolsel reads; `load_registry` is the entry point. Attributes are imported lazily, so
importing the model (e.g. `Permission`) stays cheap."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolsel.registry.loader import load_registry, raise_for_fatal
    from toolsel.registry.model import (
        Category,
        LoadProblem,
        Location,
        Permission,
        Registry,
        RegistryFile,
        Tool,
        ToolSource,
    )
    from toolsel.registry.paths import expand_files

__all__ = [
    "Category", "LoadProblem", "Location", "Permission", "Registry", "RegistryFile", "Tool",
    "ToolSource", "expand_files", "load_registry", "raise_for_fatal",
]  # fmt: skip

#: The module of each name not in `model`.
_HOMES = {"load_registry": "loader", "raise_for_fatal": "loader", "expand_files": "paths"}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'toolsel.registry' has no attribute {name!r}")
    return getattr(importlib.import_module(f"toolsel.registry.{_HOMES.get(name, 'model')}"), name)
