"""Registry model and loading. `load_registry` is the entry point."""

from toolsel.registry.loader import expand_paths, load_registry, raise_for_fatal
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

__all__ = [
    "Category",
    "LoadProblem",
    "Location",
    "Permission",
    "Registry",
    "RegistryFile",
    "Tool",
    "ToolSource",
    "expand_paths",
    "load_registry",
    "raise_for_fatal",
]
