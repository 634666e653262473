"""`toolsel stats PATH... --misroutes [-r REGISTRY]`: where the agent picked the wrong tool."""

from __future__ import annotations

from pathlib import Path

from toolsel.cli.common import check_output, output
from toolsel.registry.model import Registry
from toolsel.render.formats import StatsFormat


def misroutes_of(
    paths: list[str],
    registry: Registry | None,
    *,
    jobs: int,
    window: int,
    output_format: StatsFormat,
    output_file: Path | None,
) -> None:
    """Find the misroutes in the transcripts, rank each pair's requests when there is a
    registry, and render them."""
    from toolsel.cli.replay import progress_bar_for
    from toolsel.misroutes import find_misroutes
    from toolsel.render.misroutes import MISROUTES_RENDERERS

    check_output(output_file, paths)
    with progress_bar_for(paths, None) as progress:
        report = find_misroutes(paths, registry, window=window, jobs=jobs, progress=progress)
    with output(output_file, inputs=paths) as out:
        MISROUTES_RENDERERS[output_format](report, out)
