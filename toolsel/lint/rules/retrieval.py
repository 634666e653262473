"""TS7xx: tools can be found by search."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule
from toolsel.text import split_name

TOP = 3


def not_self_retrievable(context: LintContext) -> Iterator[Hit]:
    """A tool that `toolsel rank` does not put in its top 3 when searched for by its own
    name written as words (`read_file` -> "read file"), its display name or its search hint
    will not be found by an agent that searches for it. The check ranks exactly as `toolsel
    rank --method hybrid` does (the default without `toolsel[embed]`; never the embeddings,
    so findings do not depend on the extras installed), with its exact-name and alias
    matches, typo handling and selection pipeline, so `toolsel rank -m hybrid "QUERY"` shows
    the same order. A name written as
    words matches its own tool exactly, so in practice this flags display names and search
    hints that other tools' words crowd out: make them distinct, or say in the description
    what sets the tool apart. Deprecated and always-include tools are not checked (rank
    drops the one and offers the other whatever the prompt).

    Off by default, because it ranks every tool up to three times: about 1 s per 1,000
    tools. Turn it on with `--extend-select TS701` or `extend-select = ["TS701"]`; it then
    reports a warning."""
    for tool in context.tools:
        if tool.deprecated or tool.always_include:
            continue
        queries = [("name", " ".join(split_name(tool.name)))]
        if tool.display_name:
            queries.append(("display_name", tool.display_name))
        if tool.search_hint:
            queries.append(("search_hint", tool.search_hint))
        for field, query in queries:
            result = context.ranked_for(query, TOP)
            if result is None:
                continue
            offered = [r.name for r in result.results]
            if tool.name not in offered:
                yield context.hit(
                    tool,
                    field,
                    message=(
                        f"`toolsel rank -m hybrid {query!r}` does not offer {tool.name!r} in its "
                        f"top {TOP} "
                        f"({', '.join(offered) or 'nothing'} come first); other tools repeat "
                        "these words"
                    ),
                )


TS701 = Rule(
    "TS701",
    "not-self-retrievable",
    None,
    "Each tool is in `toolsel rank`'s top 3 for its own name, display name and search hint",
    bad=(
        "- name: fs_read\n  display_name: Read a file\n  description: Returns the bytes of a path on the local disk.\n"
        + "".join(
            f"- name: read_file_{s}\n  description: Read a file {s}. Reads the {s} of a file; read file {s}.\n"
            for s in ("head", "tail", "lines")
        )
    ),
    good="- name: fs_read\n  display_name: Read a file\n  description: Read a file from the local disk and return its bytes.\n- name: read_file_head\n  description: Returns the first lines of a text file.\n",
    check=not_self_retrievable,
)
