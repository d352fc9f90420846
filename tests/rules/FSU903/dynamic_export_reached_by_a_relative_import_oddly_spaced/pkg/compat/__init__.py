"""Forwards every name it lacks to the NPU adapter (a lazy package export)."""
import importlib


def __getattr__(name):
    return getattr(importlib.import_module("pkg.npu_adapter"), name)
