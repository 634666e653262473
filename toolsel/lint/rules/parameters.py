"""TS3xx, clarity: parameters that explain themselves and are hard to misuse."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolsel.lint.context import LintContext
from toolsel.lint.model import Hit, Rule, Severity
from toolsel.lint.rules._util import has_field, property_nodes, schema_nodes
from toolsel.lint.schema import properties_of, property_path
from toolsel.registry.model import Permission
from toolsel.registry.source import escape_token

AMBIGUOUS_PARAMS = frozenset(
    {"id", "user", "data", "value", "input", "q", "obj", "item", "args", "params"}
)
PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
#: Values listed in prose: "One of: GET, HEAD", "either 'asc' or 'desc'", "a | b | c",
#: "['png', 'jpg']", "json/yaml/toml". Not "one of the projects" nor "Either a or b is
#: required" (about which parameters to send, not a value's choices).
_VALUE = r"[`'\"]?[\w.-]+[`'\"]?"
_QUOTED = r"[`'\"][^`'\"]+[`'\"]"
ALTERNATIVES = re.compile(
    rf"\bone of\b:?\s+{_VALUE}\s*(?:,|\bor\b|\|)\s*{_VALUE}"
    rf"|\beither\s+{_QUOTED}\s+or\s+{_QUOTED}"
    r"|\b\w[\w-]*(?:\s*\|\s*\w[\w-]*){2,}\b"
    r"|\[\s*['\"][\w.-]+['\"](?:\s*,\s*['\"][\w.-]+['\"])+\s*\]"
    r"|\b[a-z]+/[a-z]+/[a-z]+\b",
    re.IGNORECASE,
)
TYPED_KEYWORDS = ("type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf")
TOGGLE_PAIRS = (
    ("on", "off"), ("enable", "disable"), ("enabled", "disabled"), ("show", "hide"),
    ("include", "exclude"), ("allow", "deny"),
)  # fmt: skip
RISKY_PARAM = re.compile(
    r"(^|_)(path|file|filename|url|uri|cmd|command|sql|query|script|shell|expr|expression|code)($|_)"
)


def property_description(context: LintContext) -> Iterator[Hit]:
    """ "Describe each parameter and its format": 84% of MCP tools have opaque parameters.
    Info: on third-party registries most such parameters are named plainly enough (`path`,
    `query`, `limit`), so this is house style, not proof of a misled agent. Not reported:
    a `const` (a discriminator: its one value says it all), a `$ref`, and a property whose
    `anyOf`/`oneOf`/`allOf` branches carry the description."""
    for tool, node in property_nodes(context):
        if not _described(node.schema) and "$ref" not in node.schema and "const" not in node.schema:
            yield context.schema_hit(
                tool, node.pointer, f"parameter {node.property_name!r} has no description", key=True
            )


TS304 = Rule(
    "TS304",
    "property-without-description",
    Severity.INFO,
    "Every property has a description",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {path: {type: string}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {path: {type: string, description: Workspace-relative path.}}}\n",
    check=property_description,
)


def _described(schema: dict[str, object]) -> bool:
    text = schema.get("description")
    if isinstance(text, str) and text.strip():
        return True
    for keyword in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list) and any(
            isinstance(b, dict)
            and isinstance(b.get("description"), str)
            and b["description"].strip()
            for b in branches
        ):
            return True
    return False


def property_type(context: LintContext) -> Iterator[Hit]:
    """Gemini needs a type on every property; without one the model guesses."""
    for tool, node in property_nodes(context):
        if not any(k in node.schema for k in TYPED_KEYWORDS):
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter {node.property_name!r} has no `type` (or enum/const/$ref/anyOf)",
                key=True,
            )


TS305 = Rule(
    "TS305",
    "property-without-type",
    Severity.WARNING,
    "Every property has a type",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {description: count}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {n: {type: integer, description: count}}}\n",
    check=property_type,
)


def ambiguous_name(context: LintContext) -> Iterator[Hit]:
    """`id`, `user` or `data` leave the model guessing; `user_id` does not."""
    for tool, node in property_nodes(context):
        if node.property_name in AMBIGUOUS_PARAMS:
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter name {node.property_name!r} is ambiguous; name what it holds (e.g. 'user_id')",
                key=True,
            )


TS306 = Rule(
    "TS306",
    "ambiguous-parameter-name",
    Severity.INFO,
    "Parameter names say what they hold",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {id: {type: string}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {user_id: {type: string}}}\n",
    check=ambiguous_name,
)


def parameter_chars(context: LintContext) -> Iterator[Hit]:
    """Gemini only accepts letters, digits and underscores in parameter names (an error when
    `gemini` is a target; not checked when the targets send tools to other APIs only:
    OpenAI and Anthropic accept `-` and `.`)."""
    severity = Severity.ERROR if "gemini" in context.targets else None
    for tool, node in property_nodes(context):
        if not PARAM_NAME.fullmatch(str(node.property_name)):
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter name {node.property_name!r} has characters Gemini rejects; use letters, digits and '_'",
                severity=severity,
                key=True,
            )


TS307 = Rule(
    "TS307",
    "parameter-name-chars",
    Severity.WARNING,
    "Parameter names match `^[A-Za-z_][A-Za-z0-9_]{0,63}$`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {file-path: {type: string}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {file_path: {type: string}}}\n",
    providers=("gemini",),
    check=parameter_chars,
)


def alternatives_enum(context: LintContext) -> Iterator[Hit]:
    """ "Use an enum" makes invalid values unrepresentable instead of merely discouraged."""
    for tool, node in property_nodes(context):
        text = node.schema.get("description")
        kind = node.schema.get("type")
        if (
            (kind == "string" or (isinstance(kind, list) and "string" in kind))
            and "enum" not in node.schema
            and isinstance(text, str)
            and ALTERNATIVES.search(text)
        ):
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter {node.property_name!r} lists its allowed values in prose; declare them as `enum`",
                key=True,
            )


TS308 = Rule(
    "TS308",
    "alternatives-without-enum",
    Severity.INFO,
    "Listed choices are an `enum`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {unit: {type: string, description: 'One of celsius, fahrenheit'}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {unit: {type: string, enum: [celsius, fahrenheit]}}}\n",
    check=alternatives_enum,
)


def toggle_pair(context: LintContext) -> Iterator[Hit]:
    """OpenAI's `toggle_light(on, off)` anti-example: two booleans that must never both be
    true belong in one enum."""
    for tool, node in schema_nodes(context):
        props = properties_of(node.schema)
        booleans = {
            name
            for name, sub in props.items()
            if isinstance(sub, dict) and sub.get("type") == "boolean"
        }
        for a, b in TOGGLE_PAIRS:
            for name in booleans:
                if name == a or name.startswith(a + "_"):
                    partner = b + name[len(a) :]
                    if partner in booleans:
                        yield context.schema_hit(
                            tool,
                            f"{node.pointer}/properties/{escape_token(partner)}",
                            f"booleans {name!r} and {partner!r} exclude each other; use one enum parameter",
                            key=True,
                        )


TS309 = Rule(
    "TS309",
    "toggle-pair",
    Severity.INFO,
    "No pair of mutually exclusive booleans",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {on: {type: boolean}, off: {type: boolean}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {state: {type: string, enum: ['on', 'off']}}}\n",
    check=toggle_pair,
)


def too_many_params(context: LintContext) -> Iterator[Hit]:
    """OpenAI calls fewer than ~20 arguments per tool "in distribution"; split larger tools."""
    maximum = context.option("max-params")
    for tool in context.tools:
        count = len(properties_of(tool.parameters))
        if count > maximum:
            yield context.schema_hit(
                tool,
                "/properties",
                f"{count} top-level parameters (max {maximum}); split the tool",
                key=True,
            )


TS312 = Rule(
    "TS312",
    "too-many-parameters",
    Severity.WARNING,
    "At most `max-params` (20) top-level parameters",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {"
    + ", ".join(f"p{i}: {{type: string}}" for i in range(21))
    + "}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {p: {type: string}}}\n",
    check=too_many_params,
)


def too_deep(context: LintContext) -> Iterator[Hit]:
    """Deep schemas are hard for models to fill. Depth is the objects a model writes one
    inside another (the property names from the root to a value): an array's `items` adds
    no level, and a recursive `$ref` is not followed (recursion is TS316's, not depth). A
    tree, whose path repeats a property name (`children` in `children`), is the data's own
    shape and cannot be flattened: it is held only to OpenAI strict mode's limit of
    `openai-max-depth` (10) levels. Reported once per tool, at the first node too deep."""
    maximum = context.option("max-depth")
    tree_maximum = max(maximum, context.option("openai-max-depth"))
    for tool in context.tools:
        for node in context.schema_nodes(tool):
            names = property_path(node.pointer)
            is_tree = len(set(names)) < len(names)
            if len(names) <= (tree_maximum if is_tree else maximum):
                continue
            if is_tree:
                message = (
                    f"tree nests {len(names)} levels deep; OpenAI strict mode allows "
                    f"{tree_maximum}: cap the depth or use a recursive `$ref`"
                )
            else:
                message = f"schema nests {len(names)} levels of objects (max {maximum}); flatten it"
            yield context.schema_hit(tool, node.pointer, message)
            break


TS313 = Rule(
    "TS313",
    "schema-too-deep",
    Severity.WARNING,
    "Objects nest at most `max-depth` (5) deep; trees to `openai-max-depth` (10)",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {a: {type: object, properties: {b: {type: object, properties: {c: {type: object, properties: {d: {type: object, properties: {e: {type: object, properties: {f: {type: string}}}}}}}}}}}}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {a: {type: string}}}\n",
    check=too_deep,
)


def no_args_open(context: LintContext) -> Iterator[Hit]:
    """MCP recommends `{type: object, additionalProperties: false}` for a no-argument tool,
    so a model cannot invent arguments."""
    for tool in context.tools:
        if not has_field(tool, "parameters"):
            continue  # TS005 already asks for the whole schema
        if (
            not properties_of(tool.parameters)
            and tool.parameters.get("additionalProperties") is not False
        ):
            yield context.schema_hit(
                tool, "", "tool takes no arguments; add `additionalProperties: false`"
            )


TS317 = Rule(
    "TS317",
    "no-args-not-closed",
    Severity.INFO,
    "A tool without arguments sets `additionalProperties: false`",
    bad="- name: a\n  description: d\n  parameters: {type: object, properties: {}}\n",
    good="- name: a\n  description: d\n  parameters: {type: object, properties: {}, additionalProperties: false}\n",
    check=no_args_open,
)


def risky_parameter(context: LintContext) -> Iterator[Hit]:
    """A path, URL, command or SQL string with no `pattern`, `format`, `enum` or `maxLength`
    on a tool that writes is a traversal or injection surface."""
    bounds = ("pattern", "format", "enum", "maxLength", "const")
    for tool, node in property_nodes(context):
        if tool.permission is Permission.READ:
            continue
        if (
            node.schema.get("type") == "string"
            and RISKY_PARAM.search(str(node.property_name))
            and not any(b in node.schema for b in bounds)
        ):
            yield context.schema_hit(
                tool,
                node.pointer,
                f"parameter {node.property_name!r} of a {tool.permission} tool is unconstrained; add a pattern, format, enum or maxLength",
                key=True,
            )


TS318 = Rule(
    "TS318",
    "unbounded-risky-parameter",
    Severity.INFO,
    "Risky free-text parameters of write tools are constrained",
    bad="- name: a\n  description: d\n  permission: write\n  parameters: {type: object, properties: {path: {type: string}}}\n",
    good="- name: a\n  description: d\n  permission: write\n  parameters: {type: object, properties: {path: {type: string, pattern: '^[a-z/]+$'}}}\n",
    check=risky_parameter,
)
