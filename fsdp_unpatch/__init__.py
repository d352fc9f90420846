"""fsdp-unpatch: find and retire monkey-patches of PyTorch FSDP2 internals."""

__version__ = "0.1.0"
