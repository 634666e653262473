"""Lint configuration: rule selection, severities, targets and thresholds, all validated."""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolsel.errors import ConfigError
from toolsel.lint.model import FailOn, Rule, Severity
from toolsel.suggest import did_you_mean

TARGETS = ("portable", "openai", "openai-strict", "anthropic", "anthropic-strict", "gemini", "mcp")
#: The model APIs each target sends tools to (`portable`: all of them; `mcp`: none).
TARGET_PROVIDERS = {
    "portable": ("openai", "anthropic", "gemini"),
    "openai": ("openai",),
    "openai-strict": ("openai",),
    "anthropic": ("anthropic",),
    "anthropic-strict": ("anthropic",),
    "gemini": ("gemini",),
    "mcp": (),
}

#: Thresholds under [tool.toolsel.lint.options], with their defaults.
DEFAULT_OPTIONS: dict[str, Any] = {
    "min-description-chars": 40,
    "min-sentences": 3,
    "max-description-chars": 1024,
    "max-params": 20,
    "max-depth": 5,
    "max-tools": 30,
    "max-registry-tokens": 20000,
    "overlap-threshold": 0.6,
    "namespace-threshold": 20,
    "example-ratio": 0.5,
    "allowed-categories": [],
    "openai-max-properties": 5000,
    "openai-max-depth": 10,
    "openai-max-chars": 120000,
    "openai-max-enum-values": 1000,
    "openai-max-tools": 128,
    "openai-soft-max-tools": 20,
    "gemini-max-tools": 512,
    "gemini-soft-max-tools": 20,
    "anthropic-max-strict-tools": 20,
    "anthropic-max-optional-params": 24,
    "anthropic-max-union-params": 16,
}

#: Options that are fractions (a cosine similarity, a share of a description): 0 to 1.
FRACTION_OPTIONS = frozenset({"overlap-threshold", "example-ratio"})

CONFIG_KEYS = (
    "select", "extend-select", "ignore", "per-file-ignores", "per-tool-ignores", "severity",
    "targets", "options", "fail-on",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class LintConfig:
    select: tuple[str, ...] = ()  # rule ids or prefixes; empty = every rule that is on by default
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: tool-name glob -> rule ids: turns rules off for matching tools, the security rules
    #: included (the registry cannot do that for itself; its owner's configuration can)
    per_tool_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)  # rule id -> error|warning|info|off
    targets: tuple[str, ...] = ("portable",)
    options: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    fail_on: FailOn = FailOn.ERROR
    source: str = "defaults"

    def option(self, name: str) -> Any:
        return self.options.get(name, DEFAULT_OPTIONS[name])

    @property
    def providers(self) -> frozenset[str]:
        """The model APIs the targets send tools to."""
        return frozenset(p for target in self.targets for p in TARGET_PROVIDERS[target])

    def applies(self, rule: Rule) -> bool:
        """A rule about some providers' documented limits runs only when one of them is
        targeted: `-t anthropic` does not check OpenAI's description length."""
        return not rule.providers or bool(self.providers.intersection(rule.providers))

    def is_enabled(self, rule: Rule) -> bool:
        override = self.severity.get(rule.id)
        if override == "off" or _matches(rule.id, self.ignore):
            return False
        if _matches(rule.id, self.extend_select) or override is not None:
            return True
        if self.select:
            # an explicit select turns on even off-by-default rules it names exactly
            return _matches(rule.id, self.select) and (
                rule.severity is not None or rule.id in self.select
            )
        return rule.severity is not None

    def severity_for(self, rule: Rule, reported: Severity | None) -> Severity:
        override = self.severity.get(rule.id)
        if override and override != "off":
            return Severity(override)
        return reported or rule.severity or Severity.WARNING

    def ignored_in_file(self, rule_id: str, file: str) -> bool:
        normalized = file.replace("\\", "/")
        return any(
            _matches(rule_id, ids)
            for pattern, ids in self.per_file_ignores.items()
            if fnmatch.fnmatch(normalized, pattern)
            or fnmatch.fnmatch(Path(normalized).name, pattern)
        )

    def ignored_for_tool(self, rule_id: str, tool: str | None) -> bool:
        return tool is not None and any(
            _matches(rule_id, ids)
            for pattern, ids in self.per_tool_ignores.items()
            if fnmatch.fnmatchcase(tool, pattern)
        )


def _matches(rule_id: str, selectors: tuple[str, ...]) -> bool:
    return any(rule_id.startswith(s) or s.upper() == "ALL" for s in selectors)


def build_config(
    table: dict[str, Any],
    rules: dict[str, Rule],
    *,
    source: str,
    cli: Mapping[str, Any] | None = None,
) -> LintConfig:
    """Validate a [tool.toolsel.lint] table, then apply command-line overrides on top."""
    merged = dict(table)
    for key, value in (cli or {}).items():
        if value not in (None, (), []):
            merged[key] = value
    for key in merged:
        if key not in CONFIG_KEYS:
            raise ConfigError(
                f"{source}: unknown lint setting {key!r}{did_you_mean(key, CONFIG_KEYS)}"
            )
    ids, extend, ignore = (
        _validated_ids(merged.get(key, []), rules, source, key)
        for key in ("select", "extend-select", "ignore")
    )
    per_file_ignores = _ignore_table(merged, "per-file-ignores", "glob", rules, source)
    per_tool_ignores = _ignore_table(merged, "per-tool-ignores", "tool-name glob", rules, source)
    return LintConfig(
        select=ids,
        extend_select=extend,
        ignore=ignore,
        per_file_ignores=per_file_ignores,
        per_tool_ignores=per_tool_ignores,
        severity=_severities(merged.get("severity", {}), rules, source),
        targets=_targets(merged.get("targets", ["portable"]), source),
        options=_options(merged.get("options", {}), source),
        fail_on=_fail_on(merged.get("fail-on", "error"), source),
        source=source,
    )


def _ignore_table(
    table: dict[str, Any], key: str, pattern: str, rules: dict[str, Rule], source: str
) -> dict[str, tuple[str, ...]]:
    """A `pattern = [rule ids]` table such as `per-file-ignores`, validated."""
    value = table.get(key, {})
    if not isinstance(value, dict):
        hint = 'e.g. per-tool-ignores = { "clear_prompt_sections" = ["TS602"] }'
        raise ConfigError(
            f"{source}: `{key}` must be a table of {pattern} = [rule ids]",
            hint=hint if key == "per-tool-ignores" else None,
        )
    return {
        str(glob): _validated_ids(ids, rules, source, f"{key}.{glob}")
        for glob, ids in value.items()
    }


def _validated_ids(value: Any, rules: dict[str, Rule], source: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: `{where}` must be a list of rule ids or prefixes")
    for selector in value:
        if selector.upper() != "ALL" and not any(rule_id.startswith(selector) for rule_id in rules):
            raise ConfigError(
                f"{source}: `{where}` names unknown rule {selector!r}{did_you_mean(selector, rules)}",
                hint="`toolsel lint --list-rules` lists them",
            )
    return tuple(value)


def _severities(value: Any, rules: dict[str, Rule], source: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigError(
            f'{source}: `severity` must be a table of RULE = "error|warning|info|off"'
        )
    levels = ("error", "warning", "info", "off")
    for rule_id, level in value.items():
        if rule_id not in rules:
            raise ConfigError(
                f"{source}: severity for unknown rule {rule_id!r}{did_you_mean(rule_id, rules)}"
            )
        if level not in levels:
            raise ConfigError(
                f"{source}: severity of {rule_id} must be one of {', '.join(levels)}, got {level!r}"
            )
    return dict(value)


def _targets(value: Any, source: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f'{source}: `targets` must be a list such as ["portable", "openai"]')
    for target in value:
        if target not in TARGETS:
            raise ConfigError(
                f"{source}: unknown target {target!r}{did_you_mean(str(target), TARGETS)}",
                hint=f"targets are {', '.join(TARGETS)}",
            )
    return tuple(value) or ("portable",)


def _options(value: Any, source: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: `options` must be a table")
    options = dict(DEFAULT_OPTIONS)
    for key, setting in value.items():
        name = key.replace("_", "-")
        if name not in DEFAULT_OPTIONS:
            raise ConfigError(
                f"{source}: unknown lint option {key!r}{did_you_mean(name, DEFAULT_OPTIONS)}"
            )
        default = DEFAULT_OPTIONS[name]
        expected = list if isinstance(default, list) else (int, float)  # every default is one
        if not isinstance(setting, expected) or isinstance(setting, bool):
            raise ConfigError(f"{source}: option {key!r} must be like {default!r}, got {setting!r}")
        if isinstance(setting, list) and not all(isinstance(item, str) for item in setting):
            bad = next(item for item in setting if not isinstance(item, str))
            raise ConfigError(
                f"{source}: option {key!r} must be a list of strings, got {bad!r} in it",
                hint=f'e.g. {key} = ["files", "web"]',
            )
        if isinstance(setting, (int, float)):
            _check_number(name, setting, f"{source}: option {key!r}")
        options[name] = setting
    return options


def _check_number(name: str, value: float, what: str) -> None:
    """Every numeric option is a count, a limit or a fraction. NaN and infinity are
    refused: NaN compares false with everything, so either would turn its check off
    without a word (a rule's severity or `ignore` does that openly)."""
    if name in FRACTION_OPTIONS:
        if not 0 <= value <= 1:  # false for NaN
            raise ConfigError(f"{what} must be a number from 0 to 1, got {value!r}")
    elif not 0 <= value < math.inf:
        raise ConfigError(
            f"{what} must be a finite number >= 0, got {value!r}",
            hint="to turn its check off, set the rule's severity to off or ignore it",
        )


def _fail_on(value: Any, source: str) -> FailOn:
    try:
        return FailOn(value)
    except ValueError:
        raise ConfigError(
            f"{source}: `fail-on` must be one of {', '.join(f.value for f in FailOn)}, got {value!r}"
        ) from None
