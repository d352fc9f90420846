"""Hypothesis profiles for the property tests (tests/test_properties.py).

- `fast` (the default): a fixed seed (derandomize) and few examples, so that every run of the suite is
  quick and sees the same inputs.
- `long`: random seeds and many more examples, for a hunt: `HYPOTHESIS_PROFILE=long python -m pytest
  tests/test_properties.py`.
"""

from __future__ import annotations

import os
import signal
import sys

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,  # parsing generated code has no stable timing
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile("fast", max_examples=40, derandomize=True, database=None, print_blob=True, **_COMMON)
settings.register_profile("long", max_examples=2000, derandomize=False, print_blob=True, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

# This project's machines export PYTHONDONTWRITEBYTECODE=1: every `python -m fsdp_unpatch` the suite starts
# (hundreds) would compile the tool's modules from source again. A pip-installed tool has its bytecode from
# install time; so do the suite's processes here (written beside the sources, once, by the first to import).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# The tests read the tool's English output: a developer's Chinese locale would switch it to Chinese (i18n.py).
# tests/test_i18n.py sets the locale where it tests that choice.
for _variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
    if os.environ.get(_variable, "").lower().startswith("zh"):
        os.environ[_variable] = "C.UTF-8"


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: trains, builds, installs, sends signals, reads real trees, or repeats an equivalence check under "
        "older torches or through the plain engine; `pytest -m 'not slow'` skips it",
    )
    if not hasattr(config, "workerinput"):  # the main process: before pytest-xdist starts its workers
        # The workers share this session's cache home (tests/conftest.py, below). Its signing key is made on
        # first use; made here once, no two workers race to create it (one could read it still empty).
        from fsdp_unpatch.run.cache import user_secret

        user_secret()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """The groups of tests that share a worker, the longest units first (tests/scheduling.py)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.scheduling import make_scheduler

    return make_scheduler(config, log)


@pytest.fixture(scope="session", autouse=True)
def memoised_upstream_comparison():
    """The engine's comparisons with upstream, and the prefilter's parse test of a file's bytes, answered from
    one memo per session (tests/session_caches.py)."""
    from fsdp_unpatch import fingerprint
    from fsdp_unpatch.analysis import prefilter
    from tests.session_caches import memoised, memoised_parses

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fingerprint, "compare_to_upstream", memoised(fingerprint.compare_to_upstream))
        patch.setattr(prefilter, "_parses", memoised_parses(prefilter._parses))
        yield fingerprint.compare_to_upstream


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

# The releases a developer taught the tool (`fsdp-unpatch catalog add`, `catalog/learnt.py`) are upstream for
# `check` too: the suite reads a user catalog of its own, empty unless a test fills one.
os.environ.pop("FSDP_UNPATCH_CATALOG_DIR", None)
if "FSDP_UNPATCH_TEST_DATA_HOME" not in os.environ:
    import tempfile

    os.environ["FSDP_UNPATCH_TEST_DATA_HOME"] = os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="fsu-data-")


@pytest.fixture
def ctrl_c_raises():
    """SIGINT as Python sets it up when it starts with SIGINT at its default: `KeyboardInterrupt`, not blocked.

    A process can start with SIGINT ignored, and then Python leaves it ignored: a non-interactive shell starts
    its background jobs (`python -m pytest ... &`, how a long whole-suite run is often started) that way. With
    SIGINT ignored these tests' own Ctrl-C raises nothing, and they failed: that, not an earlier test, was
    why they failed only in whole-suite runs (no test of the suite changes SIGINT's handler or mask)."""
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
    yield
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    signal.signal(signal.SIGINT, handler)
