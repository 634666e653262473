"""`toolsel diff` on real version histories: precision and recall on breaking changes.

    python benchmarks/diff_corpus.py            # the scorecard, and every disagreement
    python benchmarks/diff_corpus.py --check    # exit 1 under the gate (CI runs the same)
    python benchmarks/diff_corpus.py --json

tests/corpus/diffs/<project>/labels.yaml labels, by reading both versions, every tool that
differs between two consecutive versions: breaking, risky or safe (README.md there says
how). A tool's class in toolsel is the most severe class of its changes; a rename counts
against the old name (its calls fail), as the labels do. The unit is (pair, tool): a tool
toolsel calls breaking that the label does not is a false positive; a tool labelled
breaking that toolsel does not call breaking is a miss.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "diffs"
GATE = 0.95
LEVEL = {"safe": 0, "risky": 1, "breaking": 2}


@dataclass
class Disagreement:
    pair: str
    tool: str
    label: str
    toolsel: str
    reason: str
    rules: list[str]


@dataclass
class Scorecard:
    projects: int = 0
    pairs: int = 0
    tools: int = 0
    true_positives: int = 0
    false_positives: int = 0
    misses: int = 0
    classes_agree: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def precision(self) -> float:
        called = self.true_positives + self.false_positives
        return self.true_positives / called if called else 1.0

    @property
    def recall(self) -> float:
        labelled = self.true_positives + self.misses
        return self.true_positives / labelled if labelled else 1.0


def labelled_pairs(root: Path = CORPUS) -> list[tuple[str, Path, Path, dict[str, Any]]]:
    """(pair id, OLD path, NEW path, the labelled tools) for every pair, sorted."""
    import yaml

    found = []
    for labels in sorted(root.glob("*/labels.yaml")):
        project = labels.parent
        document = yaml.safe_load(labels.read_text(encoding="utf-8")) or {}
        for name, pair in (document.get("pairs") or {}).items():
            found.append(
                (
                    f"{project.name}/{name}",
                    project / pair["old"],
                    project / pair["new"],
                    pair.get("tools") or {},
                )
            )
    return found


def tool_classes(old: Path, new: Path) -> dict[str, tuple[str, list[str]]]:
    """Each tool toolsel finds changed: (its most severe class, the rules that said so)."""
    from toolsel.diff.engine import diff_registries
    from toolsel.sources import load_registry

    changes = diff_registries(
        load_registry([old], use_cache=False), load_registry([new], use_cache=False)
    )
    found: dict[str, tuple[str, list[str]]] = {}
    for change in changes:
        for name in {change.tool, change.old_tool} - {None}:
            # a rename breaks the OLD name's calls; the NEW name is an added tool
            cls = change.change_class.value
            if change.old_tool is not None and name == change.tool and cls == "breaking":
                cls = "safe"
            before, rules = found.get(str(name), ("safe", []))
            worst = cls if LEVEL[cls] > LEVEL[before] else before
            found[str(name)] = (worst, [*rules, f"{change.rule}:{change.change_class.value}"])
    return found


def score(root: Path = CORPUS) -> Scorecard:
    card = Scorecard()
    pairs = labelled_pairs(root)
    card.projects = len({pair_id.split("/")[0] for pair_id, *_ in pairs})
    for pair_id, old, new, labels in pairs:
        card.pairs += 1
        got = tool_classes(old, new)
        for tool in sorted(set(labels) | set(got)):
            card.tools += 1
            label = labels.get(tool, {}).get("class", "unchanged")
            mine, rules = got.get(tool, ("unchanged", []))
            card.classes_agree += label == mine
            if label == "breaking" and mine == "breaking":
                card.true_positives += 1
            elif (label == "breaking") != (mine == "breaking"):
                if mine == "breaking":
                    card.false_positives += 1
                else:
                    card.misses += 1
                reason = str(labels.get(tool, {}).get("reason", ""))
                card.disagreements.append(Disagreement(pair_id, tool, label, mine, reason, rules))
    return card


def render(card: Scorecard) -> str:
    lines = [
        f"Diff corpus: {card.pairs} version pairs from {card.projects} projects, "
        f"{card.tools} (pair, tool) units",
        f"breaking: precision {card.precision:.1%} ({card.true_positives}/"
        f"{card.true_positives + card.false_positives}), recall {card.recall:.1%} "
        f"({card.true_positives}/{card.true_positives + card.misses}); gate {GATE:.0%}",
        f"classes agree on {card.classes_agree}/{card.tools} units",
    ]
    for d in card.disagreements:
        kind = "false positive" if d.toolsel == "breaking" else "miss"
        lines.append(f"  {kind}: {d.pair} {d.tool}: label {d.label}, toolsel {d.toolsel}")
        lines.append(f"      label: {d.reason}")
        lines.append(f"      toolsel: {', '.join(d.rules) or '(no change)'}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    card = score()
    if args.json:
        print(json.dumps({**asdict(card), "precision": card.precision, "recall": card.recall}))
    else:
        print(render(card))
    if args.check and (card.precision < GATE or card.recall < GATE):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
