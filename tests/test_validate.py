"""toolsel/validate.py: inputs are checked against tool schemas without fetching anything,
without running a pattern in a backtracking engine, and without passing what it cannot check."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fan_out import (
    DRAFT_07,
    KINDS,
    branching,
    chain,
    descending,
    fan_out,
    fan_out_value,
    hard_timeout,
    reference_dags,
    tree,
)
from toolsel.validate import STEP_FLOOR, STEPS_PER_VALUE, InputValidator, external_refs, nesting


def nested_schema(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def nested_value(levels: int) -> object:
    value: object = "v"
    for _ in range(levels):
        value = {"x": value}
    return value


@pytest.mark.parametrize(
    ("schema", "value", "rule", "words"),
    [
        (
            {"type": "object", "properties": {"n": {"type": "integer"}}},
            {"n": "1"},
            "invalid-input",
            "/n",
        ),
        (
            {"properties": {"p": {"type": "string", "pattern": "^(a+)+$"}}},
            {"p": "a" * 60 + "b"},
            "invalid-input",
            "does not match",
        ),
        (
            {"properties": {"p": {"$ref": "http://127.0.0.1:9/x.json"}}},
            {"p": 1},
            "external-ref",
            "never fetches",
        ),
        (
            {"properties": {"p": {"$ref": "file:///etc/passwd"}}},
            {"p": 1},
            "external-ref",
            "file:///etc/passwd",
        ),
        (
            {"properties": {"p": {"$ref": "#/$defs/missing"}}},
            {"p": 1},
            "not-checked",
            "points at nothing",
        ),
        ({"properties": {"c": {"$ref": "#"}}}, nested_value(150), "not-checked", "input too deep"),
        (nested_schema(120), nested_value(2), "not-checked", "schema too deep"),
        (
            {"properties": {"p": {"type": "string", "pattern": "(?=x)x"}}},
            {"p": "x"},
            "not-checked",
            "RE2",
        ),
        (
            {"type": "object", "properties": {"n": {"type": "intger"}}},
            {"n": 1},
            "not-checked",
            "not valid JSON Schema",
        ),
        ("not a schema", {}, "not-checked", "not a schema"),
        (
            {
                "type": "object",
                "additionalProperties": False,
                "patternProperties": {"^x_": {"type": "integer"}},
            },
            {"x_a": 1, "y": 2},
            "invalid-input",
            '"y" unexpected',
        ),
    ],
)
def test_what_cannot_pass(schema: object, value: object, rule: str, words: str) -> None:
    problem = InputValidator(schema).check(value)
    assert problem is not None and problem.rule == rule and words in problem.message, problem


def test_valid_inputs_pass_and_local_references_resolve() -> None:
    schema = {
        "type": "object",
        "properties": {
            "item": {"$ref": "#/$defs/item"},
            "tags": {"patternProperties": {"^t": {"type": "string"}}},
        },
        "$defs": {"item": {"type": "string", "pattern": "^[a-z]+$"}},
    }
    assert InputValidator(schema).check({"item": "abc", "tags": {"t1": "x"}}) is None
    assert InputValidator(schema).check({"item": "ABC"}).rule == "invalid-input"  # type: ignore[union-attr]


def test_external_references_are_refs_and_dynamic_refs_outside_the_schema() -> None:
    schema = {
        "$ref": "a.json",
        "allOf": [{"$dynamicRef": "b.json#meta"}, {"$ref": "#/$defs/x"}],
        "$recursiveRef": "c.json",  # not read here: only `#` is a recursive reference
        "properties": {"p": {"$ref": {"not": "a reference"}}, "q": {"$dynamicRef": "#m"}},
    }
    assert sorted(external_refs(schema)) == ["a.json", "b.json#meta"]
    assert external_refs({"$ref": "#"}) == [] and external_refs("no schema") == []


def test_nesting_is_counted_without_recursion() -> None:
    assert nesting(nested_value(50_000)) == 50_000 and nesting("x") == 0 and nesting([[], {}]) == 2


def test_replay_opens_no_socket_and_reads_no_file_outside_its_inputs(tmp_path: Path) -> None:
    """An audit hook records every socket and every file opened while `replay -r` checks
    calls against a schema that refers to the network and to a local file."""
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "string", "description": "SECRET-CONTENTS"}')
    registry = tmp_path / "r.yaml"
    registry.write_text(
        textwrap.dedent(f"""\
        tools:
          - name: fetcher
            description: d
            parameters:
              type: object
              properties:
                a: {{$ref: "http://127.0.0.1:9/schema.json"}}
                b: {{$ref: "file://{secret}"}}
                c: {{$ref: "{secret}"}}
        """)
    )
    transcript = tmp_path / "t.jsonl"
    call = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetcher", "arguments": json.dumps({"a": 1, "b": 2, "c": 3})}}]}  # fmt: skip
    transcript.write_text(json.dumps(call) + "\n")
    script = textwrap.dedent(f"""\
        import sys
        events = []
        def hook(event, args):
            if event.startswith("socket.") or event == "urllib.Request":
                events.append(event)
            if event == "open" and isinstance(args[0], str) and "secret" in args[0]:
                events.append("open " + args[0])
        sys.addaudithook(hook)
        from toolsel.cli import app
        try:
            app(["replay", "-r", {str(registry)!r}, {str(transcript)!r}, "-f", "json", "--no-cache"])
        except SystemExit:
            pass
        print("EVENTS", events, file=sys.stderr)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "EVENTS []" in run.stderr, run.stderr
    report = json.loads(run.stdout)["files"][0]
    assert [v["rule"] for v in report["violations"]] == ["external-ref"]
    assert "SECRET-CONTENTS" not in run.stdout


# -- bounded work (issue 17: `$ref` fan-out) ------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_a_schema_that_fans_out_is_too_costly_before_any_work(kind: str) -> None:
    """40 levels: the old code visited the leaf 2^40 times (days); now no validation runs."""
    with hard_timeout(60):
        validator = InputValidator(fan_out(40, kind))
        problem = validator.check(fan_out_value(kind))
    assert problem is not None and problem.rule == "not-checked", problem
    assert problem.message.startswith("schema too costly to validate: `$ref: ")
    assert "applies" in problem.message and "subschemas to one value" in problem.message


def test_below_the_limit_the_same_schema_is_checked() -> None:
    validator = InputValidator(fan_out(8))  # 2^10 subschemas for x
    assert validator.check({"x": "v"}) is None
    assert 'is not of type "string"' in validator.check({"x": 1}).message  # type: ignore[union-attr]


def test_an_in_place_loop_is_too_costly() -> None:
    schema = {"properties": {"p": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}}  # fmt: skip
    problem = InputValidator(schema).check({"p": 1})
    assert problem is not None and problem.rule == "not-checked"
    assert "#/$defs/a/allOf/0/$ref leads back to itself" in problem.message


def test_work_multiplied_by_the_input_stops_at_the_budget() -> None:
    """Every place applies a few subschemas, but a value 40 levels down gets 2^40: the
    budget, proportional to the 42 values of the input, stops it."""
    with hard_timeout(60):
        problem = InputValidator(descending(40)).check({"x": chain(40)})
    assert problem is not None and problem.rule == "not-checked"
    assert problem.message.startswith("schema too costly to validate (over ")
    assert problem.message.endswith(f"{STEP_FLOOR + 42 * STEPS_PER_VALUE:,} steps)")


def test_a_big_input_gets_a_budget_in_proportion() -> None:
    """A full binary tree of 2^13 leaves against definitions that refer to the next level
    twice: the work follows the input, so it passes, and a bad leaf deep inside is found."""
    validator = InputValidator(branching(13))
    assert validator.check({"x": tree(13)}) is None
    value = {"x": dict(tree(13))}
    node = value["x"]
    for _ in range(12):  # copy the path down the "b" side (the tree shares its subtrees)
        child = node["b"] = dict(node["b"])
        node = child
    node["b"] = "NOT-LOWERCASE"
    problem = validator.check(value)
    assert problem is not None and problem.rule == "invalid-input", problem
    assert problem.message.startswith("input at /x" + "/b" * 13 + " is invalid")


def test_many_values_under_a_union_pass() -> None:
    """20,000 items checked against a union of three objects: far over the floor, within
    the allowance per value."""
    item = {"anyOf": [
        {"type": "object", "properties": {"kind": {"const": k}, "n": {"type": "integer"}}, "required": ["kind"]}
        for k in ("a", "b", "c")
    ]}  # fmt: skip
    schema = {"type": "object", "properties": {"items": {"type": "array", "items": item}}}
    items = [{"kind": "abc"[i % 3], "n": i} for i in range(20_000)]
    assert InputValidator(schema).check({"items": items}) is None


def test_a_deadline_stops_the_check() -> None:
    validator = InputValidator(branching(6))
    value = {"x": tree(6)}
    assert validator.check(value, deadline=time.monotonic() + 3600) is None
    problem = validator.check(value, deadline=time.monotonic() - 1)
    assert problem is not None and problem.rule == "not-checked"
    assert problem.message.startswith("validation took too long")


def test_one_validator_shared_by_threads_keeps_a_budget_per_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four threads check at once (each waits for the others at its first pattern); each
    needs exactly the budget: a budget shared between them would be spent four times."""
    import threading

    import toolsel.validate as validate

    schema = {"type": "object", "properties": {"words": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}}}  # fmt: skip
    value = {"words": ["alpha", "beta", "gamma"] * 20}
    validator = InputValidator(schema)
    monkeypatch.setattr(validate, "STEPS_PER_VALUE", 0)
    needed = 0
    while True:  # the exact budget this check needs
        needed += 1
        monkeypatch.setattr(validate, "STEP_FLOOR", needed)
        if validator.check(value) is None:
            break
    barrier = threading.Barrier(4, timeout=30)
    waited: set[int] = set()
    real_search = validate.search

    def meet_then_search(pattern: str, text: str) -> bool:
        if threading.get_ident() not in waited:
            waited.add(threading.get_ident())
            barrier.wait()
        return real_search(pattern, text)

    monkeypatch.setattr(validate, "search", meet_then_search)
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(validator.check(value))) for _ in range(4)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [None] * 4


def test_a_nested_schema_keyword_does_not_escape_re2_or_the_budget() -> None:
    """jsonschema switches to the stock validator of a subschema's own `$schema`, which ran
    this pattern in Python's `re`: 2^40 steps on 40 a's and a b."""
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/p"}},
        "$defs": {"p": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "pattern": "^(a+)+$"}},
    }  # fmt: skip
    with hard_timeout(60):
        problem = InputValidator(schema).check({"p": "a" * 40 + "b"})
    assert (
        problem is not None
        and problem.rule == "invalid-input"
        and "does not match" in problem.message
    )
    with hard_timeout(60):
        problem = InputValidator({"$schema": DRAFT_07, **descending(40)}).check({"x": chain(40)})
    assert problem is not None and "too costly" in problem.message


def test_anchor_references_cost_no_more_than_pointers() -> None:
    """A `$ref` to an anchor crawled every metaschema and the whole schema again each time
    it was applied: 200 items against 8,000 definitions took 50 s."""
    defs = {f"d{i}": {"$anchor": f"a{i}", "type": "string"} for i in range(8000)}
    schema = {"type": "object", "properties": {"x": {"type": "array", "items": {"$ref": "#a0"}}}, "$defs": defs}  # fmt: skip
    validator = InputValidator(schema)
    with hard_timeout(60):
        for _ in range(20):
            assert validator.check({"x": ["v"] * 200}) is None
    assert validator.check({"x": ["v", 1]}).message.startswith("input at /x/1 is invalid")  # type: ignore[union-attr]


def test_unique_items_is_linear() -> None:
    """jsonschema compares every pair of unhashable items: 4,000 objects took 69 s."""
    validator = InputValidator({"type": "array", "uniqueItems": True})
    items = [{"k": i, "tags": [i, str(i)]} for i in range(50_000)]
    with hard_timeout(60):
        assert validator.check(items) is None
        problem = validator.check([*items, {"tags": [0, "0"], "k": 0.0}])
    assert problem is not None and problem.message.endswith(
        "items 0 and 50000 are equal (uniqueItems)"
    )
    assert validator.check([1, True]) is None and validator.check([[1], [1.0]]) is not None


def test_the_readme_and_ts320_state_the_limits_in_force() -> None:
    from tests.conftest import ROOT
    from toolsel.expansion import MAX_APPLIED
    from toolsel.lint import all_rules

    readme = " ".join(
        " ".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")).split()
    )
    assert f"applies over {MAX_APPLIED:,} subschemas to one value" in readme
    assert f"budget of {STEP_FLOOR:,} steps (keywords applied) plus {STEPS_PER_VALUE} per value" in readme  # fmt: skip
    assert f"fires over {MAX_APPLIED:,}" in " ".join(all_rules()["TS321"].doc.split())


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(reference_dags(), JSON_VALUES)
def test_any_reference_graph_and_value_get_an_answer(schema: dict, value: object) -> None:
    """Whatever the references multiply to, the check answers (never raises), and says
    "too costly" exactly when the expansion is over the limit."""
    from toolsel.expansion import MAX_APPLIED, measure

    problem = InputValidator(schema).check(value)
    costly = measure(schema).applied > MAX_APPLIED
    assert problem is None or problem.rule in ("invalid-input", "not-checked")
    assert costly == (problem is not None and problem.message.startswith("schema too costly to validate:"))  # fmt: skip
