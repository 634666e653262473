"""TS702-TS707: example prompts (`examples:` and examples overlays) that help search."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.registry.model import OverlayExample

OVERLAY = "# file: examples.yaml\n"


@dataclass(frozen=True, slots=True)
class _Example:
    tool: str
    text: str
    file: str
    pointer: str
    own: bool  # from the tool's own entry, else from an overlay


def _examples(context: LintContext) -> Iterator[_Example]:
    """Every example prompt of every tool, own first, with where it is written."""
    for tool in context.tools:
        for index, text in enumerate(tool.examples):
            pointer = tool.source.field_pointer("examples", index)
            yield _Example(tool.name, text, tool.source.file, pointer, True)
    for example in context.registry.overlay_examples:
        yield _Example(example.tool, example.text, example.file, example.pointer, False)


def _hit(example: _Example, message: str, *, key: bool = False) -> Hit:
    return Hit(message, example.file, example.pointer, example.tool, key=key)


def example_collision(context: LintContext) -> Iterator[Hit]:
    """An example says "this prompt should select this tool". When `toolsel rank` (hybrid,
    with every example learned) puts another tool first for it, the example teaches the
    opposite of what the rest of the registry says: the two tools overlap, the example
    belongs to the other tool, or it is too vague to be an example. Give it to the right
    tool, make it specific, or tell the two tools apart in their descriptions. The finding
    names the tool that came first and the rank the example's own tool got. A prompt that
    is an example of several tools is a task that needs them all: one of them first is
    fine."""
    from toolsel.example_checks import collision, example_key, groups

    examples = list(_examples(context))
    grouped = groups([(e.tool, e.text) for e in examples])
    for example in examples:
        if example.tool not in context.names:
            continue  # TS706 reports it
        group = grouped[example_key(example.text)]
        found = collision(context.rank_index, example.tool, example.text, group)
        if found is not None:
            yield _hit(
                example,
                f"example {example.text!r} ranks {found.first!r} first; "
                f"{example.tool!r} is {found.where}",
            )


TS702 = Rule(
    "TS702",
    "example-collision",
    Severity.WARNING,
    "An example prompt ranks its own tool first",
    bad=(
        "- name: read_file\n  description: Read a file from disk.\n"
        "  examples: [open config.yaml, read the settings file]\n"
        "- name: search_files\n  description: Find files by name.\n"
        "  examples: [read the file config.yaml from disk]\n"
    ),
    good=(
        "- name: read_file\n  description: Read a file from disk.\n"
        "  examples: [open config.yaml, read the settings file]\n"
        "- name: search_files\n  description: Find files by name.\n"
        "  examples: [where is the file named config.yaml]\n"
    ),
    check=example_collision,
)


def duplicate_example(context: LintContext) -> Iterator[Hit]:
    """A prompt given as an example of several tools is a task that needs them all. Two
    tools that `conflicts` says are never used together cannot both be needed: the prompt
    teaches a task no agent may carry out. Keep it for the tool it belongs to (case and
    spacing are ignored when comparing), or drop the conflict if the tools do go together."""
    from toolsel.example_checks import contradictions

    examples = list(_examples(context))
    conflicting = context.registry.in_conflict
    for position, first in contradictions([(e.tool, e.text) for e in examples], conflicting):
        example, seen = examples[position], examples[first]
        yield _hit(
            example,
            f"example {example.text!r} is also an example of {seen.tool!r} "
            f"({seen.file}), which conflicts with {example.tool!r}; keep it for one tool",
        )


TS703 = Rule(
    "TS703",
    "contradicting-example",
    Severity.WARNING,
    "A prompt is not an example of two tools that conflict",
    bad="- name: a\n  description: d\n  conflicts: [b]\n  examples: [list my files]\n- name: b\n  description: e\n  examples: [List my files]\n",
    good="- name: a\n  description: d\n  examples: [list my files]\n- name: b\n  description: e\n  examples: [list my files]\n",
    check=duplicate_example,
)


def example_secret(context: LintContext) -> Iterator[Hit]:
    """Examples are often mined from real transcripts, and they end up in the repository,
    in the rank index cache and in prompts. One that holds a secret (a private key, an API
    key or token, a password, credentials in a URL) or personal data (an e-mail address, a
    phone or card number, another long number) leaks it. The detectors are those
    `toolsel learn` uses, which writes a typed placeholder such as `<email>` in place of
    each value; placeholders are never reported. Write the placeholder the finding names
    in place of the value, or rewrite the example without it."""
    from toolsel.secrets import find

    for example in _examples(context):
        detector = find(example.text)
        if detector is not None:
            sort = "personal data" if detector.personal else "a secret"
            yield _hit(
                example,
                f"example holds {sort}: it looks like {detector.kind}; "
                f"write {detector.placeholder} in its place",
            )


TS704 = Rule(
    "TS704",
    "example-secret",
    Severity.ERROR,
    "An example prompt looks like it holds a secret or personal data",
    bad="- name: a\n  description: d\n  examples: ['email the report to jane.doe@example.com']\n",
    good="- name: a\n  description: d\n  examples: ['email the report to <email>']\n",
    check=example_secret,
)


def missing_examples(context: LintContext) -> Iterator[Hit]:
    """Example prompts say how people ask for a tool, which descriptions rarely do; with
    them, `rank` learns (see "Ranking that learns" in docs/quality.md). Off by default: turn it on
    with `--extend-select TS705` when every tool should have examples, in its entry or in an
    examples overlay (`toolsel learn` writes one from eval cases or transcripts).
    Deprecated tools are not checked."""
    with_examples = {t.name for t in context.tools if t.examples}
    with_examples |= {e.tool for e in context.registry.overlay_examples}
    for tool in context.tools:
        if not tool.deprecated and tool.name not in with_examples:
            yield context.hit(
                tool,
                "name",
                message=f"{tool.name!r} has no example prompts; add `examples:` or an overlay",
            )


TS705 = Rule(
    "TS705",
    "missing-examples",
    None,
    "Each tool has example prompts (opt-in)",
    bad="- name: a\n  description: Read a file.\n",
    good="- name: a\n  description: Read a file.\n  examples: [show me what config.yaml says]\n",
    check=missing_examples,
)


def overlay_unknown_tool(context: LintContext) -> Iterator[Hit]:
    """An overlay adds examples to tools defined elsewhere. Examples for a name that no
    registry file defines are not used: the tool was renamed or removed, the name is
    misspelt, or the registry file that defines it was not passed with `-r`. The finding
    suggests the closest known name."""
    from toolsel.suggest import did_you_mean

    for example in _overlay_entries(context):
        if example.tool not in context.names:
            yield _entry_hit(
                example,
                f"overlay gives examples to {example.tool!r}, which no registry file defines"
                + did_you_mean(example.tool, sorted(context.names)),
            )


TS706 = Rule(
    "TS706",
    "overlay-unknown-tool",
    Severity.WARNING,
    "An examples overlay names a tool the registry does not define",
    bad="- name: read_file\n  description: Read a file.\n"
    + OVERLAY
    + "examples:\n  read_fle: [show me config.yaml]\n",
    good="- name: read_file\n  description: Read a file.\n"
    + OVERLAY
    + "examples:\n  read_file: [show me config.yaml]\n",
    check=overlay_unknown_tool,
)


def examples_merged(context: LintContext) -> Iterator[Hit]:
    """A tool's examples are its entry's, then each overlay's, once each. Having both is
    allowed, but a reviewer reading one file does not see the other: this note says where
    the rest are. Keep hand-written examples in the entry and learned ones in the overlay,
    or move them into one place."""
    own = {t.name: t for t in context.tools if t.examples}
    for example in _overlay_entries(context):
        tool = own.get(example.tool)
        if tool is not None:
            yield _entry_hit(
                example,
                f"{example.tool!r} also has {len(tool.examples)} examples in its entry "
                f"({tool.source.file}); the two are merged",
            )


TS707 = Rule(
    "TS707",
    "examples-merged",
    Severity.INFO,
    "A tool has examples both in its entry and in an overlay (they are merged)",
    bad="- name: read_file\n  description: Read a file.\n  examples: [open config.yaml]\n"
    + OVERLAY
    + "examples:\n  read_file: [show me config.yaml]\n",
    good="- name: read_file\n  description: Read a file.\n"
    + OVERLAY
    + "examples:\n  read_file: [show me config.yaml]\n",
    check=examples_merged,
)


def _overlay_entries(context: LintContext) -> Iterator[OverlayExample]:
    """The first example of each (overlay file, tool) entry."""
    seen: set[tuple[str, str]] = set()
    for example in context.registry.overlay_examples:
        if (example.file, example.tool) not in seen:
            seen.add((example.file, example.tool))
            yield example


def _entry_hit(example: OverlayExample, message: str) -> Hit:
    """A finding on an overlay entry's key (the tool name)."""
    pointer = example.pointer.rsplit("/", 1)[0]
    return Hit(message, example.file, pointer, example.tool, key=True)
