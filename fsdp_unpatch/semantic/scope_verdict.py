"""What scoping says of one install site (`semantic/ast_scoping.py`, on the `ast` model): an override or not,
the releases it overrides in, and where its original is restored."""

from __future__ import annotations

from dataclasses import dataclass, field

# Attributes that only name an object for display: a string stored there changes no behaviour.
NAMING_DUNDERS = frozenset({"__module__", "__qualname__", "__doc__"})


@dataclass
class Verdict:
    """What an install site is: `override` False for a new attribute or a restore."""

    override: bool
    releases: str = ""  # when only some releases define the name: those ("2.9+")
    restored_at: list[int] = field(default_factory=list)  # lines that put the saved original back

    def note(self, message: str, name: str) -> str:
        """What to add to the install's message (the releases only when it does not show them yet)."""
        note = ""
        if self.releases and f"torch {self.releases})" not in message:
            note += f"; an override in torch {self.releases} only (no other release defines `{name}`)"
        if self.restored_at:
            lines = sorted(set(self.restored_at))
            note += f"; scoped: the original is restored at line{'s' if len(lines) > 1 else ''} " + ", ".join(
                map(str, lines)
            )
        return note
