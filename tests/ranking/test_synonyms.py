"""Words users say for what tools do (toolsel/ranking/synonyms.py), and what they change
in `hybrid`: a prompt reaches the tool whose words differ from its own, and an example
value in a parameter's description does not steer the ranking."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli
from toolsel.ranking.fields import stem
from toolsel.ranking.synonyms import GROUPS, ONE_WAY, WEIGHT, expansions, table


def test_groups_go_both_ways_and_one_way_words_do_not_come_back() -> None:
    alternatives = table()
    assert "delet" not in alternatives  # stems, as fields.tokens makes them
    assert stem("delete") in alternatives[stem("erase")]
    assert stem("erase") in alternatives[stem("delete")]
    assert stem("navigate") in alternatives["open"]
    assert "open" not in alternatives[stem("navigate")]
    for group in GROUPS:
        assert len(set(group)) == len(group) > 1
    assert all(targets for targets in ONE_WAY.values())
    # a stop word never becomes a term, so an entry for one would never be used
    from toolsel.ranking.fields import IGNORED

    assert not {w for g in GROUPS for w in g} & IGNORED
    assert not set(ONE_WAY) & IGNORED


def test_only_alternatives_the_registry_uses_and_the_prompt_did_not_say() -> None:
    vocabulary = {"delete": 0, "remove": 1, "file": 2}
    assert expansions(["erase", "file"], vocabulary) == {"delete": WEIGHT, "remove": WEIGHT}
    assert expansions(["delete", "remove"], vocabulary) == {}  # both said
    assert expansions(["frobnicate"], vocabulary) == {}


def test_a_rarer_alternative_counts_no_more_than_the_word_said() -> None:
    vocabulary = {"delete": 0, "remove": 1}
    idf = [4.0, 1.0]  # "delete" is rare here, "remove" common
    scaled = expansions(["remove"], vocabulary, idf)
    assert scaled == {"delete": WEIGHT * 1.0 / 4.0}
    assert expansions(["delete"], vocabulary, idf) == {"remove": WEIGHT}  # commoner: as is


def _registry(folder: Path, tools: list[dict[str, object]]) -> str:
    path = folder / "tools.json"
    path.write_text(json.dumps({"tools": tools}), encoding="utf-8")
    return str(path)


def _first(cli: Cli, registry: str, prompt: str) -> str:
    run = cli("rank", prompt, "-r", registry, "-m", "hybrid", "--format", "json")
    assert run.exit_code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    return str(results[0]["name"]) if results else ""


def test_a_prompt_reaches_a_tool_that_says_it_differently(cli: Cli, tmp_path: Path) -> None:
    registry = _registry(
        tmp_path,
        [
            {"name": "delete_note", "description": "Delete one by its title."},
            {"name": "list_notes", "description": "Every note: each note's title."},
            {"name": "goto_url", "description": "Navigate to a URL."},
            {"name": "take_snapshot", "description": "Capture the browser page in the browser."},
        ],
    )
    assert _first(cli, registry, "erase the shopping note") == "delete_note"
    assert _first(cli, registry, "get rid of my old note") == "delete_note"
    assert _first(cli, registry, "visit the status dashboard") == "goto_url"


def test_an_example_value_does_not_steer_the_ranking(cli: Cli, tmp_path: Path) -> None:
    """A word that only a parameter's example holds ("shop.test") counts for little: the
    tool whose description matches the prompt's intent ranks first."""
    url = {"type": "string", "description": "Where to go."}
    target = {
        "type": "string",
        "description": "Drop target, e.g. the upload zone of shop.test or shop.test/cart",
    }
    registry = _registry(
        tmp_path,
        [
            {
                "name": "browser_open",
                "description": "Open a web page in the browser and wait for it to load.",
                "parameters": {"type": "object", "properties": {"url": url}},
            },
            {
                "name": "browser_drop_files",
                "description": "Drop files onto an element of the current page.",
                "parameters": {"type": "object", "properties": {"target": target}},
            },
        ],
    )
    assert _first(cli, registry, "open shop.test and sign in") == "browser_open"


def test_each_alternative_is_looked_at_and_two_words_calling_for_one_add_up() -> None:
    """Found by mutation testing: a skipped alternative ("delete", not in the registry)
    must not end the search for the next ("remove"); and "erase" and "wipe" in one prompt
    both call for "delete"."""
    assert expansions(["erase"], {"remove": 0}) == {"remove": WEIGHT}
    assert expansions(["erase", "wipe"], {"delete": 0}) == {"delete": 2 * WEIGHT}
