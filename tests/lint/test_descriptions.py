"""TS2xx (lint/rules/descriptions.py): descriptions the model can select by."""

from __future__ import annotations

from tests.lint.helpers import assert_findings


def test_empty_short_and_long_descriptions() -> None:
    assert_findings(
        "- {name: a, description: '  '}\n", ["TS201 /tools/0/description"], rule="TS201"
    )
    assert_findings(
        "- {name: a, description: Reads.}\n", ["TS202 /tools/0/description"], rule="TS202"
    )
    long = "- {name: a, description: '" + "word " * 210 + "'}\n"
    assert_findings(long, ["TS204 /tools/0/description"], rule="TS204")


def test_the_phrase_rules_share_one_check() -> None:
    text = "- {name: get_weather, description: Looks up the weather for a city.}\n"
    for rule in ("TS206", "TS207", "TS208"):
        assert_findings(text, [f"{rule} /tools/0/description"], rule=rule)
    told = "- {name: get_weather, description: 'Looks up the weather. Use this when asked. Does not forecast. Returns Celsius.'}\n"
    for rule in ("TS206", "TS207", "TS208"):
        assert_findings(told, [], rule=rule)
    # TS208 asks only read tools what they return
    write = "- {name: set_weather, permission: write, description: 'Use this when asked. Does not forecast.'}\n"
    assert_findings(write, [], rule="TS208")


def test_placeholders_and_examples() -> None:
    assert_findings(
        "- {name: a, description: TODO write this}\n", ["TS210 /tools/0/description"], rule="TS210"
    )
    assert_findings(
        "- {name: a, description: \"Runs. e.g. run(cmd='ls -la /tmp && echo done && cat f | grep foo')\"}\n",
        ["TS211 /tools/0/description"],
        rule="TS211",
    )


def test_placeholders_are_real_placeholder_forms_only() -> None:
    from tests.lint.helpers import lint_text

    flagged = {
        "TODO write this",
        "Reads a file. TODO: mention limits.",
        "todo: describe",
        "FIXME",
        "tbd",
        "Lorem ipsum dolor sit amet.",
        "XXX",
    }
    fine = {
        "Adds an item to the user's todo list.",
        "Marks a to-do as done.",
        "Lists todos, newest first.",
        "Returns the Todo entries of a project.",
    }
    for text in flagged | fine:
        findings = lint_text(f"- name: a_tool\n  description: {text!r}\n")
        hit = any(f.rule == "TS210" for f in findings)
        assert hit is (text in flagged), text


def test_boilerplate_around_the_name_is_reported_and_plain_restatements_are_not() -> None:
    from tests.lint.helpers import assert_findings

    assert_findings(
        "- {name: RestaurantBookingTool, description: Tool for booking restaurant}\n"
        "- {name: weather_v1, description: 'API Ninjas weather v1 API endpoint.'}\n",
        ["TS212 /tools/0/description"],
        rule="TS212",
    )  # 'ninjas' is more than the name: not boilerplate alone
    assert_findings(
        "- {name: get_current_weather, description: Get the current weather}\n", [], rule="TS212"
    )  # a restatement (TS205, info), not boilerplate


def test_a_marker_named_as_a_search_term_or_quoted_is_not_a_placeholder() -> None:
    """Issue 34: a 6,549-character description gave "find TODO comments" as a search
    example and was called placeholder text. A placeholder is a note that is the whole of a
    short description, or at least half of a long one."""
    from toolsel.lint.rules.descriptions import is_placeholder

    long_and_real = "Searches file contents with ripgrep and returns matching lines. " * 40
    assert not is_placeholder(long_and_real + 'Example: pattern "TODO" to find TODO comments.')
    assert not is_placeholder("Search the code base, e.g. find TODO comments or FIXME markers.")
    assert not is_placeholder("Lists lines that contain `TODO:` in the repository's files.")
    assert not is_placeholder("Formats a phone number as +1 XXX-XXX-XXXX for display.")
    assert not is_placeholder(long_and_real + "TODO: mention the limits.")  # one stray note
    assert is_placeholder("TODO: describe this tool. " * 20)  # long, but only notes
    assert is_placeholder("Reads the user's file. TODO: don't forget the limits.")
    assert is_placeholder("Lorem ipsum dolor sit amet, consectetur adipiscing elit.")
    assert not is_placeholder("Returns the text 'lorem ipsum' used as filler in mock-ups.")


def test_ts211_an_inline_example_ends_with_its_sentence() -> None:
    """myclawn's send_file: one "for example" clause in a five-sentence description is not
    73% examples (the match ran to the end of the line)."""
    described = (
        "- name: send_file\n  description: Puts a text file on the desktop so its agent can"
        " read it, for example a list of contacts, a draft, or data to enter. Use it instead"
        " of pasting long text into a task. A file with the same name is replaced. Text only,"
        " up to 2 MB. Returns the saved name and path.\n"
    )
    assert_findings(described, [], rule="TS211")
    mostly = "- name: run\n  description: 'Runs. For example: run ls -la /tmp and echo done'\n"
    assert_findings(mostly, ["TS211 /tools/0/description"], rule="TS211")
