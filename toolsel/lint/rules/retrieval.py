"""TS7xx: tools can be found by search."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Severity, rule
from toolsel.text import split_name

TOP = 3


@rule(
    "TS701",
    "not-self-retrievable",
    Severity.WARNING,
    "Each tool ranks in the top 3 for its own name and display name",
    bad=(
        "- name: get_item\n  description: Returns one inventory entry by its key, with stock level, price and supplier details.\n"
        + "".join(
            f"- name: get_item_{s}\n  description: Get item {s}. Gets the item {s} for an item; get item data.\n"
            for s in ("price", "stock", "history")
        )
    ),
    good="- name: get_item\n  description: Gets one inventory item by key.\n- name: get_item_price\n  description: Returns the price history of an inventory item.\n",
)
def not_self_retrievable(context: LintContext) -> Iterator[Hit]:
    """A tool that does not come up in the top 3 when searched for by its own name written as
    words (`read_file` -> "read file"), or by its display name, will not be found by an agent
    that searches for it. Ranked lexically (BM25 and TF-IDF, as `rank --method hybrid` ranks
    sentences), without hybrid's exact-name shortcut, which would make the check trivial.
    Usually other tools' names or descriptions repeat this tool's words: make the names
    distinct, or say in the description what sets the tool apart.

    Off by default because it ranks every tool twice: about 1 s per 1,000 tools. Turn it on
    with `--extend-select TS701` or `extend-select = ["TS701"]`; reported as a warning."""
    for position, tool in enumerate(context.tools):
        queries = [("name", " ".join(split_name(tool.name)))]
        if tool.display_name:
            queries.append(("display name", tool.display_name))
        for label, query in queries:
            rank = context.self_rank(position, query)
            if rank is not None and rank > TOP:
                field = "name" if label == "name" else "display_name"
                yield context.hit(
                    tool,
                    field,
                    message=f"searching for its {label} {query!r} ranks {tool.name!r} #{rank} (want top {TOP}); other tools repeat these words",
                )
