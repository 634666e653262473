"""TS3xx clarity (lint/rules/parameters.py): parameters that explain themselves."""

from __future__ import annotations

from tests.lint.helpers import assert_findings, lint_text

P = "- {{name: a, description: d, permission: {permission}, parameters: {{type: object, properties: {{{props}}}}}}}\n"


def params(props: str, permission: str = "read") -> str:
    return P.format(props=props, permission=permission)


def test_each_parameter_has_a_description_and_a_type() -> None:
    assert_findings(
        params("path: {type: string}"), ["TS304 /tools/0/parameters/properties/path"], rule="TS304"
    )
    assert_findings(
        params("n: {description: count}"), ["TS305 /tools/0/parameters/properties/n"], rule="TS305"
    )


def test_names_say_what_they_hold() -> None:
    assert_findings(
        params("id: {type: string}"), ["TS306 /tools/0/parameters/properties/id"], rule="TS306"
    )
    assert_findings(
        params("file-path: {type: string}"),
        ["TS307 /tools/0/parameters/properties/file-path"],
        rule="TS307",
    )


def test_choices_toggles_and_bounds() -> None:
    assert_findings(
        params("unit: {type: string, description: 'One of celsius, fahrenheit'}"),
        ["TS308 /tools/0/parameters/properties/unit"],
        rule="TS308",
    )
    assert_findings(
        params("on: {type: boolean}, off: {type: boolean}"),
        ["TS309 /tools/0/parameters/properties/off"],
        rule="TS309",
    )
    assert_findings(
        params("path: {type: string}", permission="write"),
        ["TS318 /tools/0/parameters/properties/path"],
        rule="TS318",
    )
    assert_findings(params("path: {type: string}", permission="read"), [], rule="TS318")


def test_size_depth_and_closed_no_argument_tools() -> None:
    many = ", ".join(f"p{i}: {{type: string}}" for i in range(21))
    assert_findings(params(many), ["TS312 /tools/0/parameters/properties"], rule="TS312")
    deep = "a: {type: object, properties: {b: {type: object, properties: {c: {type: object, properties: {d: {type: object, properties: {e: {type: object, properties: {f: {type: string}}}}}}}}}}}"
    assert_findings(
        params(deep),
        [
            "TS313 /tools/0/parameters/properties/a/properties/b/properties/c/properties/d/properties/e/properties/f"
        ],
        rule="TS313",
    )
    assert_findings(params(""), ["TS317 /tools/0/parameters"], rule="TS317")


def test_a_discriminator_or_a_property_described_in_its_branches_needs_no_description() -> None:
    from tests.lint.helpers import assert_findings

    text = (
        "- name: a\n  description: d\n  parameters:\n    type: object\n    properties:\n"
        "      kind: {const: search}\n"
        "      target:\n        anyOf:\n          - {type: string, description: A path.}\n"
        "          - {type: integer, description: A file id.}\n"
        "      plain: {type: string}\n"
    )
    assert_findings(text, ["TS304 /tools/0/parameters/properties/plain"], rule="TS304")


def _nested(path: list[str], leaf: str = "{type: string}") -> str:
    """A flow-YAML schema: object properties along `path`; `[]` in it is an array of items."""
    schema = leaf
    for name in reversed(path):
        if name == "[]":
            schema = f"{{type: array, items: {schema}}}"
        else:
            schema = f"{{type: object, properties: {{{name}: {schema}}}}}"
    return f"- name: a\n  description: d\n  parameters: {schema}\n"


def test_depth_counts_objects_not_array_hops() -> None:
    """Issue 34: a raw API struct five objects deep, arrays of objects between them, was told
    to flatten at 'depth 6'; arrays add no level of their own."""
    api = _nested(["options", "indexes", "[]", "key", "fields", "[]", "name"])
    assert_findings(api, [], rule="TS313")  # five objects: at the limit
    six = _nested(["a", "b", "[]", "c", "d", "e", "f"])
    assert_findings(
        six,
        ["TS313 /tools/0/parameters/properties/a/properties/b/items/properties/c/properties/d/properties/e/properties/f"],
        rule="TS313",
    )  # fmt: skip


def test_a_tree_is_not_told_to_flatten_under_the_provider_limit() -> None:
    """Issue 34: mind maps and org charts unrolled three levels of `children` were told to
    flatten; a tree is held to OpenAI strict's 10 levels, and told to cap or recurse."""
    tree = _nested(["data", "children", "[]", "children", "[]", "children", "[]", "name"])
    assert_findings(tree, [], rule="TS313")
    deep = _nested(["data"] + ["children", "[]"] * 10 + ["name"])
    findings = lint_text(deep)
    [finding] = [f for f in findings if f.rule == "TS313"]
    assert finding.pointer.count("/children") == 10
    assert "tree nests 11 levels" in finding.message and "flatten" not in finding.message


def test_a_recursive_ref_is_not_depth() -> None:
    text = (
        "- name: a\n  description: d\n  parameters:\n    type: object\n    properties:\n"
        "      node: {type: object, properties: {children: {type: array, items: {$ref: '#/properties/node'}}}}\n"
    )
    assert_findings(text, [], rule="TS313")
    assert_findings(
        text,
        ["TS316 /tools/0/parameters/properties/node/properties/children/items/$ref"],
        rule="TS316",
    )


def test_ts308_reads_value_lists_not_parameter_choices() -> None:
    """Issue 34: "Either a or b is required" is about which parameters to send; "a | b | c",
    "e.g. ['png', 'jpg']" and "One of: dc, residential" list a value's choices."""
    descriptions = [
        "Either a or b is required.",  # 0: about parameters
        "The id of one of the user's projects.",  # 1: not a list
        "Format: png | jpg | webp.",  # 2
        "Image type, e.g. ['png', 'jpg'].",  # 3
        "Proxy type. One of: dc, residential.",  # 4
        "Sort order, either 'asc' or 'desc'.",  # 5
    ]
    props = ", ".join(
        f"p{i}: {{type: string, description: {d!r}}}" for i, d in enumerate(descriptions)
    )
    text = f"- {{name: a, description: d, parameters: {{type: object, properties: {{{props}}}}}}}\n"
    assert_findings(
        text,
        [f"TS308 /tools/0/parameters/properties/p{i}" for i in (2, 3, 4, 5)],
        rule="TS308",
    )
