"""Every command's `--format` choices, one `str` enum per command. Kept import-light: the
CLI builds its options from these at start-up, before any command's heavy modules load.
Each enum maps member by member to a renderer in that command's `render` module."""

from __future__ import annotations

import os
from enum import StrEnum


class LintFormat(StrEnum):
    AUTO = "auto"
    HUMAN = "human"
    JSON = "json"
    SARIF = "sarif"
    GITHUB = "github"
    JUNIT = "junit"
    GITLAB = "gitlab"

    def resolve(self) -> LintFormat:
        """`auto` is `github` under GitHub Actions (as yamllint does), else `human`."""
        if self is LintFormat.AUTO:
            return (
                LintFormat.GITHUB
                if os.environ.get("GITHUB_ACTIONS") == "true"
                else LintFormat.HUMAN
            )
        return self


class RankFormat(StrEnum):
    HUMAN = "human"
    JSON = "json"
    JSONL = "jsonl"
    TOOL_RESULT = "tool-result"  # select: only: the bare tool_result block


class EmitFormat(StrEnum):
    OPENAI = "openai"
    OPENAI_RESPONSES = "openai-responses"
    ANTHROPIC = "anthropic"
    MCP = "mcp"
    GEMINI = "gemini"


class ConvertFormat(StrEnum):
    """`toolsel convert --to`: toolsel's own registry format, or a provider's tool list."""

    TOOLSEL = "toolsel"
    OPENAI = "openai"
    OPENAI_RESPONSES = "openai-responses"
    ANTHROPIC = "anthropic"
    GEMINI = "gemini"
    MCP = "mcp"


class PlainFormat(StrEnum):
    """The choices of a command that prints for people or as JSON, nothing else."""

    HUMAN = "human"
    JSON = "json"


DepsFormat = PlainFormat
EvalFormat = PlainFormat
PromptFormat = PlainFormat


class GraphFormat(StrEnum):
    DOT = "dot"
    MERMAID = "mermaid"


class TestFormat(StrEnum):
    __test__ = False  # not a pytest test class

    HUMAN = "human"
    JSON = "json"
    JUNIT = "junit"


class ReplayFormat(StrEnum):
    HUMAN = "human"
    JSON = "json"
    JSONL = "jsonl"
    HTML = "html"


class StatsFormat(StrEnum):
    HUMAN = "human"
    JSON = "json"
    HTML = "html"


class InputFormat(StrEnum):
    AUTO = "auto"
    CLAUDE_CODE = "claude-code"
    STREAM_JSON = "stream-json"
    ANTHROPIC = "anthropic"
    OPENAI_CHAT = "openai-chat"
    OPENAI_RESPONSES = "openai-responses"
    CODEX_ROLLOUT = "codex-rollout"
    CODEX_EXEC = "codex-exec"
    GEMINI_CLI = "gemini-cli"
    GEMINI_STREAM_JSON = "gemini-stream-json"
    COPILOT_CLI = "copilot-cli"
    CURSOR_TRANSCRIPT = "cursor-transcript"
    CURSOR_STREAM_JSON = "cursor-stream-json"
    OPENHANDS = "openhands"
    PI = "pi"
    KIMI = "kimi"
    GROK_CLI = "grok-cli"
    DROID = "droid"
    ANTIGRAVITY = "antigravity"
    QWEN_CODE = "qwen-code"
    KIMI_CONTEXT = "kimi-context"
    GOOSE = "goose"
    OPENCODE = "opencode"
    CONTINUE = "continue"
    CLINE = "cline"
    VSCODE_CHAT = "vscode-chat"
    VSCODE_CHATREPLAY = "vscode-chatreplay"
    AMP = "amp"


class DiffFormat(StrEnum):
    HUMAN = "human"
    JSON = "json"
    MARKDOWN = "markdown"
    SARIF = "sarif"
    GITHUB = "github"
