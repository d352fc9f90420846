"""Applying fixes: edits to a module, whole-module edits, writing files all or nothing."""
