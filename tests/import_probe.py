"""Which of a tree's modules a fresh interpreter imports, torch already loaded once (tests/test_import_safety_property.py).

Importing torch costs seconds; the sweep asks the question two dozen times. A server process imports torch once
and forks a child for each question: the child is the server as it stood after `import torch` (nothing of an
earlier tree is in it), imports the modules with the tree first on sys.path, and writes the names it could import
to a file.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

_SERVER = r"""
import json, os, sys
import torch  # the cost every question would pay again

for line in sys.stdin:
    request = json.loads(line)
    child = os.fork()
    if child == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.chdir(request["tree"])
        sys.path[:0] = [request["tree"]]
        sys.dont_write_bytecode = True
        import importlib
        with open(request["out"], "w") as out:
            for name in request["modules"]:
                try:
                    importlib.import_module(name)
                except BaseException:
                    continue
                out.write(name + "\n")
                out.flush()
        os._exit(0)
    os.waitpid(child, 0)
    sys.stdout.write("done\n")
    sys.stdout.flush()
"""


class ImportProbe:
    """One server (see the module's docstring); `close()` ends it."""

    def __init__(self) -> None:
        self._server = subprocess.Popen(
            [sys.executable, "-c", _SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=os.path.abspath(os.sep),  # nothing of the working folder on sys.path while torch loads
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )

    def importable(self, tree: Path, modules: list[str], timeout: float = 600) -> set[str]:
        out = tree.parent / f"{tree.name}.importable.txt"
        out.unlink(missing_ok=True)
        request = {"tree": os.fspath(tree), "modules": modules, "out": os.fspath(out)}
        assert self._server.stdin is not None and self._server.stdout is not None
        self._server.stdin.write(json.dumps(request) + "\n")
        self._server.stdin.flush()
        ready, _, _ = select.select([self._server.stdout], [], [], timeout)
        if not ready or self._server.stdout.readline() != "done\n":
            raise RuntimeError(f"the import probe gave no answer for {tree} (exit code {self._server.poll()})")
        return set(out.read_text().split()) if out.exists() else set()

    def close(self) -> None:
        if self._server.stdin is not None:
            self._server.stdin.close()
        self._server.wait(timeout=60)
