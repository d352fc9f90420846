# The trees under tests/rules/<CODE>/<case>/ are inputs of fsdp-unpatch (tests/test_rule_cases.py runs
# them), not tests of this project: their `test_*.py` files belong to the fixture projects.
collect_ignore_glob = ["*"]
