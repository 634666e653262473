"""`toolsel lint [PATH...]`: check registry files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import (
    NamespaceOption,
    NoCacheOption,
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
OutputFileOption = Annotated[
    Path | None,
    typer.Option("--output-file", "-o", help="Write the report here instead of stdout."),
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
    output_file: OutputFileOption = None,
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
    from toolsel.lint import all_rules
    from toolsel.lint.engine import lint_paths
    from toolsel.render.lint import LINT_RENDERERS, render_rule_list, rule_explanation

    if list_rules:
        render_rule_list(list(all_rules().values()), sys.stdout)
        return
    if explain is not None:
        sys.stdout.write(rule_explanation(find_rule(explain)))
        return
    from toolsel.sources import registry_files

    given = [str(p) for p in [*(paths or []), *(registry or [])]] or None
    targets = registry_files(given, namespace=namespace) if given or namespace else None
    files = registry_files(targets)
    inputs = [*files, *([config] if config else []), *(misroutes or [])]
    check_output(output_file, inputs)
    chosen = output_format.resolve()
    _check_modes(chosen, fix=fix, diff=diff, statistics=statistics)
    overrides: dict[str, object] = {
        "select": split_values(select),
        "extend-select": split_values(extend_select),
        "ignore": split_values(ignore),
        "targets": split_values(target),
        "fail-on": "warning" if strict else fail_on,
    }

    def run() -> LintResult:
        return lint_paths(
            targets,
            config_file=str(config) if config else None,
            overrides=overrides,
            use_cache=not no_cache,
            misroutes=misroutes or (),
        )

    result = run()
    plan = None
    if fix or diff or statistics:
        from toolsel.inputs import display_path
        from toolsel.lint.fix import apply_fixes, plan_fixes

        plan = plan_fixes(result, {display_path(p): Path(p) for p in files})
        if fix or diff:
            from toolsel.render.lint import render_fix_plan, render_unfixed

            render_fix_plan(plan, sys.stdout, quiet=quiet, applied=fix)
            if diff:
                render_unfixed(plan, sys.stdout)
                if plan.files:
                    raise typer.Exit(int(ExitCode.FINDINGS))
                return
            apply_fixes(plan)
            if plan.files:
                result = run()
                plan = plan_fixes(result, {display_path(p): Path(p) for p in files})
            sys.stdout.write("\n")
            render_unfixed(plan, sys.stdout)
    shown = result.at_least(_minimum(min_severity, quiet, chosen))
    with output(output_file, inputs=inputs) as out:
        if statistics and plan is not None:
            _statistics(shown, plan, chosen, out)
        elif chosen is LintFormat.HUMAN and min_severity is None:
            # info is advice: one line per rule, so that what breaks leads (issue 34)
            LINT_RENDERERS[chosen](shown.folding_info(), out)
        else:
            LINT_RENDERERS[chosen](shown, out)
    if result.failed and not exit_zero:
        raise typer.Exit(int(ExitCode.FINDINGS))


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


def _statistics(result: LintResult, plan: FixPlan, chosen: LintFormat, out: IO[str]) -> None:
    from toolsel.lint.statistics import finding_key, rule_counts
    from toolsel.render.lint import json_text, render_statistics

    rows = rule_counts(result, {finding_key(f) for f in plan.fixed})
    if chosen is LintFormat.JSON:
        out.write(json_text(result, rows))
    else:
        render_statistics(rows, result, out)


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
