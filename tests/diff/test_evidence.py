"""TD901 evidence: a recorded call is evidence only when OLD accepts it and NEW rejects it,
whatever order the checks run in (inputs of changed tools are validated under OLD only
when NEW rejects them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolsel.diff.evidence as evidence
from toolsel.diff.context import fingerprint
from toolsel.diff.model import Evidence, Side
from toolsel.errors import UsageError
from toolsel.registry import load_registry
from toolsel.registry.model import Registry


def registry(path: Path, maximum: int) -> Path:
    path.write_text(
        "tools:\n  - name: search\n    description: d\n    parameters:\n      type: object\n"
        "      properties:\n        limit: {type: integer, maximum: " + str(maximum) + "}\n"
    )
    return path


def session(path: Path, limits: list[object]) -> Path:
    uses = [{"type": "tool_use", "id": f"t{i}", "name": "search", "input": {"limit": limit}}
            for i, limit in enumerate(limits)]  # fmt: skip
    path.write_text(
        json.dumps({"type": "assistant", "message": {"role": "assistant", "content": uses}}) + "\n"
    )
    return path


@pytest.mark.parametrize("deferred", [evidence.MAX_DEFERRED, 0])
def test_only_calls_old_accepts_and_new_rejects_are_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deferred: int
) -> None:
    monkeypatch.setattr(evidence, "MAX_DEFERRED", deferred)  # 0: validate at once
    old = load_registry([registry(tmp_path / "old.yaml", 50)], use_cache=False)
    new = load_registry([registry(tmp_path / "new.yaml", 10)], use_cache=False)
    # t0 fine under both; t1 fine under OLD only; t2 and t3 rejected by both
    log = session(tmp_path / "s.jsonl", [5, 30, 80, "many"])
    result = evidence.transcript_evidence([str(log)], old, new)
    [change] = result.changes
    assert change.rule == "TD901"
    assert [e.message.split(":")[0] for e in change.evidence] == ["call t1"]


OLD = """\
tools:
  - name: search
    description: Search pages.
    parameters: {type: object, properties: {limit: {type: integer, maximum: 50}}}
  - name: gone
    description: Gone soon.
  - name: stable
    description: Stable tool.
    parameters: {type: object, properties: {q: {type: string}}, required: [q]}
  - name: dep
    description: Deprecated later.
"""
NEW = """\
tools:
  - name: stable
    description: Stable tool.
    parameters: {type: object, properties: {q: {type: string}}, required: [q]}
  - name: search
    description: Search pages.
    parameters: {type: object, properties: {limit: {type: integer, maximum: 10}}}
  - name: dep
    description: Deprecated later.
    deprecated: true
    deprecated_by: stable
"""


def sides(tmp_path: Path) -> tuple[Registry, Registry]:
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "new.yaml").write_text(NEW)
    return (
        load_registry(tmp_path / "old.yaml", use_cache=False),
        load_registry(tmp_path / "new.yaml", use_cache=False),
    )


def turns(path: Path, *lines: list[tuple[str, str, dict[str, object]]]) -> str:
    """One assistant message per line, each with its tool_use blocks (id, tool, input)."""
    path.write_text("".join(
        json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in uses]}}) + "\n"
        for uses in lines
    ))  # fmt: skip
    return str(path)


def test_every_call_old_accepts_and_new_rejects_one_change_per_tool_and_reason(
    tmp_path: Path,
) -> None:
    old, new = sides(tmp_path)
    log = turns(
        tmp_path / "a.jsonl",
        [("t1", "search", {"limit": 5})],  # fine under both
        [("t2", "search", {"limit": 30})],  # OLD only
        [("t3", "search", {"limit": 80}), ("t4", "stable", {})],  # both reject
        [("t5", "gone", {})],  # removed from NEW
        [("t6", "nothere", {})],  # unknown to both
        [("t7", "dep", {})],  # deprecated in NEW
        [("t8", "search", {"limit": 40})],  # OLD only
    )
    result = evidence.transcript_evidence([log], old, new)
    assert result.note == "replayed 8 calls in 1 transcript against OLD and NEW"
    assert [(c.rule, c.change_class.value, c.category.value, c.tool, c.pointer, c.message) for c in result.changes] == [
        ("TD901", "breaking", "params", "dep", "/calls/deprecated",
         "1 recorded call to 'dep' valid under OLD now fails under NEW (deprecated)"),
        ("TD901", "breaking", "params", "gone", "/calls/unknown-tool",
         "1 recorded call to 'gone' valid under OLD now fails under NEW (unknown-tool)"),
        ("TD901", "breaking", "params", "search", "/calls/invalid-input",
         "2 recorded calls to 'search' valid under OLD now fail under NEW (invalid-input)"),
    ]  # fmt: skip
    assert [list(c.evidence) for c in result.changes] == [
        [Evidence("transcript", log, 6, "call t7: 'dep' is deprecated; use 'stable' instead")],
        [Evidence("transcript", log, 4, "call t5: 'gone' is not in the registry")],
        [Evidence("transcript", log, 2, "call t2: input at /limit is invalid: 30 is more than the maximum of 10"),
         Evidence("transcript", log, 7, "call t8: input at /limit is invalid: 40 is more than the maximum of 10")],
    ]  # fmt: skip
    dep, gone, search = result.changes
    old_file, new_file = str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")
    assert (dep.old, dep.new) == (
        Side(old_file, 10, 11, "/tools/3/name", "dep"),
        Side(new_file, 8, 11, "/tools/2/name", "dep"),
    )
    assert (gone.old, gone.new) == (Side(old_file, 5, 11, "/tools/1/name", "gone"), None)
    assert search.fingerprint == fingerprint("TD901", "search", "/calls/invalid-input", 2, None)
    assert len({c.fingerprint for c in result.changes}) == 3


def test_each_transcript_is_judged_on_its_own(tmp_path: Path) -> None:
    """The same call ids in two files: OLD's verdict on one file is not the other's."""
    old, new = sides(tmp_path)
    first = turns(tmp_path / "1.jsonl", [("t1", "search", {"limit": 80}), ("t2", "gone", {})])
    second = turns(
        tmp_path / "2.jsonl", [("t1", "search", {"limit": 20})], [("t2", "stable", {"q": "x"})]
    )
    third = turns(tmp_path / "3.jsonl", [("t1", "nothere", {})])
    result = evidence.transcript_evidence([first, second, third], old, new)
    assert result.note == "replayed 5 calls in 3 transcripts against OLD and NEW"
    assert [(c.tool, [(e.file, e.line, e.message) for e in c.evidence]) for c in result.changes] == [
        ("gone", [(first, 1, "call t2: 'gone' is not in the registry")]),
        ("search", [(second, 1, "call t1: input at /limit is invalid: 20 is more than the maximum of 10")]),
    ]  # fmt: skip


def test_a_call_left_open_is_checked_at_the_end_of_its_file(tmp_path: Path) -> None:
    """A call with no result yet is checked when its file ends, under both sides."""
    old, new = sides(tmp_path)
    log = turns(
        tmp_path / "a.jsonl", [("t1", "search", {"limit": 20}), ("t2", "search", {"limit": 99})]
    )
    (change,) = evidence.transcript_evidence([log, log], old, new).changes
    assert [e.message.split(":")[0] for e in change.evidence] == ["call t1", "call t1"]


def test_an_alias_call_is_judged_by_its_tool(tmp_path: Path) -> None:
    old, new = sides(tmp_path)
    (tmp_path / "new.yaml").write_text(
        NEW.replace("  - name: search\n", "  - name: search\n    aliases: [find]\n")
    )
    (tmp_path / "old.yaml").write_text(
        OLD.replace("  - name: search\n", "  - name: search\n    aliases: [find]\n")
    )
    old = load_registry(tmp_path / "old.yaml", use_cache=False)
    new = load_registry(tmp_path / "new.yaml", use_cache=False)
    log = turns(tmp_path / "a.jsonl", [("t1", "find", {"limit": 20}), ("t2", "stable", {"q": 1})])
    result = evidence.transcript_evidence([log], old, new)
    assert [(c.tool, c.message) for c in result.changes] == [
        ("find", "1 recorded call to 'find' valid under OLD now fails under NEW (invalid-input)")
    ]


def test_no_transcript_call_is_no_change(tmp_path: Path) -> None:
    old, new = sides(tmp_path)
    log = turns(tmp_path / "a.jsonl", [("t1", "stable", {"q": "x"})])
    result = evidence.transcript_evidence([log], old, new)
    assert (result.changes, result.note) == (
        (),
        "replayed 1 calls in 1 transcript against OLD and NEW",
    )


def ranked_registry(path: Path, tools: list[tuple[str, str]]) -> Registry:
    path.write_text(
        "tools:\n" + "".join(f"  - name: {n}\n    description: {d}\n" for n, d in tools)
    )
    return load_registry(path, use_cache=False)


CASES = """\
cases:
  - name: mail
    prompt: send an email message to a recipient
    expect: [send_email, read_file]
    forbid: [mailer, delete_file]
    top_k: 1
  - prompt: list the files of a folder
    expect: [list_dir]
    forbid: [list_folder]
  - id: disk
    prompt: read a file from disk
    expect: [read_file]
    forbid: [delete_file]
    method: bm25
"""


@pytest.fixture
def ranked(tmp_path: Path) -> tuple[Path, Registry, Registry]:
    """OLD ranks send_email and list_dir first for their prompts; NEW adds mailer and
    list_folder, which rank first there, and blurs send_email's description."""
    shared = [("delete_file", "Delete a file from disk."), ("read_file", "Read a file from disk."),
              ("list_dir", "List the files of a folder.")]  # fmt: skip
    old = ranked_registry(
        tmp_path / "o.yaml", [("send_email", "Send an email message to a recipient."), *shared]
    )
    new = ranked_registry(tmp_path / "n.yaml", [
        ("send_email", "Post a note."), *shared, ("list_folder", "List the files of a folder, fast."),
        ("mailer", "Send an email message to a recipient quickly."),
    ])  # fmt: skip
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES)
    return cases, old, new


def test_cases_show_expected_tools_leaving_and_forbidden_ones_entering_the_top_k(
    ranked: tuple[Path, Registry, Registry],
) -> None:
    cases, old, new = ranked
    result = evidence.case_evidence(cases, old, new, top_k=1)
    assert result.note == "ranked 3 golden cases under OLD and NEW"
    mail, folder = "send an email message to a recipient", "list the files of a folder"
    assert [(c.rule, c.change_class.value, c.category.value, c.tool, c.pointer, c.message) for c in result.changes] == [
        ("TD202", "breaking", "selection", "send_email", "/cases/mail",
         "expected tool 'send_email' left the top 1 for 'mail': rank 1 -> 2"),
        ("TD202", "breaking", "selection", "mailer", "/cases/mail",
         "forbidden tool 'mailer' entered the top 1 for 'mail': rank not ranked -> 1"),
        ("TD202", "breaking", "selection", "list_dir", f"/cases/{folder}",
         f"expected tool 'list_dir' left the top 1 for {folder!r}: rank 1 -> 2"),
        ("TD202", "breaking", "selection", "list_folder", f"/cases/{folder}",
         f"forbidden tool 'list_folder' entered the top 1 for {folder!r}: rank not ranked -> 1"),
    ]  # fmt: skip
    assert [c.evidence for c in result.changes] == [
        (Evidence("case", str(cases), 2, f"{mail!r}: rank 1 -> 2"),),
        (Evidence("case", str(cases), 2, f"{mail!r}: rank not ranked -> 1"),),
        (Evidence("case", str(cases), 7, f"{folder!r}: rank 1 -> 2"),),
        (Evidence("case", str(cases), 7, f"{folder!r}: rank not ranked -> 1"),),
    ]
    send_email, mailer = result.changes[:2]
    assert (send_email.old.pointer, send_email.new.pointer, mailer.old) == (  # type: ignore[union-attr]
        "/tools/0/name", "/tools/0/name", None
    )  # fmt: skip
    assert mailer.new == Side(str(cases.parent / "n.yaml"), 12, 11, "/tools/5/name", "mailer")
    assert send_email.fingerprint == fingerprint("TD202", "send_email", "/cases/mail", mail, "left")
    assert mailer.fingerprint == fingerprint("TD202", "mailer", "/cases/mail", mail, "entered")


def test_a_case_s_own_top_k_wins_over_the_default(ranked: tuple[Path, Registry, Registry]) -> None:
    cases, old, new = ranked
    result = evidence.case_evidence(cases, old, new, top_k=5)
    assert [(c.tool, c.message.split(":")[0]) for c in result.changes] == [
        ("send_email", "expected tool 'send_email' left the top 1 for 'mail'"),
        ("mailer", "forbidden tool 'mailer' entered the top 1 for 'mail'"),
        (
            "list_folder",
            "forbidden tool 'list_folder' entered the top 5 for 'list the files of a folder'",
        ),
    ]
    assert evidence.case_evidence(cases, old, old).changes == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [("cases: []\n", "FILE: has no cases; expected `cases:` with a list of cases, like "
      "`cases: [{prompt: deploy the billing service, expect: [deploy_service]}]`"),
     ("cases:\n  - prompt: x\n    expect: [a]\n    top_k: 0\n  - prompt: y\n    expect: [b]\n",
      "FILE:4:12: `top_k` must be a whole number from 1 to 1000; fix the case file before using "
      "it as evidence")],
)  # fmt: skip
def test_a_case_file_with_no_case_or_a_problem_is_refused(
    ranked: tuple[Path, Registry, Registry], text: str, message: str
) -> None:
    cases, old, new = ranked
    cases.write_text(text)
    with pytest.raises(UsageError) as raised:
        evidence.case_evidence(cases, old, new)
    assert raised.value.message == message.replace("FILE", str(cases))


def test_what_succeeded_earlier_counts_under_old_too(tmp_path: Path) -> None:
    """`gated` requires `stable` under OLD, and also `search` under NEW: after `stable`
    succeeded, OLD accepts the call and NEW rejects it."""
    old_text = OLD + "  - name: gated\n    description: Gated.\n    requires: [stable]\n"
    new_text = NEW + "  - name: gated\n    description: Gated.\n    requires: [stable, search]\n"
    (tmp_path / "old.yaml").write_text(old_text)
    (tmp_path / "new.yaml").write_text(new_text)
    old = load_registry(tmp_path / "old.yaml", use_cache=False)
    new = load_registry(tmp_path / "new.yaml", use_cache=False)
    log = tmp_path / "a.jsonl"
    records = [
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "stable", "input": {"q": "x"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t2", "name": "gated", "input": {}}]}},
    ]  # fmt: skip
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    (change,) = evidence.transcript_evidence([str(log)], old, new).changes
    assert (change.tool, change.message, change.evidence) == (
        "gated",
        "1 recorded call to 'gated' valid under OLD now fails under NEW (requires)",
        (
            Evidence(
                "transcript",
                str(log),
                3,
                "call t2: 'gated' requires search to have succeeded first",
            ),
        ),
    )


SAME = '{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"'


def test_a_tool_with_the_same_parameters_gets_new_s_verdict_for_old(tmp_path: Path) -> None:
    """`stable` and `dep` keep their parameters (2020-12 schemas, which validation leaves as
    written): a call both sides reject is no evidence, a deprecation is."""
    plain = "    parameters: {type: object, properties: {q: {type: string}}, required: [q]}\n"
    stable = f'    parameters: {SAME}, "properties": {{"q": {{"type": "string"}}}}, "required": ["q"]}}\n'
    dep = f"    description: Deprecated later.\n    parameters: {SAME}}}\n"
    old_text, new_text = (
        text.replace(plain, stable).replace("    description: Deprecated later.\n", dep)
        for text in (OLD, NEW)
    )
    (tmp_path / "old.yaml").write_text(old_text)
    (tmp_path / "new.yaml").write_text(new_text)
    old = load_registry(tmp_path / "old.yaml", use_cache=False)
    new = load_registry(tmp_path / "new.yaml", use_cache=False)
    assert old.get("stable").parameters == new.get("stable").parameters  # type: ignore[union-attr]
    log = turns(
        tmp_path / "a.jsonl",
        [("t1", "stable", {})],  # both reject
        [("t2", "dep", {})],  # deprecated in NEW
        [("t3", "search", {"limit": 30})],  # OLD only
    )
    result = evidence.transcript_evidence([log], old, new)
    assert [(c.tool, [e.message for e in c.evidence]) for c in result.changes] == [
        ("dep", ["call t2: 'dep' is deprecated; use 'stable' instead"]),
        ("search", ["call t3: input at /limit is invalid: 30 is more than the maximum of 10"]),
    ]


FOLDER = (
    "cases:\n  - name: folder\n    prompt: list the files of a folder\n    expect: [list_dir]\n"
)
BASE = [("list_dir", "List the files of a folder."), ("rm", "Delete a file."),
        ("read_file", "Read a file from disk.")]  # fmt: skip


def with_listers(path: Path, count: int) -> Registry:
    """BASE and `count` tools that rank above list_dir for the folder prompt."""
    listers = [(f"list_folder_files_{i}", "List the files of a folder.") for i in range(count)]
    return ranked_registry(path, BASE + listers)


def test_the_default_top_k_is_five_and_one_case_is_one(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(FOLDER)
    old = ranked_registry(tmp_path / "old.yaml", BASE)
    result = evidence.case_evidence(cases, old, with_listers(tmp_path / "new.yaml", 5))
    assert result.note == "ranked 1 golden case under OLD and NEW"
    assert [c.message for c in result.changes] == [
        "expected tool 'list_dir' left the top 5 for 'folder': rank 1 -> 6"
    ]
    assert evidence.case_evidence(cases, old, with_listers(tmp_path / "new.yaml", 4)).changes == ()


def test_ranks_are_counted_to_fifty(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(FOLDER)
    old = ranked_registry(tmp_path / "old.yaml", BASE)
    ninth = evidence.case_evidence(cases, old, with_listers(tmp_path / "n9.yaml", 9), top_k=1)
    assert [c.message for c in ninth.changes] == [
        "expected tool 'list_dir' left the top 1 for 'folder': rank 1 -> 10"
    ]
    past = evidence.case_evidence(cases, old, with_listers(tmp_path / "n50.yaml", 50), top_k=1)
    assert [c.message for c in past.changes] == [
        "expected tool 'list_dir' left the top 1 for 'folder': rank 1 -> not ranked"
    ]
    assert [e.message for e in past.changes[0].evidence] == [
        "'list the files of a folder': rank 1 -> not ranked"
    ]


def test_a_deprecated_tool_still_ranks(tmp_path: Path) -> None:
    """Deprecation is TD4xx's to report: it does not move a tool out of a case's top k."""
    cases = tmp_path / "cases.yaml"
    cases.write_text(FOLDER)
    old = ranked_registry(tmp_path / "old.yaml", BASE)
    (tmp_path / "new.yaml").write_text(
        (tmp_path / "old.yaml")
        .read_text()
        .replace("a folder.\n", "a folder.\n    deprecated: true\n")
    )
    new = load_registry(tmp_path / "new.yaml", use_cache=False)
    assert new.get("list_dir").deprecated  # type: ignore[union-attr]
    assert evidence.case_evidence(cases, old, new, top_k=1).changes == ()


def test_each_case_ranks_by_its_own_method(tmp_path: Path) -> None:
    """A misspelt prompt: bm25 finds nothing on either side, the default (fuzzy-aware)
    method finds `rm` under OLD only."""
    old = ranked_registry(tmp_path / "old.yaml", BASE)
    new = ranked_registry(tmp_path / "new.yaml", [BASE[0], ("rm", "Remove a document."), BASE[2]])
    typo = "cases:\n  - name: typo\n    prompt: dlete fil\n    expect: [rm]\n"
    cases = tmp_path / "cases.yaml"
    cases.write_text(typo + "    method: bm25\n")
    assert evidence.case_evidence(cases, old, new, top_k=1).changes == ()
    cases.write_text(typo)
    assert [c.message for c in evidence.case_evidence(cases, old, new, top_k=1).changes] == [
        "expected tool 'rm' left the top 1 for 'typo': rank 1 -> not ranked"
    ]
