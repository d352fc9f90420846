"""fsdp-unpatch: find and retire monkey-patches of PyTorch FSDP2 internals."""

__version__ = "0.2.0"

# Where the project lives; pyproject.toml's [project.urls] say the same (tests/test_packaging.py checks).
HOMEPAGE = "https://git.example.invalid/fsdp-unpatch"
README_URL = HOMEPAGE + "#readme"
