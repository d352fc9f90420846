"""Shell completion through click: the scripts are produced and complete commands and option values."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def complete(shell_mode: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "_FSDP_UNPATCH_COMPLETE": shell_mode, **env}
    # the console script's name is what click derives the variable from: run it under that name
    code = "import sys; from fsdp_unpatch.cli import main; sys.exit(main(prog_name='fsdp-unpatch'))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment)


@pytest.mark.parametrize(
    "shell, marker",
    [
        ("bash", "complete -o nosort -F _fsdp_unpatch_completion fsdp-unpatch"),
        ("zsh", "compdef _fsdp_unpatch_completion fsdp-unpatch"),
        ("fish", "complete --no-files --command fsdp-unpatch"),
    ],
)
def test_completion_script_is_produced(shell: str, marker: str) -> None:
    result = complete(f"{shell}_source")
    assert result.returncode == 0, result.stderr
    assert marker in result.stdout


def test_bash_completes_commands_and_output_formats() -> None:
    commands = complete("bash_complete", COMP_WORDS="fsdp-unpatch ch", COMP_CWORD="1")
    assert commands.stdout.split() == ["plain,check"]
    formats = complete("bash_complete", COMP_WORDS="fsdp-unpatch check --output-format j", COMP_CWORD="3")
    assert sorted(formats.stdout.split()) == ["plain,json", "plain,json-lines", "plain,junit"]
