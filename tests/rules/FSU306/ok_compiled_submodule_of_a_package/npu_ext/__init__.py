"""The package; its `_C` is a compiled extension built next to this file, not Python source."""
