"""The rules as declared: one module a family, each rule declared there once (`registry.declare`).

These modules are data and stay cheap to import (no libcst, no analysis): the registry imports every one
of them to list the rules, also on paths that never parse a file (configuration checks, `rules`). The
logic that plans the findings lives in `analysis/plan.py`, `rules/<family>.py` and `run/linking.py`, as
each declaration's `planned_in` says; a rule that needs one file's facts can bring its own `check`, which
imports what it needs when it runs (`computed_setattr.py`).
"""
