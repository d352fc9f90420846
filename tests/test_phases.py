"""`verify` shows its phases at a terminal (issue 31, item 8), and never in pipes, CI or JSON output."""

from __future__ import annotations

import io

from rich.console import Console

from fsdp_unpatch.run.progress import Phases, phases_shown


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_phases_only_for_a_person_at_a_terminal() -> None:
    assert phases_shown(_Terminal(), {}, "text")
    assert not phases_shown(io.StringIO(), {}, "text")  # a pipe
    assert not phases_shown(_Terminal(), {"CI": "true"}, "text")
    assert not phases_shown(_Terminal(), {}, "json")


def test_a_shown_phase_reaches_the_terminal_and_a_hidden_one_nothing() -> None:
    shown = _Terminal()
    with Phases(True, Console(file=shown, force_terminal=True)) as phases:
        phases.now("Training the patched and the migrated runs")
    assert "Training the patched" in shown.getvalue()
    with Phases(False) as phases:
        phases.now("Training")  # nothing to write to, nothing raised
