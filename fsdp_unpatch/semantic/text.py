"""Source text as messages quote it."""

from __future__ import annotations


def short(text: str, limit: int = 60) -> str:
    """`text` on one line, cut to `limit` characters with "..." when longer."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")
