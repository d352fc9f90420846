"""Hypothesis profiles for the property tests (tests/test_properties.py).

- `fast` (the default): a fixed seed (derandomize) and few examples, so that every run of the suite is
  quick and sees the same inputs.
- `long`: random seeds and many more examples, for a hunt: `HYPOTHESIS_PROFILE=long python -m pytest
  tests/test_properties.py`.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,  # parsing generated code has no stable timing
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile("fast", max_examples=40, derandomize=True, database=None, print_blob=True, **_COMMON)
settings.register_profile("long", max_examples=2000, derandomize=False, print_blob=True, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers", "slow: trains, builds, installs, sends signals or reads real trees; `pytest -m 'not slow'` skips it"
    )


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory):
    """The wheel and sdist `python -m build` makes of this checkout (built once per session, ~15 s)."""
    from tests.packaging import build, snapshot

    source = snapshot(tmp_path_factory.mktemp("source") / "fsdp-unpatch")
    return build(source, tmp_path_factory.mktemp("dist"))


# The cache's signing key lives in the user's cache folder (fsdp_unpatch/run/cache.py): the tests, and the
# commands they run in subprocesses, use one of their own instead of the real one.
if "FSDP_UNPATCH_TEST_CACHE_HOME" not in os.environ:
    import tempfile

    os.environ["FSDP_UNPATCH_TEST_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="fsu-xdg-")
