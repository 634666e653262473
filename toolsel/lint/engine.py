"""Run the enabled rules over a registry and turn their hits into located findings."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolsel.errors import ToolselError, UsageError
from toolsel.lint import all_rules
from toolsel.lint.config import LintConfig
from toolsel.lint.context import BACKGROUND_RESOURCES, LintContext
from toolsel.lint.model import Finding, Hit, LintResult, Rule, fingerprint
from toolsel.lint.suppress import Suppressions
from toolsel.lint.worker import SimilarityWorker
from toolsel.registry.model import Registry
from toolsel.sources import registry_files

if TYPE_CHECKING:
    from toolsel.misroute_evidence import MisrouteEvidence

#: Registries at least this large (about 1,000 tools) get a worker before parsing.
EARLY_WORKER_BYTES = 1_000_000


def lint_registry(
    registry: Registry,
    config: LintConfig | None = None,
    *,
    worker: SimilarityWorker | None = None,
    use_cache: bool = True,
    evidence: tuple[MisrouteEvidence, ...] = (),
) -> LintResult:
    """Every finding in `registry` under `config`, sorted by file, line, column and rule.

    `worker`, a process started early by `toolsel.lint.worker.start_worker`, computes the
    shared resources rules declare they use. `use_cache=False` neither reads nor writes
    cached resources.
    """
    config = config or LintConfig()
    context = LintContext(registry, config, use_cache=use_cache, evidence=evidence)
    active = [
        rule
        for rule in all_rules().values()
        if config.is_enabled(rule)
        and config.applies(rule)
        and (rule.profile is None or context.profile_active(rule.profile))
    ]
    context.suppressions = {
        f.path: Suppressions.from_comments(f.comments, f.source) for f in registry.files
    }
    context.prefetch({name for rule in active for name in rule.uses}, worker)
    try:
        # rules that use background resources go last, so the other rules overlap them
        ordered = sorted((r for r in active if not r.after), key=lambda r: bool(r.uses))
        findings = [
            f
            for rule in ordered
            for f in _findings(context, rule)
            if not _silenced(context, rule, f)
        ]
        # rules about the suppressions themselves: configuration can turn them off, a
        # comment cannot
        findings += [
            f
            for rule in active
            if rule.after
            for f in _findings(context, rule)
            if not context.config.ignored_in_file(f.rule, f.file)
        ]
    finally:
        context.close()
    order = {f.path: index for index, f in enumerate(registry.files)}
    findings.sort(
        key=lambda f: (order.get(f.file, len(order)), f.file, f.line, f.column, f.rule, f.message)
    )
    return LintResult(
        tuple(findings), tuple(f.path for f in registry.files), tuple(active), config.fail_on
    )


def _findings(context: LintContext, rule: Rule) -> Iterator[Finding]:
    """The rule's hits, located: its check's, or the loader's problems of its kind."""
    if rule.problem is not None:
        hits: Iterable[Hit] = (
            Hit(p.message, p.file, p.pointer, p.tool, line=p.line, column=p.column)
            for p in context.registry.problems
            if p.kind is rule.problem
        )
    else:
        assert rule.check is not None
        hits = rule.check(context)
    for hit in hits:
        yield _locate(context.registry, rule, hit, context.config)


def _silenced(context: LintContext, rule: Rule, finding: Finding) -> bool:
    """Ignored for this file or tool by configuration, by the tool's `x-toolsel-ignore`, or
    by a suppression comment (which is then marked used). A config-only rule (the security
    family) answers to configuration alone: a registry cannot silence what flags it."""
    if context.config.ignored_in_file(finding.rule, finding.file):
        return True
    if context.config.ignored_for_tool(finding.rule, finding.tool):
        return True
    if rule.config_only:
        return False
    if finding.rule in context.tool_ignores.get((finding.file, finding.tool), ()):
        return True
    file_suppressions = context.suppressions.get(finding.file)
    return file_suppressions is not None and file_suppressions.suppresses(
        finding.rule, finding.line, finding.pointer
    )


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


def lint_paths(
    paths: Sequence[str | Path] | None,
    *,
    config_file: str | None = None,
    overrides: Mapping[str, object] | None = None,
    use_cache: bool = True,
    misroutes: Sequence[Path] = (),
) -> LintResult:
    """Load the registry at `paths` (or the default one) leniently and lint it, with the
    misroutes of the `stats --misroutes -f json` files `misroutes` as evidence (TS708)."""
    from toolsel.lint.config import build_config
    from toolsel.misroute_evidence import read_misroutes
    from toolsel.registry import load_registry
    from toolsel.sources.project import find_config

    project = find_config(explicit=Path(config_file) if config_file else None)
    source = str(project.path) if project.path else "command line"
    rules = all_rules()
    config = build_config(project.lint, rules, source=source, cli=overrides)
    if not paths:  # lint checks the user's files: never the bundled example
        from toolsel.sources import NO_REGISTRY, project_registry_paths

        paths = project_registry_paths()
        if paths is None:
            raise UsageError(
                NO_REGISTRY,
                hint="e.g. toolsel lint registries/; `toolsel init` writes a starter registry",
            )
    targets = registry_files(paths)
    evidence = tuple(read_misroutes(path) for path in misroutes)
    worker = None
    uses_worker = any(
        config.is_enabled(rule) and set(rule.uses) & BACKGROUND_RESOURCES for rule in rules.values()
    )
    if uses_worker and _total_bytes(targets) >= EARLY_WORKER_BYTES:
        from toolsel.lint.worker import start_worker

        worker = start_worker()  # imports scikit-learn while the main process parses
    try:
        registry = load_registry(targets, use_cache=use_cache, strict=False)
        return lint_registry(
            registry, config, worker=worker, use_cache=use_cache, evidence=evidence
        )
    finally:
        if worker is not None:
            worker.close()


def _total_bytes(paths: Iterable[str | Path]) -> int:
    """The bytes the load will parse: a file over the size limit is refused unread, so it
    does not count (nor start a worker for a registry that will not load)."""
    from toolsel.registry.paths import max_file_bytes

    limit = max_file_bytes()
    try:
        return sum(size for p in paths if (size := Path(p).stat().st_size) <= limit)
    except (OSError, ToolselError):
        return 0  # the real load reports the problem
