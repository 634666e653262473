"""Run the enabled rules over a registry and turn their hits into located findings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from toolsel.errors import ToolselError
from toolsel.lint import all_rules
from toolsel.lint.config import LintConfig
from toolsel.lint.context import LintContext
from toolsel.lint.model import Finding, Hit, LintResult, Rule, Severity, fingerprint
from toolsel.lint.suppress import Suppressions
from toolsel.lint.worker import SimilarityWorker
from toolsel.registry.model import Registry
from toolsel.registry.paths import registry_files

SUPPRESSION_RULES = ("TS901", "TS902")
#: Registries at least this large (about 1,000 tools) get a worker before parsing.
EARLY_WORKER_BYTES = 1_000_000
BACKGROUND_RULES = frozenset({"TS209"})


def lint_registry(
    registry: Registry,
    config: LintConfig | None = None,
    *,
    worker: SimilarityWorker | None = None,
    use_cache: bool = True,
) -> LintResult:
    """Every finding in `registry` under `config`, sorted by file, line, column and rule.

    `worker`, a process started early by `toolsel.lint.worker.start_worker`, takes TS209.
    `use_cache=False` neither reads nor writes cached TS209 results.
    """
    config = config or LintConfig()
    rules = all_rules()
    context = LintContext(registry, config, use_cache=use_cache)
    active = [
        rule
        for rule in rules.values()
        if config.is_enabled(rule)
        and (rule.profile is None or context.profile_active(rule.profile))
    ]
    suppressions = {f.path: Suppressions.from_file(f.path, f.source) for f in registry.files}
    tool_ignores = _tool_ignores(registry)
    context.start_background_work({rule.id for rule in active}, worker)
    try:
        findings = _run_rules(active, context, config, suppressions, tool_ignores)
    finally:
        context.close()
    findings.extend(_suppression_findings(suppressions, rules, active, config))
    order = {f.path: index for index, f in enumerate(registry.files)}
    findings.sort(
        key=lambda f: (order.get(f.file, len(order)), f.file, f.line, f.column, f.rule, f.message)
    )
    return LintResult(
        tuple(findings), tuple(f.path for f in registry.files), tuple(active), config.fail_on
    )


def _run_rules(
    active: list[Rule],
    context: LintContext,
    config: LintConfig,
    suppressions: dict[str, Suppressions],
    tool_ignores: dict[tuple[str, str | None], tuple[str, ...]],
) -> list[Finding]:
    findings: list[Finding] = []
    # rules whose work may run in the background go last, so the other rules overlap it
    for rule in sorted(active, key=lambda r: r.id in BACKGROUND_RULES):
        if rule.id in SUPPRESSION_RULES:
            continue
        for hit in rule.check(context):
            finding = _locate(context.registry, rule, hit, config)
            if config.ignored_in_file(rule.id, finding.file):
                continue
            if rule.id in tool_ignores.get((finding.file, finding.tool), ()):
                continue
            file_suppressions = suppressions.get(finding.file)
            if file_suppressions and file_suppressions.suppresses(
                rule.id, finding.line, finding.pointer
            ):
                continue
            findings.append(finding)
    return findings


def _locate(registry: Registry, rule: Rule, hit: Hit, config: LintConfig) -> Finding:
    if hit.line is not None and hit.column is not None:
        line, column = hit.line, hit.column
    else:
        location = registry.locate(hit.file, hit.pointer, key=hit.key)
        line, column = location.line, location.column
    return Finding(
        rule=rule.id,
        severity=config.severity_for(rule, hit.severity),
        message=hit.message,
        file=hit.file,
        line=line,
        column=column,
        tool=hit.tool,
        pointer=hit.pointer,
        fingerprint=fingerprint(rule.id, hit.file, hit.tool, hit.pointer),
    )


def _tool_ignores(registry: Registry) -> dict[tuple[str, str | None], tuple[str, ...]]:
    ignores: dict[tuple[str, str | None], tuple[str, ...]] = {}
    for tool in registry.tools:
        ids = tool.raw.get("x-toolsel-ignore")
        if isinstance(ids, list):
            ignores[(tool.source.file, tool.name)] = tuple(str(i) for i in ids)
    return ignores


def _suppression_findings(
    suppressions: dict[str, Suppressions],
    rules: dict[str, Rule],
    active: Iterable[Rule],
    config: LintConfig,
) -> list[Finding]:
    enabled = {rule.id: rule for rule in active}
    found: list[Finding] = []
    for file, file_suppressions in suppressions.items():
        for directive in file_suppressions.directives:
            pointer = f"#L{directive.line}"
            unknown = [i for i in directive.ids if i not in rules]
            if "TS902" in enabled and unknown:
                rule = enabled["TS902"]
                message = f"suppression names unknown rule {', '.join(unknown)}"
                found.append(
                    _directive_finding(
                        rule, config, message, file, directive.line, directive.column, pointer
                    )
                )
            if (
                "TS901" in enabled
                and directive.kind != "enable"
                and not directive.used
                and not unknown
            ):
                rule = enabled["TS901"]
                message = f"`toolsel: {directive.kind}` suppressed nothing; remove it"
                found.append(
                    _directive_finding(
                        rule, config, message, file, directive.line, directive.column, pointer
                    )
                )
    return found


def _directive_finding(
    rule: Rule, config: LintConfig, message: str, file: str, line: int, column: int, pointer: str
) -> Finding:
    severity = (
        config.severity_for(rule, None)
        if rule.severity or rule.id in config.severity
        else Severity.WARNING
    )
    return Finding(
        rule.id,
        severity,
        message,
        file,
        line,
        column,
        None,
        pointer,
        fingerprint(rule.id, file, None, pointer + message),
    )


def lint_paths(
    paths: list[str] | None,
    *,
    config_file: str | None = None,
    overrides: Mapping[str, object] | None = None,
    use_cache: bool = True,
) -> LintResult:
    """Load the registry at `paths` (or the default one) leniently and lint it."""
    from toolsel.config import find_config
    from toolsel.lint.config import build_config
    from toolsel.registry import load_registry

    project = find_config(explicit=Path(config_file) if config_file else None)
    source = str(project.path) if project.path else "command line"
    rules = all_rules()
    config = build_config(project.lint, rules, source=source, cli=overrides)
    targets = registry_files(paths or None)
    worker = None
    if config.is_enabled(rules["TS209"]) and _total_bytes(targets) >= EARLY_WORKER_BYTES:
        from toolsel.lint.worker import start_worker

        worker = start_worker()  # imports scikit-learn while the main process parses
    try:
        registry = load_registry(targets, use_cache=use_cache, strict=False)
        return lint_registry(registry, config, worker=worker, use_cache=use_cache)
    finally:
        if worker is not None:
            worker.close()


def _total_bytes(paths: Iterable[str | Path]) -> int:
    try:
        return sum(Path(p).stat().st_size for p in paths)
    except (OSError, ToolselError):
        return 0  # the real load reports the problem
