"""`toolsel lint [PATH...]`: check registry files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolsel.cli.common import NoCacheOption, check_output, handle_errors, output, split_values
from toolsel.errors import ExitCode, UsageError
from toolsel.render.formats import LintFormat

if TYPE_CHECKING:
    from toolsel.lint.model import Rule


PathsArgument = Annotated[
    list[Path] | None,
    typer.Argument(help="Registry files or directories. Default: the project's registry."),
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
    typer.Option("--fail-on", help="Lowest severity that fails: error, warning, info, never."),
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
    bool, typer.Option("--quiet", "-q", help="Hide info findings in human output.")
]
ListRulesOption = Annotated[bool, typer.Option("--list-rules", help="List every rule and exit.")]
ExplainOption = Annotated[
    str | None, typer.Option("--explain", help="Explain one rule, e.g. TS504, and exit.")
]


@handle_errors
def lint(
    paths: PathsArgument = None,
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

    targets = [str(p) for p in paths or []] or None
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
    with output(output_file, inputs=inputs) as out:
        LINT_RENDERERS[output_format.resolve()](result, out, quiet=quiet)
    if result.failed and not exit_zero:
        raise typer.Exit(int(ExitCode.FINDINGS))


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
