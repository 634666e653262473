"""Every ranking option, through every surface (issue 19: a forwarded option cannot be
lost): the CLI's `rank --format json` and the service's `POST /v1/rank` give the same
document for each, and each changes the answer from the default's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import ROOT, Cli
from tests.serve.conftest import local_client
from toolsel.serve.http import create_app
from toolsel.serve.models import RankRequest
from toolsel.serve.service import Service

QUERY = "delete the customer record from the database"

#: option -> (value in the JSON body, the same as CLI arguments)
OPTIONS: dict[str, tuple[Any, list[str]]] = {
    "method": ("bm25", ["--method", "bm25"]),
    "top": (2, ["-n", "2"]),
    "permission": ("read", ["--permission", "read"]),
    "categories": (["files"], ["--category", "files"]),
    "tags": (["git"], ["--tag", "git"]),
    "include_deprecated": (True, ["--include-deprecated"]),
    "min_score": (0.9, ["--min-score", "0.9"]),
    "min_strength": (0.6, ["--min-strength", "0.6"]),
    "explain": (True, ["--explain"]),
}

#: A prompt the option changes the answer to, where QUERY's would not (no deprecated tool
#: is about deleting a record).
QUERIES = {"include_deprecated": "deploy with the legacy script"}


@pytest.fixture(scope="module")
def client() -> Any:
    return local_client(create_app(Service([ROOT / "registries"], None)))


def test_the_table_names_every_option_the_service_reads() -> None:
    assert set(OPTIONS) | {"query", "with_deps"} == set(RankRequest.model_fields)


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_each_option_reaches_the_ranking_from_every_surface(
    option: str, client: Any, cli: Cli
) -> None:
    value, args = OPTIONS[option]
    query = QUERIES.get(option, QUERY)
    served = client.post("/v1/rank", json={"query": query, option: value}).json()
    default = client.post("/v1/rank", json={"query": query}).json()
    registry = str(ROOT / "registries")
    printed = json.loads(cli("rank", "-r", registry, query, *args, "-f", "json").stdout)
    assert served == printed, option
    assert served != default, f"{option} changed nothing"


def test_an_unknown_key_is_refused_with_a_suggestion(client: Any) -> None:
    answer = client.post("/v1/rank", json={"query": QUERY, "catgories": ["files"]})
    assert answer.status_code == 422
    assert "does not take `catgories`" in answer.json()["error"]
    assert "did you mean 'categories'" in answer.json()["error"]
