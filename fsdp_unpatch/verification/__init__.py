"""Evidence that a migration keeps training identical (`verify`) and that the machine meets its
preconditions (`doctor`).

The modules here hold the logic only; the click commands live in `fsdp_unpatch.commands`. Nothing in
this package imports torch at import time: torch is an optional extra (`fsdp-unpatch[verify]`) and is
imported inside the functions that need it, or in the worker processes.
"""
