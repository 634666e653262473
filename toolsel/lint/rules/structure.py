"""TS0xx: the file parses and has the registry's shape."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.rules._util import has_field, registry_hit
from toolsel.registry.model import ProblemKind
from toolsel.text import fold_name

PARSE_ERROR = Rule(
    "TS001",
    "parse-error",
    Severity.ERROR,
    "File parses as YAML or JSON",
    bad="- name: a\n  description: [unclosed\n",
    good="- name: a\n  description: closed\n",
    problem=ProblemKind.UNREADABLE,
    explanation="""The file must be readable UTF-8 text that parses as YAML or JSON. Nothing else can be
    checked in a file that does not parse, so the other files are still linted and this one
    is reported at the scanner's line and column. Binary files, non-UTF-8 bytes, alias bombs,
    files over the size limit, and numbers JSON cannot hold (infinity, NaN, integers of more
    than the 4,300 digits Python converts) are reported here too.""",
)


DUPLICATE_KEY = Rule(
    "TS002",
    "duplicate-key",
    Severity.ERROR,
    "No mapping key appears twice",
    bad="- name: a\n  description: first\n  description: second\n",
    good="- name: a\n  description: only once\n",
    problem=ProblemKind.DUPLICATE_KEY,
    explanation="""YAML loaders silently keep the last of two equal keys, so the first value is lost.""",
)


REGISTRY_SHAPE = Rule(
    "TS003",
    "registry-shape",
    Severity.ERROR,
    "The document has the registry's shape and types",
    bad="- name: a\n  description: ok\n  tags: not-a-list\n",
    good="- name: a\n  description: ok\n  tags: [fine]\n",
    problem=ProblemKind.SHAPE,
    explanation="""`tools` is a list of mappings; names, descriptions and categories are strings;
    `tags`, `requires`, `conflicts` and `aliases` are lists of strings; flags are booleans;
    `parameters` is a mapping. An empty file is reported here.""",
)


MISSING_REQUIRED = Rule(
    "TS004",
    "missing-name-or-description",
    Severity.ERROR,
    "Every tool has a name and a description",
    bad="- name: a\n",
    good="- name: a\n  description: Reads a file.\n",
    problem=ProblemKind.MISSING_FIELD,
    explanation="""Without a description the model has nothing to select the tool by; without a name
    the tool cannot be called.""",
)


def missing_parameters(context: LintContext) -> Iterator[Hit]:
    """Anthropic and MCP require an input schema; an exporter would have to invent one.
    Write `parameters: {type: object, properties: {}}` for a tool without arguments."""
    for tool in context.tools:
        if not has_field(tool, "parameters"):
            yield context.hit(
                tool,
                "name",
                message="tool has no `parameters`; declare an empty object schema if it takes none",
                key=True,
            )


TS005 = Rule(
    "TS005",
    "missing-parameters",
    Severity.INFO,
    "Every tool declares `parameters`",
    bad="- name: a\n  description: d\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {}}\n",
    check=missing_parameters,
)


UNKNOWN_KEY = Rule(
    "TS006",
    "unknown-key",
    Severity.WARNING,
    "No misspelled keys (typos silently drop data)",
    bad="- name: a\n  descripton: typo\n",
    good="- name: a\n  description: spelled right\n",
    problem=ProblemKind.UNKNOWN_KEY,
    explanation="""A key one or two letters away from one toolsel reads for the entry's shape
    (`descripton`, `require`, `display-name`) is a typo, and its value is ignored. Any other
    key is the file's own metadata (TS011). Keys starting with `x-` are extensions and always
    allowed.""",
)


UNREAD_KEY = Rule(
    "TS011",
    "unread-key",
    Severity.INFO,
    "Keys toolsel does not read are noted",
    bad="- name: a\n  description: d\n  safety: safe\n",
    good="- name: a\n  description: d\n  x-safety: safe\n",
    problem=ProblemKind.UNREAD_KEY,
    explanation="""Files written for other tools carry metadata of their own: a manifest's
    `name` and `version`, MCP's `title`, a project's `command`, `safety` or `category` on an
    MCP list, a server card's `prompts`. It is no typo (that is TS006) and nothing an agent
    misses, so it is information: toolsel reads the tools and ignores the rest.""",
)


BUILTIN_TOOL = Rule(
    "TS010",
    "builtin-tool",
    Severity.INFO,
    "Built-in tools the provider runs are listed apart",
    bad="- type: file_search\n- name: a\n  description: Reads a file.\n",
    good="- name: a\n  description: Reads a file.\n",
    problem=ProblemKind.BUILTIN_TOOL,
    explanation="""A tools list may hold tools the provider runs itself: OpenAI's hosted tools
    (`file_search`, `web_search`, `code_interpreter`, `computer_use_preview`, `mcp`, ...),
    Anthropic's versioned server tools (`web_search_20250305`, `bash_20250124`,
    `text_editor_20250728`, ...) and Gemini's (`googleSearch`, `codeExecution`,
    `urlContext`, ...). They are valid, so they are noted, not reported as errors, and the
    function tools beside them load as usual; toolsel does not rank, check or emit them.""",
)


def duplicate_tool_name(context: LintContext) -> Iterator[Hit]:
    """Two tools with one name break dispatch: the agent cannot say which it means."""
    first: dict[str, str] = {}
    for tool in context.tools:
        location = context.registry.locate_field(tool, "name")
        if tool.name in first:
            yield context.hit(
                tool,
                "name",
                message=f"duplicate tool name {tool.name!r} (first defined at {first[tool.name]})",
            )
        else:
            first[tool.name] = str(location)


TS007 = Rule(
    "TS007",
    "duplicate-tool-name",
    Severity.ERROR,
    "Tool names are unique across all files",
    bad="- name: a\n  description: one\n- name: a\n  description: two\n",
    good="- name: a\n  description: one\n- name: b\n  description: two\n",
    check=duplicate_tool_name,
)


def near_duplicate_name(context: LintContext) -> Iterator[Hit]:
    """`getUser`, `get_user` and `get-user` fold to the same name, which confuses selection
    and breaks providers that normalise names."""
    seen: dict[str, str] = {}
    for tool in context.tools:
        folded = fold_name(tool.name)
        other = seen.setdefault(folded, tool.name)
        if other != tool.name:
            yield context.hit(
                tool,
                "name",
                message=f"name {tool.name!r} differs from {other!r} only by case or separators",
            )


TS008 = Rule(
    "TS008",
    "near-duplicate-name",
    Severity.WARNING,
    "Names differ by more than case and separators",
    bad="- name: getUser\n  description: one\n- name: get_user\n  description: two\n",
    good="- name: get_user\n  description: one\n- name: get_users\n  description: two\n",
    check=near_duplicate_name,
)


def no_tools(context: LintContext) -> Iterator[Hit]:
    """A registry without a single tool offers an agent nothing: `rank`, `deps` and `prompt`
    refuse it ("the registry has no tools"), so lint reports it too, at the first file.
    One empty file among files that declare tools is fine. Not reported when a file could
    not be read at all (TS001 and TS003 say why)."""
    if context.tools or context.registry.problems or not context.registry.files:
        return
    yield registry_hit(context, "the registry has no tools; add entries under `tools:`", key=False)


TS009 = Rule(
    "TS009",
    "no-tools",
    Severity.ERROR,
    "The registry declares at least one tool",
    bad="tools: []\n",
    good="- name: read_file\n  description: Reads a file.\n",
    check=no_tools,
)
