"""The scorecard of toolsel on the labelled third-party corpus (tests/corpus).

    python benchmarks/corpus.py            # print the scorecard (Markdown)
    python benchmarks/corpus.py --check    # exit 1 when a gate fails (CI runs the same gates)
    python benchmarks/corpus.py --json     # the scorecard as JSON

Registries (tests/corpus/registries/labels.yaml): every error and warning `toolsel lint`
reports under the default profile is matched to its hand label (true problem or false
alarm), giving each rule's precision; so is every one it reports under `-t anthropic`,
`-t openai` and `-t gemini` for a file whose label has a `targets:` block (there a
default finding about another provider must not fire); every file labelled `loads: true` must load as
`toolsel rank` loads it, and every file labelled `loads: false` must be refused.
Transcripts (tests/corpus/transcripts/labels.yaml): `toolsel replay` must count exactly
the calls, results, error results, unanswered calls, orphan results and duplicate ids
written down by reading the raw lines.

The gates (issues 18 and 34): under the default profile and under each target, no rule that
fires at warning or error level is under 90% precision on 3 or more corpus findings, and all
of them together are at 95% or more; every such finding is labelled (a new rule or format
lands with its corpus cases); every file loads (or is refused) as labelled; every labelled
transcript count matches.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
PRECISION_GATE = 0.90
MIN_FINDINGS = 3
OVERALL_GATE = 0.95
#: The `-t` targets a label's `targets:` block covers, each scored on its own (issue 34).
TARGETS = ("anthropic", "openai", "gemini")
#: A label's `provider:` says which model API a finding is about; under `-t TARGET`, only
#: findings about that target's provider (or about any) may fire.
ANY_PROVIDER = (None, "any")
#: The transcript counts a label states and the replay report must match.
COUNTS = ("calls", "results", "error_results", "unanswered", "orphans", "duplicate_ids")


@dataclass
class RuleScore:
    rule: str
    severity: str
    true: int = 0
    false: int = 0

    @property
    def findings(self) -> int:
        return self.true + self.false

    @property
    def precision(self) -> float | None:
        return self.true / self.findings if self.findings else None


@dataclass
class TranscriptScore:
    file: str
    expected: dict[str, int]
    got: dict[str, int]
    format: str

    @property
    def matches(self) -> bool:
        return self.expected == self.got


@dataclass
class Scorecard:
    rules: dict[str, RuleScore] = field(default_factory=dict)
    unlabelled: list[dict[str, Any]] = field(default_factory=list)
    gone: list[dict[str, Any]] = field(default_factory=list)  # labelled, no longer reported
    load_failures: list[str] = field(default_factory=list)
    registry_files: int = 0
    transcripts: list[TranscriptScore] = field(default_factory=list)
    #: the same scoring under each `-t` target, on the files whose label has `targets:`
    targets: dict[str, Scorecard] = field(default_factory=dict)

    @property
    def overall(self) -> tuple[int, int]:
        """(true, all) errors and warnings over every rule."""
        true = sum(s.true for s in self.rules.values())
        return true, sum(s.findings for s in self.rules.values())

    def precision_failures(self) -> list[str]:
        failures = []
        for score in self.rules.values():
            if score.findings >= MIN_FINDINGS and (score.precision or 0) < PRECISION_GATE:
                failures.append(
                    f"{score.rule} ({score.severity}) precision {score.precision:.0%} on "
                    f"{score.findings} findings, under {PRECISION_GATE:.0%}"
                )
        true, found = self.overall
        if found and true / found < OVERALL_GATE:
            failures.append(
                f"overall precision {true / found:.0%} ({true} of {found}), under {OVERALL_GATE:.0%}"
            )
        failures.extend(
            f"unlabelled {f['severity']} {f['rule']} at {f['file']}:{f['line']} {f['pointer']}"
            for f in self.unlabelled
        )
        failures.extend(
            f"labelled {g['rule']} at {g['file']}:{g['line']} {g['pointer']} no longer reported "
            "(move it to `fixed:` or `missed:`)"
            for g in self.gone
        )
        return failures

    def gate_failures(self) -> list[str]:
        failures = self.precision_failures()
        for target, card in self.targets.items():
            failures.extend(f"-t {target}: {f}" for f in card.precision_failures())
        failures.extend(self.load_failures)
        failures.extend(
            f"transcript {t.file}: expected {t.expected}, replay counted {t.got}"
            for t in self.transcripts
            if not t.matches
        )
        return failures


def _yaml(path: Path) -> Any:
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8"))


# -- registries ------------------------------------------------------------------------------


def score_registries(card: Scorecard, root: Path = CORPUS / "registries") -> None:
    from toolsel.errors import ToolselError
    from toolsel.lint import all_rules
    from toolsel.lint.config import build_config
    from toolsel.lint.engine import lint_registry
    from toolsel.registry import load_registry

    labels = _yaml(root / "labels.yaml")["files"]
    rules = all_rules()
    config = build_config({}, rules, source="corpus")  # the default profile, no project config
    per_target = {t: build_config({"targets": [t]}, rules, source="corpus") for t in TARGETS}
    for target in TARGETS:
        card.targets.setdefault(target, Scorecard())
    for name, label in sorted(labels.items()):
        path = root / name
        card.registry_files += 1
        registry = load_registry([path], use_cache=False, strict=False)
        _match(card, name, _problems(lint_registry, registry, config), label.get("findings") or [])
        for target, target_config in per_target.items() if "targets" in label else ():
            expected = [
                f
                for f in label.get("findings") or []
                if f.get("provider") in (*ANY_PROVIDER, target)
            ] + list((label.get("targets") or {}).get(target) or [])
            found = _problems(lint_registry, registry, target_config)
            card.targets[target].registry_files += 1
            _match(card.targets[target], name, found, expected)
        try:
            load_registry([path], use_cache=False)
            loaded, reason = True, ""
        except ToolselError as error:
            loaded, reason = False, str(error)
        if loaded != bool(label.get("loads", True)):
            expected = "load" if label.get("loads", True) else "be refused"
            card.load_failures.append(f"registry {name} should {expected}: {reason or 'it loaded'}")


def _problems(lint: Any, registry: Any, config: Any) -> list[Any]:
    """The errors and warnings `lint` reports on `registry` under `config`."""
    return [
        f
        for f in lint(registry, config, use_cache=False).findings
        if f.severity.value in ("error", "warning")
    ]


def _match(card: Scorecard, name: str, findings: list[Any], labelled: list[dict[str, Any]]) -> None:
    """Pair findings with labels by rule, pointer and line, exactly: a finding without its
    label, and a label without its finding, both fail the gate."""
    left = list(labelled)

    def take(finding: Any, keys: tuple[str, ...]) -> dict[str, Any] | None:
        wanted = {"rule": finding.rule, "pointer": finding.pointer, "line": finding.line}
        for i, label in enumerate(left):
            if all(label.get(k) == wanted[k] for k in keys):
                return left.pop(i)
        return None

    for finding in findings:
        label = take(finding, ("rule", "pointer", "line"))
        if label is None:
            card.unlabelled.append(
                {"file": name, "rule": finding.rule, "severity": finding.severity.value,
                 "line": finding.line, "pointer": finding.pointer, "message": finding.message}
            )  # fmt: skip
        else:
            _count(card, finding, label)
    card.gone.extend({"file": name, **label} for label in left)


def _count(card: Scorecard, finding: Any, label: dict[str, Any]) -> None:
    score = card.rules.setdefault(finding.rule, RuleScore(finding.rule, finding.severity.value))
    if label.get("verdict") is True:
        score.true += 1
    else:
        score.false += 1


# -- transcripts -----------------------------------------------------------------------------


def score_transcripts(card: Scorecard, root: Path = CORPUS / "transcripts") -> None:
    from toolsel.replay.file import replay_file

    labels = _yaml(root / "labels.yaml")["files"]
    for name, label in sorted(labels.items()):
        report = replay_file(str(root / name))
        duplicates = {d.id for d in report.duplicate_calls} | {
            d.id for d in report.duplicate_results
        }
        got = {
            "calls": report.calls,
            "results": report.results,
            "error_results": report.error_results,
            "unanswered": len(report.unanswered),
            "orphans": len(report.orphans),
            "duplicate_ids": len(duplicates),
        }
        expected = {key: int(label.get(key, 0)) for key in COUNTS}
        card.transcripts.append(TranscriptScore(name, expected, got, report.format))


# -- output ----------------------------------------------------------------------------------


def scorecard() -> Scorecard:
    card = Scorecard()
    score_registries(card)
    score_transcripts(card)
    return card


def _rule_table(card: Scorecard) -> tuple[list[str], str]:
    """The per-rule precision table, and the overall precision as text."""
    lines = ["| rule | severity | true | false | precision |", "|---|---|---:|---:|---:|"]
    for score in sorted(card.rules.values(), key=lambda s: s.rule):
        precision = f"{score.precision:.0%}" if score.precision is not None else "-"
        lines.append(
            f"| {score.rule} | {score.severity} | {score.true} | {score.false} | {precision} |"
        )
    true, found = card.overall
    overall = f"{true / found:.0%}" if found else "-"
    lines.append(f"| **all** | | {true} | {found - true} | **{overall}** |")
    return lines, overall


def _unlabelled(card: Scorecard) -> str:
    return f"Unlabelled errors and warnings: {len(card.unlabelled)}" + "".join(
        f"\n- {u['file']}:{u['line']} {u['rule']} {u['pointer']}: {u['message']}"
        for u in card.unlabelled
    )


def markdown(card: Scorecard) -> str:
    lines, overall = _rule_table(card)
    true, found = card.overall
    out = [
        f"Registries: {card.registry_files} files; errors and warnings that are real problems: "
        f"{true} of {found} ({overall}).",
        "",
        *lines,
        "",
        f"Files that do not load as labelled: {len(card.load_failures)}"
        + "".join(f"\n- {f}" for f in card.load_failures),
        _unlabelled(card),
        f"Labelled findings no longer reported: {len(card.gone)}",
    ]
    for target, target_card in card.targets.items():
        lines, overall = _rule_table(target_card)
        true, found = target_card.overall
        out += [
            "",
            f"`-t {target}` on the {target_card.registry_files} files labelled per target: "
            f"{true} of {found} ({overall}).",
            "",
            *lines,
            "",
            _unlabelled(target_card),
            f"Labelled findings no longer reported: {len(target_card.gone)}",
        ]
    matching = sum(t.matches for t in card.transcripts)
    formats = Counter(t.format for t in card.transcripts)
    out += [
        "",
        f"Transcripts whose counts match: {matching} of {len(card.transcripts)} "
        f"(formats read: {', '.join(f'{k} {v}' for k, v in sorted(formats.items()))}).",
    ]
    for t in card.transcripts:
        if not t.matches:
            diff = ", ".join(
                f"{k} {t.got[k]} (labelled {t.expected[k]})"
                for k in COUNTS
                if t.got[k] != t.expected[k]
            )
            out.append(f"- {t.file} [{t.format}]: {diff}")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a gate fails")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    card = scorecard()
    if args.json:
        data = asdict(card)
        data["gate_failures"] = card.gate_failures()
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        sys.stdout.write(markdown(card))
    failures = card.gate_failures()
    if args.check and failures:
        print(f"\n{len(failures)} gate failures:", *failures, sep="\n- ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
