"""TS209, TS213 (lint/rules/neighbours.py): confusable tools (TF-IDF similarity, both tools
named, same result in a worker) and descriptions that name a tool the registry lacks."""

from __future__ import annotations

import pytest

from tests.lint.helpers import assert_findings, lint_text

MIX_UP = """\
- name: delete_file
  description: Permanently removes an item from storage when the user asks to remove it.
- name: delete_record
  description: Permanently removes a record from storage when the user asks to remove it.
- name: get_weather
  description: Returns the forecast for a city.
"""


def test_the_delete_file_mix_up_names_both_tools() -> None:
    (finding,) = [f for f in lint_text(MIX_UP) if f.rule == "TS209"]
    assert "'delete_file'" in finding.message and "'delete_record'" in finding.message
    assert finding.tool == "delete_record" and finding.pointer == "/tools/1/description"


def test_mentioning_the_other_tool_disambiguates() -> None:
    text = MIX_UP.replace(
        "asks to remove it.\n- name: get",
        "asks to remove it; for files use delete_file.\n- name: get",
    )
    assert not [f for f in lint_text(text) if f.rule == "TS209"]


def test_threshold_is_configurable() -> None:
    assert [
        f for f in lint_text(MIX_UP, options={"overlap-threshold": 0.99}) if f.rule == "TS209"
    ] == []


def test_background_worker_gives_the_same_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    inline = [(f.tool, f.message) for f in lint_text(MIX_UP) if f.rule == "TS209"]
    monkeypatch.setattr("toolsel.lint.context.BACKGROUND_MIN_TOOLS", 2)
    background = [(f.tool, f.message) for f in lint_text(MIX_UP) if f.rule == "TS209"]
    assert background == inline and inline


def test_result_is_cached_by_content(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from toolsel.lint.engine import lint_registry
    from toolsel.registry import load_registry

    path = tmp_path / "r.yaml"
    path.write_text("tools:\n" + "\n".join("  " + line for line in MIX_UP.splitlines()) + "\n")
    registry = load_registry(path)
    first = [f.message for f in lint_registry(registry).findings if f.rule == "TS209"]

    def fail(*args: object) -> None:
        raise AssertionError("the cached result should have been used")

    monkeypatch.setattr("toolsel.lint.similarity.similar_pairs", fail)
    assert [f.message for f in lint_registry(registry).findings if f.rule == "TS209"] == first
    with pytest.raises(AssertionError, match="cached result"):
        lint_registry(registry, use_cache=False)


def test_early_worker_from_the_cli(cli, write, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    path = str(
        write("r.yaml", "tools:\n" + "\n".join("  " + line for line in MIX_UP.splitlines()) + "\n")
    )
    inline = json.loads(cli("lint", "--no-cache", "-f", "json", path).stdout)["findings"]
    monkeypatch.setattr("toolsel.lint.engine.EARLY_WORKER_BYTES", 1)
    early = json.loads(cli("lint", "--no-cache", "-f", "json", path).stdout)["findings"]
    assert early == inline and any(f["rule"] == "TS209" for f in early)


def test_a_preamble_many_tools_share_does_not_make_them_confusable() -> None:
    """A family of 12 of 42 tools repeats one preamble: its words are too rare to be
    dropped as common, yet they would make all 66 pairs of the family look alike."""
    from tests.lint.helpers import lint_text
    from toolsel.lint.similarity import similar_pairs

    preamble = (
        "This connector belongs to the Acme billing suite and needs a signed billing token. "
        "Requests are throttled per workspace, retried with exponential backoff, and logged "
        "for auditors under the compliance retention policy. Responses arrive as paginated "
        "JSON envelopes carrying cursor metadata, currency codes and locale hints. "
    )
    texts = [(preamble if i < 12 else "") + f"Alpha{i} beta{i}." for i in range(40)]
    texts.append(preamble + "It purges the edge cache for one zone immediately.")
    texts.append(preamble + "It purges the edge cache for one zone right now.")
    names = [f"tool_{i}" for i in range(40)] + ["purge_cache", "flush_cache"]
    registry = "".join(
        f"- name: {n}\n  description: {t!r}\n" for n, t in zip(names, texts, strict=True)
    )
    findings = [f for f in lint_text(registry) if f.rule == "TS209"]
    assert [f.tool for f in findings] == ["flush_cache"]  # one real pair, not 66 false ones
    assert {(i, j) for i, j, _ in similar_pairs(texts, 0.6)} == {(40, 41)}


def test_names_that_tell_tools_apart_and_shared_tails_are_not_confusion() -> None:
    """Issue 18's false alarms: pods_get/pods_delete (opposite verbs, each description says
    its own), nodes_top/pods_top (different objects), and a boilerplate tail."""
    tail = " Error Responses: 400: Bad request. 401: Unauthorized. 404: Not found."
    text = (
        "- name: pods_get\n  description: Get a Kubernetes pod in the cluster by its name.\n"
        "- name: pods_delete\n  description: Delete a Kubernetes pod in the cluster by its name.\n"
        "- name: nodes_top\n  description: Show CPU and memory use of the cluster nodes.\n"
        "- name: pods_top\n  description: Show CPU and memory use of the cluster pods.\n"
        f"- name: list_invoices\n  description: 'Lists the invoices of a customer.{tail}'\n"
        f"- name: cancel_subscription\n  description: 'Cancels a subscription at period end.{tail}'\n"
    )
    assert_findings(text, [], rule="TS209", select=("TS209",))
    # the classic mix-up is still noted: delete_file's description speaks of records
    confused = (
        "- name: delete_file\n  description: Deletes a record from the system permanently.\n"
        "- name: delete_record\n  description: Deletes a record from the system.\n"
    )
    assert_findings(confused, ["TS209 /tools/1/description"], rule="TS209", select=("TS209",))


def test_a_description_that_sends_the_agent_to_a_tool_it_cannot_call() -> None:
    assert_findings(
        "- {name: convert, description: 'Return the object the tracker''s expense_to_invoice takes.'}\n"
        "- {name: plan, description: 'It writes nothing: pass the JSON straight to entry_add.'}\n",
        ["TS213 /tools/0/description", "TS213 /tools/1/description"],
        rule="TS213",
    )
    fine = (
        "- {name: start_process, description: 'Starts it; call read_process_output for its log.'}\n"
        "- {name: biomcp.read_process_output, description: Reads the log.}\n"  # namespaced
        "- {name: retry, description: 'Use originating_flow_id (not the alert ID) when retrying.'}\n"
        "- {name: fetch, description: 'Use read-only mode, or use the `limit_rows` parameter.',"
        " parameters: {type: object, properties: {limit_rows: {type: integer}}}}\n"
    )
    assert_findings(fine, [], rule="TS213")


def test_an_action_of_an_action_based_tool_is_not_a_missing_tool() -> None:
    """An enum value of any parameter (GitLab's `gitlab_issue` with `action: note_update`)
    is an action the agent passes, not a tool it calls."""
    actions = (
        "- name: gitlab_issue\n"
        "  description: 'Manage issues. To edit a comment use note_update, then call note_get.'\n"
        "  parameters: {type: object, properties: {action: {type: string,"
        " enum: [note_update, note_get]}, params: {type: object}}}\n"
        "- name: gitlab_snippet\n"
        "  description: 'Manage snippets; the issue tool takes its comments via note_update.'\n"
    )
    assert_findings(actions, [], rule="TS213")
    missing = actions.replace("then call note_get", "then call note_fetch")
    assert_findings(missing, ["TS213 /tools/0/description"], rule="TS213")


def test_names_a_catalog_documents_in_its_descriptions_are_not_missing_tools() -> None:
    """A catalog without schemas (Docker's `tools.json`: only `action` and `params`) lists an
    action-based tool's actions and parameters in the description: a list item's head, or a
    list of names such as a returned object's fields."""
    documented = (
        "- name: gitlab_mr_review\n"
        "  description: |-\n"
        "    Review merge requests. For a batch review use draft_note_create first.\n"
        "    If ordering is requested, use order_by; pass the version to diff_version_get.\n"
        "    - draft_note_create: note*, position\n"
        "    - diff_version_get / diff_versions_list: version_id*\n"
        "    - note_list.order_by: created_at or updated_at\n"
        "- name: gitlab_merge_request\n"
        "  description: |-\n"
        "    Manage merge requests. Retrieve the project's default_branch first.\n"
        "    Returns: {id, name, path_with_namespace, default_branch}\n"
    )
    assert_findings(documented, [], rule="TS213")
    undocumented = documented.replace("- draft_note_create:", "- draft_note_add:")
    assert_findings(undocumented, ["TS213 /tools/0/description"], rule="TS213")


def test_a_tool_named_without_the_registrys_prefix_or_by_its_member() -> None:
    """`merge_request.update` names `gitlab_merge_request`'s action (the prefix every tool
    shares left out), and `work_item.get` the documented action `work_item_get`."""
    members = (
        "- name: gitlab_merge_request\n"
        "  description: 'Manage merge requests. To stop work use merge_request.update.'\n"
        "- name: gitlab_issue\n"
        "  description: |-\n"
        "    Manage issues; prefer work_item.get over a search.\n"
        "    - work_item_get: work_item_iid*\n"
    )
    assert_findings(members, [], rule="TS213")
    assert_findings(
        members.replace("work_item.get", "epic_item.get"),
        ["TS213 /tools/1/description"],
        rule="TS213",
    )


def test_fields_and_flags_named_in_prose_are_not_tools() -> None:
    """Timestamps (`created_at`), internal IDs (`user_list_iid`), parameter bags
    (`override_params`) and flags (`with_statistics`) are data, whatever the wording."""
    fields = (
        "- name: gitlab_project\n"
        "  description: 'Supports backdating via created_at; use user_list_iid to pick a list;"
        " override attributes via override_params; sizes come via with_statistics.'\n"
    )
    assert_findings(fields, [], rule="TS213")


def test_a_missing_tool_is_still_reported_beside_the_registrys_terms() -> None:
    """The terms do not hide a tool of another surface: `gitlab_issue_note_create` is not a
    tool of a registry whose `gitlab_issue` has the action `note_create`."""
    assert_findings(
        "- name: gitlab_issue\n"
        "  description: |-\n"
        "    Manage issues (use gitlab_issue_note_create for a non-threaded note).\n"
        "    - note_create: body*\n"
        "- name: gitlab_snippet\n"
        "  description: Manage snippets.\n",
        ["TS213 /tools/0/description"],
        rule="TS213",
    )


def test_reading_a_descriptions_names_stays_linear() -> None:
    """A long run of letters, or of `a/a/...` in a list item, is read once: the names a
    description documents are found without trying every split of the text."""
    from tests.fan_out import hard_timeout

    text = (
        "- name: blob\n"
        f"  description: 'Decode it, then call blob_reader. {'a' * 100_000}'\n"
        "- name: items\n"
        f'  description: "- {"a/" * 40}x then use items_reader"\n'
    )
    with hard_timeout(20):
        assert_findings(
            text, ["TS213 /tools/0/description", "TS213 /tools/1/description"], rule="TS213"
        )


def test_a_name_with_every_tools_prefix_is_a_tools_name_even_in_a_list() -> None:
    """A list of names documents terms, but `gitlab_tag_delete` carries the prefix all the
    registry's tools share: listed or not, it names a tool, and this registry has none."""
    assert_findings(
        "- name: gitlab_release\n"
        "  description: |-\n"
        "    Manage releases; to remove the tag use gitlab_tag_delete.\n"
        "    See also: gitlab_tag, gitlab_release, gitlab_tag_delete\n"
        "- name: gitlab_tag\n"
        "  description: Manage tags.\n",
        ["TS213 /tools/0/description"],
        rule="TS213",
    )
