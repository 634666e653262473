"""The tokenizer: what a prompt's or a tool's words become as search terms."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsel.ranking.fields import FIELD_CAPS, FIELD_WEIGHTS, split_values, surface_words, tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the user's profile", ["user", "profile"]),
        ("the user’s profile", ["user", "profile"]),  # a typographic apostrophe
        ("don't delete the branch", ["delete", "branch"]),
        ("it doesn't build, and I can't see why", ["build", "see", "why"]),
        (
            "we're done, you'll see, they've gone, I'd go, I'm here",
            ["done", "see", "they", "gone", "go", "here"],
        ),
        ("Alice's repo and the users' files", ["alice", "repo", "user", "file"]),
    ],
)
def test_contractions_and_possessives_are_not_search_terms(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected


def test_quoted_letters_and_names_with_apostrophes_in_the_middle_stay() -> None:
    assert tokens("O'Brien's mode 's' or 't'") == ["o", "brien", "mode", "s", "t"]


@given(st.text(alphabet="abcdeILnst '’.,", max_size=40))
def test_no_term_is_left_from_an_apostrophe_suffix(text: str) -> None:
    # whatever the text, a word's 's, 't, 're, 've, 'll, 'd or 'm never becomes a term of its own
    with_suffix = tokens(text + " word's")
    assert with_suffix[-1:] == ["word"]


def test_surface_words_map_each_term_to_the_prompts_own_word() -> None:
    words = surface_words("open a pull request with my committed changes, billing's too")
    assert words["committ"] == "committed"
    assert words["change"] == "changes"
    assert words["bill"] == "billing"
    assert words["pull"] == "pull"
    assert "s" not in words


def test_surface_words_keep_the_first_word_of_a_stem() -> None:
    assert surface_words("changes changed change")["change"] == "changes"


def test_surface_words_split_names_as_the_tokenizer_does() -> None:
    assert surface_words("createIssue for read_file") == {
        "create": "create",
        "issue": "issue",
        "read": "read",
        "file": "file",
    }


def test_an_apostrophe_in_the_prompt_adds_nothing_to_any_score(write) -> None:  # type: ignore[no-untyped-def]
    from toolsel.ranking import load_index, rank_index

    path = write(
        "reg.yaml",
        """
        tools:
          - name: get_profile
            description: Returns the user's profile. Don't call it for teams.
          - name: list_teams
            description: Lists teams and each team's members.
        """,
    )
    index = load_index(path)
    assert not {"s", "t", "don"} & set(index.index.vocabulary)
    plain = rank_index(index, "show the user profile")
    possessive = rank_index(index, "don't show the user's profile")
    assert [(r.name, r.score, r.raw) for r in possessive.results] == [
        (r.name, r.score, r.raw) for r in plain.results
    ]


# -- fields weighted by what they mean: example values are data, not intent -----------------


@pytest.mark.parametrize(
    ("text", "said", "given"),
    [
        ("URL to go to, e.g. https://shop.test", "URL to go to,", "e.g. https://shop.test"),
        ("Library id (e.g., '/acme/widgets' or /acme/gears)", "Library id", "/acme/widgets"),
        ("The id. For example: 42 or 43. Required.", "The id. Required.", "42 or 43"),
        ("A name such as 'report.pdf'", "A name such as", "report.pdf"),
        ("Plain words only", "Plain words only", ""),
    ],
)
def test_a_parameter_description_gives_up_its_examples(text: str, said: str, given: str) -> None:
    intent, values = split_values(text, parameter=True)
    assert intent.split() == said.split()
    assert given in values


def test_a_tool_description_keeps_its_quoted_words_but_not_its_examples() -> None:
    """In a tool's own description, quotes and paths often name what it does (`git
    status`); only example phrases and URLs are values."""
    intent, values = split_values("Run `git status` (e.g. in ./repo). See https://x.test/doc")
    assert "`git status`" in intent and "e.g." not in intent and "https" not in intent
    assert "./repo" in values and "https://x.test/doc" in values


def _fields(folder: Path, schema: dict[str, object]) -> dict[str, list[str]]:
    import json

    from toolsel.ranking.fields import tool_fields
    from toolsel.registry.loader import load_registry

    path = folder / "tools.json"
    tool = {"name": "t", "description": "Does a thing.", "parameters": schema}
    path.write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
    registry = load_registry([path], use_cache=False)
    return tool_fields(registry.tools[0], registry)


def test_enums_examples_and_defaults_are_values_and_nested_names_are_parameters(
    tmp_path: Path,
) -> None:
    fields = _fields(
        tmp_path,
        {
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["turbo", "quiet"], "default": "quiet"},
                "where": {"type": "string", "examples": ["narnia"], "description": "Region."},
                "items": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"colour": {"type": "string"}}},
                },
            },
        },
    )
    assert {"turbo", "quiet", "narnia"} <= set(fields["values"])
    assert not {"turbo", "quiet", "narnia"} & set(fields["parameters"])
    assert {"mode", "region", "colour"} <= set(fields["parameters"])


def test_example_values_weigh_least_and_count_once() -> None:
    assert FIELD_WEIGHTS["values"] < FIELD_WEIGHTS["parameters"] <= FIELD_WEIGHTS["description"]
    assert FIELD_CAPS["values"] == 1 and FIELD_CAPS["name"] == 1
