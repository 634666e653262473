"""Ranking tools against a prompt. `rank_tools` is the entry point."""

from toolsel.ranking.core import RankedTool, RankResult, rank_tools

__all__ = ["RankResult", "RankedTool", "rank_tools"]
