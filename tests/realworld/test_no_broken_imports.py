"""Issue 32, item 5: FSU306 never reports an import that Python resolves. Over the whole of every real
torch-npu release the suite downloads, and over the installed torch itself, it finds nothing: every import
there works (the packages are released and imported by their users), so any finding would be untrue."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from fsdp_unpatch import api
from tests.realworld.packages import MIGRATED, PATCHED, Unavailable, sources

pytestmark = pytest.mark.slow


def _fetch(version: str) -> Path:
    try:
        return sources(version)
    except Unavailable as error:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must fetch the real releases: {error}")
        pytest.skip(str(error))


def _broken(root: Path) -> list[str]:
    found = api.check_paths([str(root)], select="FSU306", use_cache=False, jobs=1)
    return [f"{f.path}:{f.span.line}: {f.message}" for f in found]


@pytest.mark.parametrize("version", PATCHED + MIGRATED)
def test_no_untrue_broken_import_in_a_real_release(version: str) -> None:
    root = _fetch(version)
    assert (root / "torch_npu" / "__init__.py").is_file()
    assert _broken(root) == []


def test_no_untrue_broken_import_in_the_installed_torch() -> None:
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None
    root = Path(spec.origin).parent.parent
    assert _broken(root / "torch" / "distributed") == []
