"""What every command shares: the registry and cache options, the one place expected
failures become a message and an exit code, and where output goes."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from toolsel.errors import ExitCode, ToolselError, UsageError

if TYPE_CHECKING:
    import numpy as np

    from toolsel.cases.model import CaseFile, CaseProblem
    from toolsel.ranking.options import Method
    from toolsel.ranking.prepared import PreparedIndex
    from toolsel.registry.model import Registry
    from toolsel.registry.paths import FileList

F = TypeVar("F", bound=Callable[..., Any])

RegistryOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--registry",
        "-r",
        help="Registry file or directory (repeatable). Default: [tool.toolsel] registry, else ./registries/.",
    ),
]
CheckRegistryOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--registry",
        "-r",
        metavar="PATH",
        help="Check calls against this registry (repeatable). Default: the project's ([tool.toolsel] registry, or ./registries/ when it exists); none otherwise.",
    ),
]
ReportFileOption = Annotated[
    Path | None,
    typer.Option("--output-file", "-o", help="Write the report here instead of stdout."),
]
NoRegistryOption = Annotated[
    bool, typer.Option("--no-registry", help="Do not check calls against any registry.")
]
NamespaceOption = Annotated[
    bool,
    typer.Option(
        "--namespace",
        help="Name each file's tools as Claude Code names MCP tools: mcp__<file name>__<tool> (-r SERVER=PATH names the server).",
    ),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Do not read or write the parse cache.")
]
#: --jobs beyond this is refused: each job is a process of its own.
MAX_JOBS = 256
JobsOption = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        min=1,
        max=MAX_JOBS,
        help="Processes reading transcripts at once (default: the cores available; 1: one; "
        f"at most {MAX_JOBS}, and one per chunk of files). The output is the same for any N.",
    ),
]
SinceOption = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="TIME",
        help="Skip transcript files last modified before TIME: an ISO 8601 date or time "
        "(UTC unless it says), or an age such as 7d, 12h.",
    ),
]


def jobs_wanted(jobs: int | None) -> int:
    """--jobs N, or the cores this process may use."""
    if jobs is not None:
        return jobs
    from toolsel.replay.parallel import available_cores

    return available_cores()


def since_time(value: str | None, option: str = "--since") -> float | None:
    """--since TIME as a POSIX time; a usage error says what is wrong with it."""
    if value is None:
        return None
    from toolsel.timeparse import parse_time

    try:
        return parse_time(value)
    except ValueError as error:
        raise UsageError(f"{option}: {error}") from None


def handle_errors(command: F) -> F:
    """Turn expected failures into one line on stderr plus the documented exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            _require_utf8(kwargs)
            try:
                outcome = command(*args, **kwargs)
            except typer.Exit:
                _flush_stdout()  # keeps the command's exit code
                raise
            _flush_stdout()
            return outcome
        except ToolselError as error:
            from toolsel.render.escape import visible

            typer.echo(f"toolsel: error: {visible(describe(error))}", err=True)
            raise typer.Exit(int(error.exit_code)) from None
        except BrokenPipeError:
            _reader_gone()
            raise typer.Exit(int(ExitCode.OK)) from None
        except KeyboardInterrupt:
            typer.echo("toolsel: interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _flush_stdout() -> None:
    """Flush stdout while the command's errors are still handled here: a reader that went
    away (`| head`) after reading what it wanted is not an error (exit 0, or the command's
    own code), where click would make the final flush's broken pipe exit 1."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_gone()
    except (OSError, ValueError):
        pass


def _reader_gone() -> None:
    """The reader of stdout went away (`| head`): nothing left to say, and nothing may fail
    at exit either. Python flushes stdout once more when it exits, which would fail again
    and turn exit 0 into 1 (the Python docs' recipe: point stdout at /dev/null)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (a test's captured stdout)
        pass
    sys.stderr.close()


#: Text parameters that name files: a file name may hold any bytes (shown as \xNN).
PATH_PARAMETERS = frozenset({"paths"})


def _require_utf8(params: dict[str, Any]) -> None:
    """A text argument (a prompt, a tool name, an option value) with bytes that are not
    UTF-8 is refused up front, instead of failing deep inside as a traceback."""
    from toolsel.inputs import undecodable_byte

    for name, value in params.items():
        if name in PATH_PARAMETERS:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and (byte := undecodable_byte(item)) is not None:
                what = name.replace("_", "-")
                raise UsageError(
                    f"{what}: not valid UTF-8 (byte 0x{byte:02x})",
                    hint="pass UTF-8 text; check the terminal's or the script's encoding",
                )


def describe(error: ToolselError) -> str:
    """The error's one line; a registry problem also names the lint rule that explains it."""
    from toolsel.errors import RegistryError
    from toolsel.registry.model import LoadProblem

    problem = error.problem if isinstance(error, RegistryError) else None
    if not isinstance(problem, LoadProblem):
        return str(error)
    from toolsel.lint import rule_for_problem

    where = f"{problem.file}:{problem.line}:{problem.column}: "
    return str(error).replace(where, f"{where}{rule_for_problem(problem.kind).id} ", 1)


def warn(message: str) -> None:
    """A one-line note on stderr that does not stop the command."""
    from toolsel.render.escape import visible

    typer.echo(f"toolsel: {visible(message)}", err=True)


def warn_cases(found: CaseFile, problems: Iterable[CaseProblem] = (), suffix: str = "") -> None:
    """A case file's notes on stderr, then each of `problems` with its place (and `suffix`:
    what became of the case)."""
    for note in found.notes:
        warn(note)
    for problem in problems:
        warn(problem.located(found.file) + suffix)


def load_registry(
    paths: list[Path] | None, *, no_cache: bool, namespace: bool = False, example: bool = False
) -> Registry:
    from toolsel.registry import load_registry as load

    return load(registry_paths(paths, namespace=namespace, example=example), use_cache=not no_cache)


def check_registry(
    paths: list[Path] | None, *, no_registry: bool, namespace: bool, no_cache: bool
) -> Registry | None:
    """The registry `replay` and `stats` check calls against: `-r`, else the project's own
    registry when it has one, else none."""
    if no_registry:
        if paths:
            raise UsageError("give -r/--registry or --no-registry, not both")
        return None
    if not paths:
        from toolsel.sources import project_registry_paths

        paths = project_registry_paths()
        if paths is None:
            return None
    return load_registry(paths, no_cache=no_cache, namespace=namespace)


def registry_paths(
    paths: list[Path] | None, *, namespace: bool = False, example: bool = False
) -> FileList:
    """The registry files of `registry_sources`, expanded and, with `--namespace`, named
    as Claude Code names MCP tools."""
    from toolsel.sources import registry_files

    return registry_files(registry_sources(paths, example=example), namespace=namespace)


def registry_sources(paths: list[Path] | None, *, example: bool = False) -> list[Path]:
    """The registry as given: `-r`, else the project's (`[tool.toolsel] registry`, or
    ./registries/). With neither, `example` commands (rank, prompt, deps, serve, mcp: the
    quickstart) use the bundled example registry and say so on stderr; every other command
    (lint, test, eval: a check must check the user's files) stops with exit 2."""
    if paths:
        return paths  # as given (a FileList already expanded keeps its server names)
    from toolsel.sources import NO_REGISTRY, bundled_registry, project_registry_paths

    project = project_registry_paths()
    if project is not None:
        return project
    if not example:
        raise UsageError(
            NO_REGISTRY,
            hint="e.g. toolsel lint registries/; `toolsel init` writes a starter registry",
        )
    warn("using the bundled example registry (pass -r PATH, or set `[tool.toolsel] registry`)")
    return [bundled_registry()]


def embedded(
    index: PreparedIndex, methods: Iterable[Method], prompts: Sequence[str] = (), *, use_cache: bool
) -> dict[str, np.ndarray]:
    """`prepare_methods` with progress bars: each method's tool vectors, and the prompts'."""
    from toolsel.ranking.semantic import prepare_methods
    from toolsel.render.progress import embedding_progress, embedding_progress_prompts

    return prepare_methods(index, methods, prompts, use_cache=use_cache,
                           progress=embedding_progress, prompt_progress=embedding_progress_prompts)  # fmt: skip


def split_values(values: list[str] | None) -> list[str]:
    """Repeatable, comma-separated option values, flattened."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


@contextlib.contextmanager
def output(path: Path | None, *, inputs: Iterable[str | Path] = ()) -> Iterator[IO[str]]:
    """Standard output, or `path` written atomically: a temporary file in the same folder,
    fsynced and renamed over `path` only once everything was written, so a full disk or an
    interrupt leaves the previous report whole. A FIFO or a device (`/dev/stdout`) is
    written in place, never replaced. Refuses to overwrite one of the command's `inputs`.
    Any failure to write is exit 2, never the exit code of the findings."""
    if path is None:
        yield sys.stdout
        return
    from toolsel.inputs import display_path, os_reason

    shown = display_path(path)
    check_output(path, inputs)
    if path.exists() and not path.is_file() and not path.is_dir():
        yield from _write_in_place(path, shown)
        return
    folder = path.parent if str(path.parent) else Path()
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise UsageError(f"{shown}: cannot write: {os_reason(exc)}") from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        Path(temporary).replace(path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise UsageError(f"{shown}: cannot write: {os_reason(exc)}") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_output(path: Path | None, inputs: Iterable[str | Path]) -> None:
    """Refuse an --output-file that is one of the inputs (before any work is done)."""
    if path is None or not path.exists():
        return
    from toolsel.inputs import display_path

    for item in inputs:
        with contextlib.suppress(OSError):
            if Path(item).exists() and path.samefile(item):
                raise UsageError(
                    f"{display_path(path)}: refusing to overwrite an input with the report",
                    hint="pass another --output-file",
                )


def _write_in_place(path: Path, shown: str) -> Iterator[IO[str]]:
    from toolsel.inputs import os_reason

    try:
        with path.open("w", encoding="utf-8") as handle:
            yield handle
    except OSError as exc:
        raise UsageError(f"{shown}: cannot write: {os_reason(exc)}") from None
