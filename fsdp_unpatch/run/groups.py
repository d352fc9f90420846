"""Disjoint sets of file indices: which files of a run must be decided (or written) together."""

from __future__ import annotations

from typing import Iterable


class Groups:
    """Union-find over integers; every index handed to `add` or `join` is in exactly one group."""

    def __init__(self) -> None:
        self._parent: dict[int, int] = {}

    def find(self, i: int) -> int:
        parent = self._parent
        parent.setdefault(i, i)
        while parent[i] != i:
            parent[i] = parent[parent[i]]  # path halving keeps later finds short
            i = parent[i]
        return i

    def add(self, i: int) -> None:
        self.find(i)

    def join(self, members: Iterable[int]) -> None:
        members = list(members)
        for other in members[1:]:
            self._parent[self.find(other)] = self.find(members[0])
        if members:
            self.find(members[0])

    def members(self) -> dict[int, list[int]]:
        """root -> indices, each list in increasing order."""
        out: dict[int, list[int]] = {}
        for i in sorted(self._parent):
            out.setdefault(self.find(i), []).append(i)
        return out
