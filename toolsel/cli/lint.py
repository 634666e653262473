"""`toolsel lint [PATH...]`: check registry files."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import (
    NamespaceOption,
    NoCacheOption,
    ReportFileOption,
    check_output,
    handle_errors,
    output,
    split_values,
)
from toolsel.errors import ExitCode, UsageError
from toolsel.render.formats import LintFormat

if TYPE_CHECKING:
    from typing import IO

    from toolsel.lint.fix import FixPlan
    from toolsel.lint.model import LintResult, Rule, Severity
    from toolsel.registry.paths import FileList


PathsArgument = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Registry files or directories (SERVER=PATH names an MCP server's file). "
        "Default: the project's registry."
    ),
]
RegistryPathsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--registry",
        "-r",
        metavar="PATH",
        help="Also lint this registry (repeatable), as `rank -r` takes it.",
    ),
]
OutputFormatOption = Annotated[
    LintFormat,
    typer.Option(
        "--format", "-f", help="Output format; auto = github under GitHub Actions, else human."
    ),
]
FailOnOption = Annotated[
    str | None,
    typer.Option(
        "--fail-on",
        metavar="SEVERITY",
        # the value is None here, so that the configuration's fail-on applies; error if unset
        help="Lowest severity that fails: error, warning, info, never.  [default: error]",
    ),
]
StrictOption = Annotated[
    bool, typer.Option("--strict", help="Fail on warnings too (same as --fail-on warning).")
]
ExitZeroOption = Annotated[
    bool, typer.Option("--exit-zero", help="Always exit 0 unless toolsel itself fails.")
]
SelectOption = Annotated[
    list[str] | None,
    typer.Option("--select", help="Only these rule ids or prefixes (repeatable, comma-separated)."),
]
ExtendSelectOption = Annotated[
    list[str] | None,
    typer.Option("--extend-select", help="Add rules, including off-by-default ones."),
]
IgnoreOption = Annotated[
    list[str] | None, typer.Option("--ignore", help="Skip these rule ids or prefixes.")
]
TargetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--target",
        "-t",
        help="Provider profile: portable, openai, openai-strict, anthropic, anthropic-strict, gemini, mcp.",
    ),
]
ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="Use this toolsel.toml or pyproject.toml.")
]
QuietOption = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="Hide info findings (same as --min-severity warning)."),
]
MinSeverityOption = Annotated[
    str | None,
    typer.Option(
        "--min-severity",
        metavar="SEVERITY",
        help="Report only findings of this severity or above, in every format: info, warning, "
        "error. Default: info, which the human format folds into one line per rule (give "
        "info to list each); warning for --format github (info would be an annotation).",
    ),
]
FixOption = Annotated[
    bool,
    typer.Option(
        "--fix",
        help="Make the fixes that are certain (TS401, TS402 for nullable properties, TS422's "
        "additionalProperties) in place, show the diff, then report what remains.",
    ),
]
DiffOption = Annotated[
    bool,
    typer.Option(
        "--diff",
        help="Show the diff --fix would make and write nothing; exit 1 if there is one.",
    ),
]
StatisticsOption = Annotated[
    bool,
    typer.Option(
        "--statistics",
        help="Count findings per rule instead of listing them (human and json formats).",
    ),
]
MisroutesOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--misroutes",
        help="`toolsel stats --misroutes -f json` output: TS708 reports each failed tool "
        "whose description rank does not separate from the tool that then worked. Repeatable.",
    ),
]
ListRulesOption = Annotated[bool, typer.Option("--list-rules", help="List every rule and exit.")]
ExplainOption = Annotated[
    str | None, typer.Option("--explain", help="Explain one rule, e.g. TS504, and exit.")
]


@handle_errors
def lint(
    paths: PathsArgument = None,
    registry: RegistryPathsOption = None,
    namespace: NamespaceOption = False,
    output_format: OutputFormatOption = LintFormat.HUMAN,
    output_file: ReportFileOption = None,
    fail_on: FailOnOption = None,
    strict: StrictOption = False,
    exit_zero: ExitZeroOption = False,
    select: SelectOption = None,
    extend_select: ExtendSelectOption = None,
    ignore: IgnoreOption = None,
    target: TargetOption = None,
    config: ConfigOption = None,
    quiet: QuietOption = False,
    min_severity: MinSeverityOption = None,
    fix: FixOption = False,
    diff: DiffOption = False,
    statistics: StatisticsOption = False,
    misroutes: MisroutesOption = None,
    list_rules: ListRulesOption = False,
    explain: ExplainOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Check registry files for problems that break providers or confuse agents."""
    from toolsel.lint.engine import lint_paths

    if list_rules or explain is not None:
        _show_rules(explain, list_rules=list_rules)
        return
    targets, files, inputs = _lint_inputs(paths, registry, config, namespace=namespace)
    inputs += misroutes or []
    check_output(output_file, inputs)
    chosen = output_format.resolve()
    _check_modes(chosen, fix=fix, diff=diff, statistics=statistics)
    overrides = _overrides("warning" if strict else fail_on, select=select,
                           extend_select=extend_select, ignore=ignore, targets=target)  # fmt: skip
    run = partial(
        lint_paths,
        targets,
        config_file=str(config) if config else None,
        overrides=overrides,
        use_cache=not no_cache,
        misroutes=misroutes or (),
    )
    result = run()
    plan = None
    if fix or diff or statistics:
        plan = _fix_plan(result, files)
        if diff:
            _show_diff(plan, quiet=quiet)
            return
        if fix:
            result, plan = _fix(result, plan, run, files, quiet=quiet)
    shown = result.at_least(_minimum(min_severity, quiet, chosen))
    with output(output_file, inputs=inputs) as out:
        _report(shown, plan if statistics else None, chosen, out, fold_info=min_severity is None)
    if result.failed and not exit_zero:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _show_rules(explain: str | None, *, list_rules: bool) -> None:
    """--list-rules (which wins), or --explain RULE."""
    from toolsel.lint import all_rules
    from toolsel.render.lint import render_rule_list, rule_explanation

    if list_rules or explain is None:
        render_rule_list(list(all_rules().values()), sys.stdout)
    else:
        sys.stdout.write(rule_explanation(find_rule(explain)))


def _overrides(fail_on: str | None, **values: list[str] | None) -> dict[str, object]:
    """The command line's settings, over the configuration's."""
    return {**{k.replace("_", "-"): split_values(v) for k, v in values.items()}, "fail-on": fail_on}


def _lint_inputs(
    paths: list[Path] | None, registry: list[Path] | None, config: Path | None, *, namespace: bool
) -> tuple[FileList | None, FileList, list[str | Path]]:
    """The registries asked for (None: the project's), their files, and every file read."""
    from toolsel.sources import registry_files

    given = [str(p) for p in [*(paths or []), *(registry or [])]] or None
    targets = registry_files(given, namespace=namespace) if given or namespace else None
    files = registry_files(targets)
    return targets, files, [*files, *([config] if config else [])]


def _fix_plan(result: LintResult, files: FileList) -> FixPlan:
    from toolsel.inputs import display_path
    from toolsel.lint.fix import plan_fixes

    return plan_fixes(result, {display_path(p): Path(p) for p in files})


def _show_diff(plan: FixPlan, *, quiet: bool) -> None:
    """--diff: what --fix would change; exit 1 if it would change anything."""
    from toolsel.render.lint import render_fix_plan, render_unfixed

    render_fix_plan(plan, sys.stdout, quiet=quiet, applied=False)
    render_unfixed(plan, sys.stdout)
    if plan.files:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _fix(
    result: LintResult,
    plan: FixPlan,
    run: partial[LintResult],
    files: FileList,
    *,
    quiet: bool,
) -> tuple[LintResult, FixPlan]:
    """--fix: write the fixes, then lint again; the fresh result and what it leaves unfixed."""
    from toolsel.lint.fix import apply_fixes
    from toolsel.render.lint import render_fix_plan, render_unfixed

    render_fix_plan(plan, sys.stdout, quiet=quiet, applied=True)
    apply_fixes(plan)
    if plan.files:
        result = run()
        plan = _fix_plan(result, files)
    sys.stdout.write("\n")
    render_unfixed(plan, sys.stdout)
    return result, plan


def _check_modes(chosen: LintFormat, *, fix: bool, diff: bool, statistics: bool) -> None:
    if fix and diff:
        raise UsageError("--diff shows what --fix would change; give one of them")
    if (fix or diff) and chosen is not LintFormat.HUMAN:
        flag = "--fix" if fix else "--diff"
        raise UsageError(
            f"{flag} reports in the human format, not {chosen.value}",
            hint=f"run `toolsel lint -f {chosen.value}` after fixing",
        )
    if statistics and chosen not in (LintFormat.HUMAN, LintFormat.JSON):
        raise UsageError(f"--statistics is for the human and json formats, not {chosen.value}")


def _report(
    shown: LintResult, plan: FixPlan | None, chosen: LintFormat, out: IO[str], *, fold_info: bool
) -> None:
    """The findings, or with a plan (--statistics) their counts per rule."""
    from toolsel.render.lint import LINT_RENDERERS, json_text, render_statistics

    if plan is not None:
        from toolsel.lint.statistics import finding_key, rule_counts

        rows = rule_counts(shown, {finding_key(f) for f in plan.fixed})
        if chosen is LintFormat.JSON:
            out.write(json_text(shown, rows))
        else:
            render_statistics(rows, shown, out)
    elif chosen is LintFormat.HUMAN and fold_info:
        # info is advice: one line per rule, so that what breaks leads (issue 34)
        LINT_RENDERERS[chosen](shown.folding_info(), out)
    else:
        LINT_RENDERERS[chosen](shown, out)


def _minimum(min_severity: str | None, quiet: bool, chosen: LintFormat) -> Severity:
    from toolsel.lint.model import Severity

    if min_severity is None:
        if quiet or chosen is LintFormat.GITHUB:
            return Severity.WARNING
        return Severity.INFO
    try:
        minimum = Severity(min_severity.strip().lower())
    except ValueError:
        raise UsageError(
            f"--min-severity must be info, warning or error, got {min_severity!r}"
        ) from None
    if quiet and minimum is Severity.INFO:
        raise UsageError("-q hides info findings; it cannot be combined with --min-severity info")
    return minimum


def find_rule(rule_id: str) -> Rule:
    from toolsel.lint import all_rules
    from toolsel.suggest import did_you_mean

    rules = all_rules()
    wanted = rule_id.strip().upper()
    for rule in rules.values():
        if wanted in (rule.id, rule.name.upper()):
            return rule
    raise UsageError(
        f"unknown rule {rule_id!r}{did_you_mean(wanted, rules)}",
        hint="`toolsel lint --list-rules` lists them",
    )
