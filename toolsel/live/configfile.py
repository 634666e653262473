"""Reading a client config file's data: JSON with the comments and trailing commas VS Code and
Gemini CLI allow, TOML or YAML, by its suffix; every failure a `RegistryError` saying why."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from toolsel.errors import RegistryError

#: A client config is small; a bigger file is refused before it is read.
MAX_CONFIG_BYTES = 8 * 1024 * 1024


def read_config(path: Path) -> Any:
    """A client config's data: JSON (comments and trailing commas allowed, as VS Code and
    Gemini CLI allow them), TOML or YAML, by its suffix; `RegistryError` saying why not."""
    from toolsel.inputs import InputProblem, read_bounded

    try:
        data = read_bounded(path, MAX_CONFIG_BYTES)
    except InputProblem as problem:
        raise RegistryError(f"{path}: cannot read this client config: {problem}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise RegistryError(
            f"{path}: not UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start}); "
            "a client config is JSON, TOML or YAML text"
        ) from None
    suffix = path.suffix.lower()
    if suffix == ".toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise RegistryError(f"{path}: invalid TOML: {error}") from None
    if suffix in {".yaml", ".yml"}:
        return _read_yaml(path, text)
    return _read_json(path, text)


def _read_json(path: Path, text: str) -> Any:
    from toolsel.jsonsyntax import json_syntax_error

    stripped = _strip_jsonc(text)
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        syntax = json_syntax_error(stripped)
        assert syntax is not None
        raise RegistryError(f"{path}:{syntax.line}:{syntax.column}: {syntax.message}") from None
    except RecursionError:
        raise RegistryError(f"{path}: nested too deeply to read as a client config") from None


def _read_yaml(path: Path, text: str) -> Any:
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)  # a safe loader
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        raise RegistryError(f"{path}{where}: invalid YAML: {error.problem}") from None
    except (yaml.YAMLError, RecursionError) as error:
        raise RegistryError(f"{path}: cannot read this client config as YAML: {error}") from None


def _strip_jsonc(text: str) -> str:
    """VS Code's and Gemini CLI's files allow // and /* */ comments and trailing commas."""
    if "//" not in text and "/*" not in text and _TRAILING_COMMA.search(text) is None:
        return text
    stripped = _STRING_OR_COMMENT.sub(lambda m: m[0] if m[0][0] == '"' else "", text)
    return _STRING_OR_TRAILING_COMMA.sub(_without_comma, stripped)


#: A JSON string (to the end of the text when it is never closed), or a comment.
_STRING_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\])*(?:"|\\?\Z)|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)
#: A comma before a closing brace or bracket, across any whitespace (line breaks too).
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
#: The same, or a JSON string, matched whole so that a comma inside one is kept.
_STRING_OR_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"|,(\s*[}\]])')


def _without_comma(match: re.Match[str]) -> str:
    return match.group(0) if match.group(1) is None else match.group(1)
