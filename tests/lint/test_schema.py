"""TS3xx validity (lint/rules/schema.py): valid parameter schemas."""

from __future__ import annotations

import json

from tests.lint.helpers import assert_findings, lint_text, report


def test_root_must_be_an_object_without_a_union() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: string}}\n",
        ["TS301 /tools/0/parameters"],
        rule="TS301",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, anyOf: [{}]}}\n",
        ["TS301 /tools/0/parameters/anyOf"],
        rule="TS301",
    )


def test_invalid_schema_points_into_the_schema() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {n: {type: integr}}}}\n",
        ["TS302 /tools/0/parameters/properties/n/type"],
        rule="TS302",
    )


def test_a_schema_with_integers_beyond_64_bits_is_still_checked() -> None:
    """orjson refuses such integers; the check used to skip the whole schema."""
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: "
        "{n: {type: integr, maximum: 18446744073709551616}}}}\n",
        ["TS302 /tools/0/parameters/properties/n/type"],
        rule="TS302",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: "
        "{n: {type: integer, maximum: 18446744073709551616, minimum: -9223372036854775809}}}}\n",
        [],
        rule="TS302",
    )


def test_required_enum_default_and_draft3() -> None:
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {}, required: [pth]}}\n",
        ["TS303 /tools/0/parameters/required/0"],
        rule="TS303",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {m: {type: string, enum: [x, y, x]}}}}\n",
        ["TS310 /tools/0/parameters/properties/m/enum/2"],
        rule="TS310",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {n: {type: integer, default: x}}}}\n",
        ["TS311 /tools/0/parameters/properties/n/default"],
        rule="TS311",
    )
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {p: {type: string, required: true}}}}\n",
        ["TS314 /tools/0/parameters/properties/p/required"],
        rule="TS314",
    )


def test_catastrophic_patterns_and_patterns_re2_cannot_run() -> None:
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {"
        "p: {type: string, pattern: '^(a+)+$'}, q: {type: string, pattern: '^[a-z]+$'},"
        " r: {type: string, pattern: '(?=x)x'}}, patternProperties: {'^(x|xx)*$': {}}}}\n"
    )
    findings = lint_text(text)
    got = [(f.rule, f.pointer, f.severity.value) for f in findings if f.rule == "TS319"]
    assert got == [
        ("TS319", "/tools/0/parameters/properties/p/pattern", "error"),
        ("TS319", "/tools/0/parameters/properties/r/pattern", "warning"),
        ("TS319", "/tools/0/parameters/patternProperties/^(x|xx)*$", "error"),
    ]


def test_enum_duplicates_follow_json_equality() -> None:
    # 1 and 1.0 are one JSON value; true and 1 are two; objects compare in any key order
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: {m: {enum: [1, true, 1.0, {x: 1, y: [2]}, {y: [2], x: 1}, [1], [true]]}}}}\n",
        [
            "TS310 /tools/0/parameters/properties/m/enum/2",
            "TS310 /tools/0/parameters/properties/m/enum/4",
        ],
        rule="TS310",
    )


def test_a_long_enum_is_checked_in_one_pass() -> None:
    """40,000 values (a pairwise `in list` check took minutes; benchmarks/hostile.py times it)."""
    values = [f"v{i}" for i in range(40_000)] + ["v7"]
    findings = lint_text(
        "- {name: a, description: d, parameters: {type: object, properties: {m: {type: string, enum: ["
        + ", ".join(values)
        + "]}}}}\n",
        select=("TS310",),
    )
    assert [f.pointer for f in findings if f.rule == "TS310"] == [
        "/tools/0/parameters/properties/m/enum/40000"
    ]


def test_integers_a_double_cannot_hold_are_a_warning_where_they_sit() -> None:
    findings = lint_text(
        "- name: a\n  description: d\n  parameters:\n    type: object\n    properties:\n"
        "      id: {type: integer, minimum: 0, maximum: 18446744073709551615, default: 9007199254740993}\n"
        "      safe: {type: integer, maximum: 9007199254740991, minimum: -9007199254740991}\n"
        "      big_float: {type: number, maximum: 1.0e+300}\n"
        "      pick: {enum: [1, -9007199254740992, {deep: [12345678901234567890]}], const: 2e3}\n"
    )
    got = [(f.pointer, f.line, f.severity.value) for f in findings if f.rule == "TS320"]
    assert got == [
        ("/tools/0/parameters/properties/id/maximum", 7, "warning"),
        ("/tools/0/parameters/properties/id/default", 7, "warning"),
        ("/tools/0/parameters/properties/pick/enum/1", 10, "warning"),
        ("/tools/0/parameters/properties/pick/enum/2/deep/0", 10, "warning"),
    ]
    (first,) = [f for f in findings if f.rule == "TS320" and f.pointer.endswith("/maximum")]
    assert "18446744073709551615" in first.message and "18446744073709552000" in first.message


def test_an_integer_beyond_a_double_is_checked_not_a_crash() -> None:
    """orjson reads integers beyond 64 bits as doubles and refuses those beyond a double's
    range (1.8e308): TS302 raised out of `toolsel lint` on such a schema."""
    vast = "1" + "0" * 400
    assert_findings(
        "- {name: a, description: d, parameters: {type: object, properties: "
        f"{{n: {{type: integer, maximum: {vast}}}, m: {{type: integr, minimum: -{vast}}}}}}}}}\n",
        ["TS302 /tools/0/parameters/properties/m/type"],
        rule="TS302",
    )


# -- what each finding says, and where (line:col pins whether it points at a key) ---------


def test_ts301_names_the_root_type_and_points_at_a_root_union() -> None:
    """A tool without `parameters` is TS005's finding, not TS301's."""
    text = (
        "- {name: a, description: d, parameters: {type: string}}\n"
        "- {name: b, description: d, parameters: {properties: {}}}\n"
        "- {name: c, description: d, parameters: {type: object, oneOf: [{}], anyOf: [{}]}}\n"
        "- {name: e, description: d}\n"
    )
    assert report(text, "TS301") == [
        '/tools/0/parameters 2:43 error `parameters` root has type "string"; it must be `type: object`',
        "/tools/1/parameters 3:43 error `parameters` root has type null; it must be `type: object`",
        "/tools/2/parameters/oneOf 4:58 error `oneOf` at the root of `parameters` is rejected by OpenAI; move it into a property",
        "/tools/2/parameters/anyOf 4:71 error `anyOf` at the root of `parameters` is rejected by OpenAI; move it into a property",
    ]


def test_ts302_says_what_the_metaschema_wants_in_json_terms() -> None:
    """One message per place; values written as JSON, cut at 80 characters."""
    text = (
        "- name: a\n"
        "  description: d\n"
        "  parameters:\n"
        "    type: object\n"
        "    properties:\n"
        "      a: {type: integr}\n"
        "      b: {type: string, maxLength: -1}\n"
        "      c: {type: string, enum: 3}\n"
        "      d: {type: object, properties: [x]}\n"
        "      e: {type: object, required: [x, x]}\n"
        "      f: {type: integer, minimum: 0, multipleOf: 0}\n"
        "      g: {type: object, additionalProperties: 3}\n"
        "      h: {type: {x: 1}}\n"
        "      i: {minItems: 1.5}\n"
        "      j: {$anchor: 1bad}\n"
        "      k: {allOf: []}\n"
        "      l: {minLength: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx}\n"
        "      m: {type: [string, strin]}\n"
        "- {name: b, description: d}\n"
    )
    assert report(text, "TS302") == [
        '/tools/0/parameters/properties/a/type 7:19 error invalid JSON Schema: "integr" is not a JSON Schema type; use one of "array", "boolean", "integer", "null", "number", "object", "string"',
        "/tools/0/parameters/properties/b/maxLength 8:38 error invalid JSON Schema: -1 breaks `minimum: 0`",
        "/tools/0/parameters/properties/c/enum 9:33 error invalid JSON Schema: 3 must be an array",
        '/tools/0/parameters/properties/d/properties 10:39 error invalid JSON Schema: ["x"] must be an object',
        '/tools/0/parameters/properties/e/required 11:37 error invalid JSON Schema: ["x", "x"] breaks `uniqueItems: true`',
        "/tools/0/parameters/properties/f/multipleOf 12:52 error invalid JSON Schema: 0 is not valid here (the metaschema's `exclusiveMinimum`)",
        "/tools/0/parameters/properties/g/additionalProperties 13:49 error invalid JSON Schema: 3 must be an object or a boolean",
        '/tools/0/parameters/properties/h/type 14:19 error invalid JSON Schema: {"x": 1} is not a JSON Schema type; use one of "array", "boolean", "integer", "null", "number", "object", "string"',
        "/tools/0/parameters/properties/i/minItems 15:23 error invalid JSON Schema: 1.5 must be an integer",
        '/tools/0/parameters/properties/j/$anchor 16:22 error invalid JSON Schema: "1bad" breaks `pattern: "^[A-Za-z_][-A-Za-z0-9._]*$"`',
        "/tools/0/parameters/properties/k/allOf 17:20 error invalid JSON Schema: [] breaks `minItems: 1`",
        '/tools/0/parameters/properties/l/minLength 18:24 error invalid JSON Schema: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… must be an integer',
        '/tools/0/parameters/properties/m/type 19:19 error invalid JSON Schema: "strin" is not a JSON Schema type; use one of "array", "boolean", "integer", "null", "number", "object", "string"',
    ]


def test_ts302_checks_each_dialect_by_its_own_metaschema() -> None:
    """`items: [...]` is draft-07's tuple form and an error in 2020-12, the default."""
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {p: {items: [{type: string}]}}}}\n"
        "- {name: b, description: d, parameters: {$schema: 'http://json-schema.org/draft-07/schema#', type: object, properties: {p: {items: [{type: string}]}}}}\n"
        "- {name: c, description: d, parameters: {$schema: 'http://json-schema.org/draft-04/schema#', type: object, properties: {p: {type: number, exclusiveMinimum: 3}}}}\n"
    )
    assert report(text, "TS302") == [
        '/tools/0/parameters/properties/p/items 2:82 error invalid JSON Schema: [{"type": "string"}] must be an object or a boolean',
        '/tools/2/parameters/properties/p 4:126 error invalid JSON Schema: {"exclusiveMinimum": 3, "type": "number"} is not valid here (the metaschema\'s `dependencies`)',
        "/tools/2/parameters/properties/p/exclusiveMinimum 4:159 error invalid JSON Schema: 3 must be a boolean",
    ]


def test_ts303_names_the_missing_property_and_the_one_it_may_mean() -> None:
    """Entries that are not strings are TS302's finding."""
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {path: {type: string}}, required: [pth, 3, other, path]}}\n"
        "- {name: b, description: d, parameters: {type: object, properties: {p: {type: object, required: [q]}}}}\n"
        "- {name: c, description: d, parameters: {type: object, required: [q]}}\n"
    )
    assert report(text, "TS303") == [
        "/tools/0/parameters/required/0 2:105 error required property 'pth' is not in `properties` (did you mean 'path'?)",
        "/tools/0/parameters/required/2 2:113 error required property 'other' is not in `properties`",
    ]


def test_ts310_empty_repeated_and_case_folded_enums() -> None:
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {\n"
        "    e: {enum: []}, t: {type: string, enum: [a, b, a, a]}, c: {type: string, enum: [Read, read, READ, 1]},\n"
        "    n: {enum: 3}}}}\n"
    )
    assert report(text, "TS310") == [
        "/tools/0/parameters/properties/e/enum 3:17 error enum is empty; the model cannot choose any value",
        '/tools/0/parameters/properties/t/enum/2 3:53 error enum value "a" appears twice',
        '/tools/0/parameters/properties/t/enum/3 3:56 error enum value "a" appears twice',
        '/tools/0/parameters/properties/c/enum/1 3:92 warning enum values "Read" and "read" differ only by case',
        '/tools/0/parameters/properties/c/enum/2 3:98 warning enum values "Read" and "READ" differ only by case',
    ]


def test_ts311_checks_the_default_against_the_rest_of_its_schema() -> None:
    """A `$ref` is left out (not followed), and a default toolsel cannot check is no finding."""
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {\n"
        "    n: {type: integer, default: many}, m: {type: string, enum: [a, b], default: c},\n"
        "    r: {$ref: '#/$defs/s', default: 3}, u: {type: string, pattern: '(?=x)x', default: y},\n"
        "    ok: {type: integer, default: 3}}, $defs: {s: {type: string}}}}\n"
    )
    assert report(text, "TS311") == [
        '/tools/0/parameters/properties/n/default 3:35 warning default "many" is invalid: "many" is not of type "integer"',
        '/tools/0/parameters/properties/m/default 3:83 warning default "c" is invalid: "c" is not one of ["a", "b"]',
    ]


def test_ts314_points_at_the_draft3_flag_key() -> None:
    text = "- {name: a, description: d, parameters: {type: object, properties: {p: {type: string, required: true}, q: {type: string, required: false}, r: {type: object, required: []}}}}\n"
    assert report(text, "TS314") == [
        "/tools/0/parameters/properties/p/required 2:89 error `required: true/false` inside a property is ignored; list the name in the parent's `required` array",
        "/tools/0/parameters/properties/q/required 2:124 error `required: true/false` inside a property is ignored; list the name in the parent's `required` array",
    ]


def test_ts319_a_pattern_property_is_reported_at_its_key() -> None:
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {\n"
        "    p: {type: string, pattern: '^(a+)+$'}, r: {type: string, pattern: '(?=x)x'}, n: {type: string, pattern: 3},\n"
        "    s: {type: string, pattern: '^[a-z]+$'}},\n"
        "  patternProperties: {'^(x|xx)*$': {}, '(?<=a)b': {}, '^[a-z]+$': {}}}}\n"
    )
    assert report(text, "TS319") == [
        "/tools/0/parameters/properties/p/pattern 3:34 error pattern '^(a+)+$' can take exponential time on a crafted input: the same text can be read two ways around a repetition (at 'a'), and each more round doubles the ways a backtracking engine tries",
        "/tools/0/parameters/properties/r/pattern 3:73 warning pattern '(?=x)x' is not supported by RE2 (invalid perl operator: (?=); toolsel does not check inputs against it",
        "/tools/0/parameters/patternProperties/^(x|xx)*$ 5:25 error pattern '^(x|xx)*$' can take exponential time on a crafted input: the same text can be read two ways around a repetition (at 'x'), and each more round doubles the ways a backtracking engine tries",
        "/tools/0/parameters/patternProperties/(?<=a)b 5:42 warning pattern '(?<=a)b' is not supported by RE2 (invalid perl operator: (?<=); toolsel does not check inputs against it",
    ]


VAST = "1" + "0" * 400  # beyond a double's range


def test_ts320_says_what_a_double_makes_of_the_integer() -> None:
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {\n"
        "    big: {type: integer, maximum: 9007199254740993}, low: {type: integer, minimum: -9007199254740993},\n"
        "    edge: {type: integer, maximum: 9007199254740991, minimum: -9007199254740991},\n"
        f"    huge: {{type: integer, maximum: 100000000000000000000000}}, vast: {{type: integer, maximum: {VAST}}},\n"
        "    flag: {const: true}, nested: {x-list: [[9007199254740993]]}}}}\n"
    )
    assert report(text, "TS320") == [
        "/tools/0/parameters/properties/big/maximum 3:37 warning 9007199254740993 is outside ±(2^53 - 1): JavaScript and Go clients read it as 9007199254740992; pass integers this large as strings",
        "/tools/0/parameters/properties/low/minimum 3:86 warning -9007199254740993 is outside ±(2^53 - 1): JavaScript and Go clients read it as -9007199254740992; pass integers this large as strings",
        "/tools/0/parameters/properties/huge/maximum 5:38 warning 100000000000000000000000 is outside ±(2^53 - 1): JavaScript and Go clients read it as 1e+23; pass integers this large as strings",
        f"/tools/0/parameters/properties/vast/maximum 5:96 warning {VAST} is outside ±(2^53 - 1): JavaScript and Go clients read it as infinity; pass integers this large as strings",
        "/tools/0/parameters/properties/nested/x-list/0/0 6:47 warning 9007199254740993 is outside ±(2^53 - 1): JavaScript and Go clients read it as 9007199254740992; pass integers this large as strings",
    ]


#: A keyword draft-07 does not define (so its metaschema lets any value through) and an
#: invalid value for it in 2020-12: schemas that use one skip the fast draft-07 pass.
NEWER_KEYWORDS = {
    "$defs": {"x": {"type": "strin"}},
    "prefixItems": 3,
    "dependentRequired": {"x": [1]},
    "dependentSchemas": {"x": 3},
    "unevaluatedItems": 3,
    "unevaluatedProperties": 3,
    "$anchor": "1bad",
    "$dynamicRef": 3,
    "$dynamicAnchor": "1bad",
    "$recursiveRef": 3,
    "$recursiveAnchor": 3,
    "$vocabulary": {"x": 3},
    "contentSchema": 3,
    "minContains": -1,
    "maxContains": -1,
}


def test_keywords_newer_than_draft_07_get_the_full_2020_12_check() -> None:
    properties = {f"p{i}": {keyword: value} for i, (keyword, value) in enumerate(NEWER_KEYWORDS.items())}  # fmt: skip
    tool = {"name": "a", "description": "d", "parameters": {"type": "object", "properties": properties}}  # fmt: skip
    pointers = [f.pointer for f in lint_text(json.dumps([tool])) if f.rule == "TS302"]
    assert len(pointers) == len(NEWER_KEYWORDS)
    for i, keyword in enumerate(NEWER_KEYWORDS):
        assert any(p.startswith(f"/tools/0/parameters/properties/p{i}/{keyword}") for p in pointers)


def test_a_schema_naming_an_older_dialect_gets_that_dialects_check() -> None:
    """draft-04 wants `exclusiveMinimum: true` beside a `minimum`; draft-07 a number."""
    schema = {"type": "object", "properties": {"p": {"type": "number", "exclusiveMinimum": 3}}}
    older = {"$schema": "http://json-schema.org/draft-04/schema#", **schema}
    tools = [{"name": n, "description": "d", "parameters": s} for n, s in (("a", schema), ("b", older))]  # fmt: skip
    pointers = [f.pointer for f in lint_text(json.dumps(tools)) if f.rule == "TS302"]
    assert pointers == [
        "/tools/1/parameters/properties/p",
        "/tools/1/parameters/properties/p/exclusiveMinimum",
    ]


def test_ts320_writes_an_integer_of_21_digits_or_more_as_javascript_does() -> None:
    """JavaScript writes 1e21 and above in exponent form, smaller doubles in full."""
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {\n"
        "    at: {type: integer, maximum: 1000000000000000000000},\n"
        "    below: {type: integer, maximum: 900000000000000000001}}}}\n"
    )
    assert [m.split(" read it as ")[1] for m in report(text, "TS320")] == [
        "1e+21; pass integers this large as strings",
        "900000000000000000000; pass integers this large as strings",
    ]


def test_ts319_checks_a_nodes_pattern_beside_its_pattern_properties() -> None:
    text = "- {name: a, description: d, parameters: {type: object, pattern: '^(a+)+$', patternProperties: {'^x$': {}}}}\n"  # fmt: skip
    assert [f.pointer for f in lint_text(text) if f.rule == "TS319"] == [
        "/tools/0/parameters/pattern"
    ]


def test_ts302_quotes_values_as_written_and_cuts_them_past_80_characters() -> None:
    x78 = "x" * 78  # 80 characters with its quotes: kept whole
    text = (
        "- {name: a, description: d, parameters: {type: object, properties: {\n"
        f"    u: {{type: strïng}}, k: {{minLength: {x78}}}, c: {{minLength: {x78}y}}}}}}}}\n"
    )
    messages = [f.message for f in lint_text(text) if f.rule == "TS302"]
    assert messages == [
        'invalid JSON Schema: "strïng" is not a JSON Schema type; use one of "array", "boolean", "integer", "null", "number", "object", "string"',
        f'invalid JSON Schema: "{x78}" must be an integer',
        f'invalid JSON Schema: "{x78}… must be an integer',
    ]
