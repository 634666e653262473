"""`toolsel.cases`: one reader for the case files of `test`, `eval` and `learn --cases`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from toolsel.cases import read_cases
from toolsel.cases.model import Case, CaseFormat, NotCases
from toolsel.errors import UsageError
from toolsel.ranking.options import Method
from toolsel.registry.permission import Permission

ONE = {"prompt": "deploy the billing service", "expect": ["deploy_service"]}

SAME_CASES = {
    "c.yaml": "cases:\n  - prompt: deploy the billing service\n    expect: [deploy_service]\n",
    "bare.yml": "- prompt: deploy the billing service\n  expect: deploy_service\n",
    "c.json": json.dumps({"cases": [ONE]}, indent=2),
    "list.json": json.dumps([ONE]),
    "c.jsonl": json.dumps(ONE) + "\n",
    "old.jsonl": '{"query": "deploy the billing service", "expected": ["deploy_service"]}\n',
    "no-suffix": json.dumps(ONE) + "\n",
    "yaml.txt": "cases:\n  - prompt: deploy the billing service\n    expect: [deploy_service]\n",
}


@pytest.mark.parametrize("name", list(SAME_CASES))
def test_every_format_reads_to_the_same_case(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(SAME_CASES[name], encoding="utf-8")
    found = read_cases(path)
    assert [(c.prompt, c.expect) for c in found.cases] == [
        ("deploy the billing service", ("deploy_service",))
    ]
    assert not found.problems


def test_the_other_spelling_is_read_with_one_note(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text(SAME_CASES["old.jsonl"] * 3, encoding="utf-8")
    found = read_cases(path)
    assert len(found.cases) == 3
    assert len(found.notes) == 1
    assert (
        "uses `query` and `expected`, the other spelling of `prompt` and `expect`"
        in (found.notes[0])
    )


def test_every_key_is_read(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "cases:\n"
        "  - {prompt: p, expect: [a], forbid: [b], top_k: 3, method: bm25, permission: write,"
        " id: x1, name: the name}\n",
        encoding="utf-8",
    )
    (case,) = read_cases(path).cases
    assert case == Case(
        "p", ("a",), ("b",), 3, Method.BM25, Permission.WRITE, "x1", "the name", 2, 5
    )
    assert case.label == "the name"


def test_the_bundled_case_files_use_the_documented_keys() -> None:
    for path in (ROOT / "tests" / "selection").glob("*.eval.jsonl"):
        found = read_cases(path)
        assert found.cases and not found.problems and not found.notes, path
    golden = read_cases(ROOT / "tests" / "selection" / "registries.yaml")
    assert golden.cases and not golden.problems and not golden.notes


#: A wrong file, and what its one error must say (file:line:col where there is one, and
#: which format was expected).
WRONG: dict[str, tuple[str | bytes, list[str]]] = {
    "empty.jsonl": ("", ["empty.jsonl: not a case file: it is empty", "expected one case a line"]),
    "blank.yaml": ("\n  \n", ["blank.yaml: not a case file: it is empty", "expected `cases:`"]),
    "binary.jsonl": (b"\x00\x01\x02" * 50, ["not a case file: binary data", "expected one case"]),
    "latin1.yaml": (b"cases:\n  - prompt: caf\xe9\n", ["latin1.yaml:2:16: not valid UTF-8"]),
    "yaml.jsonl": (
        SAME_CASES["c.yaml"],
        ["yaml.jsonl:1:1: not JSON lines", "looks like YAML", "name a YAML case file .yaml"],
    ),
    "lines.yaml": (
        json.dumps(ONE) + "\n" + json.dumps(ONE) + "\n",
        ["lines.yaml:2:1: not YAML", "looks like JSON lines", "expected `cases:`", ".jsonl"],
    ),
    "list.jsonl": (json.dumps([ONE]), ["list.jsonl:1:1: not JSON lines", "name a JSON case"]),
    "registry.yaml": (
        "tools:\n  - name: a\n    description: b\n",
        ["not a case file: it looks like a tool registry", "expected `cases:`"],
    ),
    "tools.json": (
        json.dumps([{"name": "a", "description": "b", "inputSchema": {}}]),
        ["not a case file: it looks like a list of tool definitions", "expected a list of cases"],
    ),
    "transcript.jsonl": (
        '{"type": "user", "message": {"role": "user", "content": "hi"}}\n',
        ["not a case file: it looks like a transcript", "expected one case a line"],
    ),
    "keys.jsonl": (
        '{"prompt": "x", "expekt": ["a"]}\n',
        ["keys.jsonl:1:17: unknown key 'expekt' (did you mean 'expect'?)", "expected one case"],
    ),
    "other.jsonl": (
        '{"text": "x", "tools": ["a"]}\n',
        ["not a case file: no line has `prompt` or `expect`", "expected one case a line"],
    ),
    "broken.yaml": ("cases: [\n", ["broken.yaml:2:1: cannot parse it as YAML"]),
    "nocases.yaml": ("cases: []\n", ["nocases.yaml: has no cases", "expected `cases:`"]),
    "strings.yaml": ("cases: [a, b]\n", ["not a case file: a list of strings", "expected"]),
}


def _wrong(tmp_path: Path, name: str) -> Path:
    content = WRONG[name][0]
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def _error(path: Path) -> str:
    """The one error line a command shows for the file."""
    try:
        found = read_cases(path)
    except UsageError as error:
        return str(error)
    if not found.cases:
        return str(found.no_cases())
    raise AssertionError(f"{path.name} was read: {found}")


@pytest.mark.parametrize("name", list(WRONG))
def test_a_wrong_file_is_one_error_that_says_what_was_expected(name: str, tmp_path: Path) -> None:
    message = _error(_wrong(tmp_path, name))
    assert "\n" not in message
    for part in WRONG[name][1]:
        assert part in message


def test_a_directory_and_a_missing_file_are_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a directory"):
        read_cases(tmp_path)
    with pytest.raises(UsageError, match="cannot read: no such file"):
        read_cases(tmp_path / "nope.jsonl")


def test_not_cases_is_a_usage_error() -> None:
    assert issubclass(NotCases, UsageError)


def test_a_bad_case_among_good_ones_is_a_problem_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(
        json.dumps(ONE) + "\n{not json\n" + '{"prompt": "", "expect": ["a"]}\n'
        '{"prompt": "p", "expect": ["a"], "top_k": 0}\n'
        '{"prompt": "p", "expect": ["a"], "method": "hybird"}\n' + json.dumps(ONE) + "\n",
        encoding="utf-8",
    )
    found = read_cases(path)
    assert len(found.cases) == 2 and found.format is CaseFormat.JSON_LINES
    located = [p.located(found.file) for p in found.problems]
    assert located[0].startswith(f"{found.file}:2:2: not JSON")
    assert located[1] == f"{found.file}:3:12: `prompt` must be a non-empty string"
    assert located[2].startswith(f"{found.file}:4:") and "`top_k` must be" in located[2]
    assert "did you mean 'hybrid'" in located[3]
    assert str(found.refusal("stop")).startswith(located[0] + " (the first of 4 problems); stop")


def test_a_yaml_problem_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "cases:\n  - prompt: ok\n    expect: [a]\n  - prompt: x\n    expect: [a]\n"
        "    expect: [b]\n",
        encoding="utf-8",
    )
    (problem,) = read_cases(path).problems
    assert (problem.line, problem.column) == (6, 5)
    assert "'expect' given twice" in problem.message


@settings(max_examples=80, deadline=None)
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".yaml", ".json", ".jsonl", ""]))
def test_any_bytes_are_cases_or_one_usage_error(data: bytes, suffix: str, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("c") / f"cases{suffix}"
    path.write_bytes(data)
    try:
        found = read_cases(path)
    except UsageError as error:
        assert "\n" not in str(error)
        return
    for problem in found.problems:
        assert problem.line >= 1 and "\n" not in problem.message
