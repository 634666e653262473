"""Shared fixtures: an isolated environment, a CLI runner that shows output on failure,
and helpers that write registries."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings as _hypothesis
from typer.testing import CliRunner

from toolsel.cli import app

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def benchmark(name: str) -> ModuleType:
    """`benchmarks/NAME.py`, loaded by path as the module `NAME_bench` (the benchmarks are
    scripts, not a package), once per process."""
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"{name}_bench"] = module
    spec.loader.exec_module(module)
    return module


SHARED = ROOT.parent / "shared"

# Hypothesis profiles: the default runs every property test in full (CI), derandomised so
# that a run is repeatable and a red build names a commit, not a draw; `explore` draws fresh
# examples, 1,000 where a test sets no count of its own (`make explore`: run it when touching
# a property's code, and pin each failure it finds with `@example`); `dev` runs fewer, for a quick loop (`make
# test-fast`). None has a deadline: a loaded machine must not turn a slow example into a
# failure.
_hypothesis.register_profile("ci", deadline=None, derandomize=True)
_hypothesis.register_profile("explore", deadline=None, max_examples=1000)
_hypothesis.register_profile("dev", deadline=None, max_examples=20)
_hypothesis.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
# `auto` (the default method) is fusion where toolsel[embed] is installed: the suite pins it
# to hybrid, so results do not depend on which extras are installed; tests of `auto` itself
# (tests/ranking/test_options.py) set TOOLSEL_EMBED themselves.
os.environ["TOOLSEL_EMBED"] = "0"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests over about 2 s alone are marked slow by name (SLOW), so the list stays in one
    place and `-m "not slow"` gives a quick loop."""
    for item in items:
        if item.nodeid.split("[")[0] in SLOW:
            item.add_marker(pytest.mark.slow)


#: Measured with `pytest --durations=40` (each over about 2 s on its own).
SLOW = frozenset(
    {
        "tests/test_sets.py::test_auto_with_embeddings_is_never_below_hybrid",
        "tests/events/test_dask.py::test_the_engine_run_equals_the_local_run",
        "tests/cli/test_live.py::test_a_hanging_server_obeys_mcp_timeout",
        "tests/cli/test_live.py::test_a_config_entry_that_cannot_be_started_is_said_and_the_rest_load",
        "tests/cli/test_live.py::test_lock_pins_a_live_server_and_check_fetches_it_anew",
        "tests/cli/test_live.py::test_a_server_that_fails_on_the_command_line_is_exit_2",
        "tests/cli/test_live.py::test_connect_loads_every_server_namespaced_and_a_failing_one_is_one_line",
        "tests/cli/test_live.py::test_env_reaches_the_server_and_bad_values_are_one_line",
        "tests/cli/test_live.py::test_rank_a_stdio_server_named_on_the_command_line",
        "tests/cli/test_live.py::test_replay_checks_calls_against_a_live_server",
        "tests/cli/test_live.py::test_the_list_is_cached_until_refresh",
        "tests/cli/test_live.py::test_a_project_configs_own_connect_allows_nothing_and_trust_does",
        "tests/sources/test_trust.py::test_the_token_goes_only_to_urls_the_user_named_or_trusted",
        "tests/live/test_fetch.py::test_a_chatty_servers_stderr_is_a_bounded_tail",
        "tests/live/test_fetch.py::test_a_server_that_crashes_is_one_reason_with_its_stderr",
        "tests/live/test_fetch.py::test_a_server_that_hangs_is_stopped_at_the_list_deadline",
        "tests/live/test_fetch.py::test_a_streamable_http_server_with_a_bearer_token",
        "tests/live/test_fetch.py::test_one_failure_leaves_the_others_listed_in_order",
        "tests/live/test_fetch.py::test_the_server_gets_the_environment_it_is_given",
        "tests/render/test_html_replay.py::test_the_numbers_on_the_page_are_the_json_output",
        "tests/render/test_html_replay.py::test_filters_narrow_the_problems_and_the_timeline",
        "tests/render/test_html_replay.py::test_a_problem_links_to_its_row_and_sub_agent_calls_sit_under_their_task",
        "tests/render/test_html_replay.py::test_a_hostile_transcript_runs_nothing_and_shows_every_text_as_text",
        "tests/render/test_html_replay.py::test_screenshots_at_two_widths_light_and_dark",
        "tests/render/test_html_stats.py::test_the_charts_and_tables_show_the_json_numbers",
        "tests/render/test_html_stats.py::test_from_a_usage_store_the_charts_over_time_follow_the_tool_filter",
        "tests/ranking/test_rank.py::test_ranking_is_the_same_in_processes_with_different_hash_seeds",
        "tests/serve/test_html_dashboard.py::test_the_dashboard_asks_for_the_token_then_shows_the_analytics",
        "tests/serve/test_connections.py::test_idle_and_slow_connections_are_closed",
        "tests/serve/test_connections.py::test_idle_sockets_never_lock_out_a_client_with_the_token",
        "tests/serve/test_mcp.py::test_mcp_stdio_answers_lines_it_cannot_read",
        "tests/serve/test_mcp.py::test_mcp_over_streamable_http_behind_the_token",
        "tests/serve/test_mcp.py::test_mcp_server_over_stdio_with_the_sdk_client",
        "tests/serve/test_hostile.py::test_forty_costly_validations_at_once_leave_the_server_answering",
        "tests/serve/test_cli.py::test_serve_answers_drains_on_sigterm_and_keeps_records",
        "tests/cli/test_evaluate.py::test_conversational_prompts_examples_lift_recall",
        "tests/replay/test_formats.py::test_replaying_any_mix_of_lines_conserves_calls_and_results",
        "tests/ranking/test_semantic.py::test_real_model_fusion_on_the_bundled_registry",
        "tests/ranking/test_semantic.py::test_real_model_cached_vectors_are_not_re_embedded",
        "tests/ranking/test_learned.py::test_learned_ranking_is_deterministic_and_in_range",
        "tests/registry/test_loader.py::test_fifty_megabyte_file_loads",
        "tests/ranking/test_rank.py::test_query_path_never_imports_scikit_learn",
        "tests/test_validate.py::test_unique_items_is_linear",
        "tests/test_validate.py::test_anchor_references_cost_no_more_than_pointers",
        "tests/serve/test_store.py::test_postgresql_reconnects_after_its_connections_are_killed",
        "tests/test_ci_recipes.py::test_pip_line_actions_steps_and_local_hook",
        "tests/test_ci_recipes.py::test_pre_commit_from_the_repository_at_a_commit",
    }
)


@pytest.fixture(autouse=True)
def _isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the user's cache or config, or depends on the terminal."""
    monkeypatch.setenv("TOOLSEL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("TOOLSEL_CONFIG_DIR", str(tmp_path_factory.mktemp("user-config")))
    monkeypatch.delenv("TOOLSEL_CONNECT", raising=False)
    monkeypatch.delenv("TOOLSEL_MCP_TOKEN", raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TOOLSEL_MAX_FILE_BYTES", raising=False)
    monkeypatch.delenv("TOOLSEL_NO_CACHE", raising=False)


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str


class Cli:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None) -> Run:
        result = self.runner.invoke(app, list(args), input=input, catch_exceptions=False)
        run = Run(result.exit_code, result.stdout, result.stderr)
        # shown by pytest only when the test fails
        print(
            f"$ toolsel {' '.join(args)}\n[exit {run.exit_code}]\n--- stdout\n{run.stdout}--- stderr\n{run.stderr}"
        )
        return run


@pytest.fixture
def cli() -> Cli:
    return Cli()


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """write("name.yaml", text) -> path, with the text dedented."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return _write


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def tools_document(snippet: str) -> str:
    """A rule example (a list of tool entries, or a whole document) as a registry file."""
    text = textwrap.dedent(snippet)
    if text.lstrip().startswith(("tools:", "version:", "categories:")):
        return text
    return "tools:\n" + textwrap.indent(text, "  ")


def requires_shared(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"needs {path}, which is not beside this checkout (../shared: CI has it; "
            "a clone alone does not)"
        )
    return path


# the stand-in embedder and the "extra not installed" switch, for any test that needs them
from tests.embed.fakes import fake_embedder, no_extra  # noqa: E402, F401
