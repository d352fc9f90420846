"""libcst codemods of fsdp-unpatch, one per transformation, usable on their own.

    python -m libcst.tool codemod fsdp_unpatch.codemods.unpatch.Unpatch PATH

Each command runs fsdp-unpatch's analysis on the module it is given and applies the edits of its own
rules; `Unpatch` applies them all, as `fsdp-unpatch fix` does for a single file.
"""
