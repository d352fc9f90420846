"""fsdp-unpatch: find and retire monkey-patches of PyTorch FSDP2 internals."""

__version__ = "0.2.0"

# Where the project lives; pyproject.toml's [project.urls] say the same (tests/test_packaging.py checks).
HOMEPAGE = "https://git.example.invalid/fsdp-unpatch"
README_URL = HOMEPAGE + "#readme"
# Each rule's section of the docs: docs/rules.md has a heading a rule code (scripts/gen_readme_rules.py), so
# its anchor is the code in lower case. A JSON finding's `url`, a SARIF rule's `helpUri` and rdjson's `code.url`.
RULES_URL = HOMEPAGE + "/-/blob/main/docs/rules.md"  # the host is a GitLab (templates/gitlab-ci.yml: /-/raw/)


def rule_url(code: str) -> str:
    return f"{RULES_URL}#{code.lower()}"
