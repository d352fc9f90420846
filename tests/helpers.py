"""Shared test helpers: run the engine in-process on a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from fsdp_unpatch.analysis.plan import Options
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.model import RunOptions, RunResult
from fsdp_unpatch.run.batch import run


def run_tree(
    root: Path,
    *,
    fix: bool,
    write: bool = True,
    torch: str = "2.13",
    unsafe_fixes: bool = False,
    keep: Optional[frozenset] = None,
    selected: Optional[Callable[[str, str], bool]] = None,
) -> RunResult:
    options = RunOptions(
        analysis=Options(target_torch=Version.parse(torch), keep=keep or frozenset()),
        fix=fix,
        write=write,
        unsafe_fixes=unsafe_fixes,
        covered=(str(root),),  # as the command line gives it: the project the import net searches
        **({"selected": selected} if selected is not None else {}),
    )
    return run(discover([str(root)]), load_catalog(), options)


def fix_tree(root: Path, **kwargs) -> RunResult:
    return run_tree(root, fix=True, **kwargs)


def check_tree(root: Path, **kwargs) -> RunResult:
    return run_tree(root, fix=False, **kwargs)


def cli_runner():
    """A click CliRunner that keeps standard error apart (click < 8.2 mixes it in unless told not to)."""
    import inspect

    from click.testing import CliRunner

    separate = {"mix_stderr": False} if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters else {}
    return CliRunner(**separate)
