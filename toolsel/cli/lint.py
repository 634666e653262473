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
    from toolsel.lint.model import Rule, Severity


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
        "error. Default: info; warning for --format github (info would be an annotation).",
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
    from toolsel.registry.paths import registry_files

    given = [str(p) for p in [*(paths or []), *(registry or [])]] or None
    targets = registry_files(given, namespace=namespace) if given or namespace else None
    inputs = [*registry_files(targets), *([config] if config else [])]
    check_output(output_file, inputs)
    result = lint_paths(
        targets,
        config_file=str(config) if config else None,
        overrides={
            "select": split_values(select),
            "extend-select": split_values(extend_select),
            "ignore": split_values(ignore),
            "targets": split_values(target),
            "fail-on": "warning" if strict else fail_on,
        },
        use_cache=not no_cache,
    )
    chosen = output_format.resolve()
    shown = result.at_least(_minimum(min_severity, quiet, chosen))
    with output(output_file, inputs=inputs) as out:
        LINT_RENDERERS[chosen](shown, out)
    if result.failed and not exit_zero:
        raise typer.Exit(int(ExitCode.FINDINGS))


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
