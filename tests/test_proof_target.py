"""A proof names the target torch's release (issue 31, item 2): a copy whose body several releases share is said
to match the newest of them within the run's target, with the normalisations that release needed; with none in
the target, the newest match, said to be outside it.

The expectations are read off the shipped upstream data: torch 2.9.1's `finalize_backward` is the body of every
release from 2.7.0 to 2.12.1 exactly (2.6.0 spells the stream `torch.cuda`: the "device stream accessor"
normalisation), and 2.13.0 changed it.
"""

from __future__ import annotations

import pytest

from fsdp_unpatch import i18n
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.fingerprint import compare_to_upstream
from fsdp_unpatch.fingerprint.upstream import default_upstream
from fsdp_unpatch.fingerprint.wording import proof
from fsdp_unpatch.reporting.localize import localized

FINALIZE = "_fsdp_param_group.FSDPParamGroup.finalize_backward"


@pytest.fixture(scope="module")
def evidence():
    upstream = default_upstream().functions[FINALIZE]["2.9.1"]
    found = compare_to_upstream(upstream.source, FINALIZE, scope=upstream.scope)
    assert found.matched and "2.13.0" not in found.matched_versions
    assert found.matched_versions[:2] == ("2.6.0", "2.7.0") and found.matched_versions[-1] == "2.12.1"
    return found


def releases(*texts: str) -> tuple[Version, ...]:
    return tuple(Version.parse(text) for text in texts)


@pytest.mark.parametrize(
    "target, said",
    [
        (("2.9",), "matches torch 2.9.1 `finalize_backward` exactly"),
        (("2.6",), "matches torch 2.6.0 `finalize_backward` up to: device stream accessor"),
        (("2.8", "2.9", "2.10"), "matches torch 2.10.0 `finalize_backward` exactly"),  # a range: its newest match
        (("2.5", "2.6"), "matches torch 2.6.0 `finalize_backward` up to: device stream accessor"),
        (("2.13",), "matches torch 2.12.1 `finalize_backward` (outside the target torch) exactly"),
        ((), "matches torch 2.12.1 `finalize_backward` exactly"),  # no target: the newest match, as before
    ],
)
def test_the_proof_names_the_newest_match_within_the_target(evidence, target, said) -> None:
    assert proof(FINALIZE, evidence, releases(*target)) == said


def test_each_matched_release_has_its_own_normalisations(evidence) -> None:
    assert len(evidence.matched_normalisations) == len(evidence.matched_versions)
    assert evidence.match_in({"2.6"}) == ("2.6.0", ("device stream accessor",))
    assert evidence.match_in({"2.12"}) == ("2.12.1", ())
    assert evidence.match_in({"2.13", "2.14"}) is None


def test_the_outside_proof_is_said_in_chinese() -> None:
    message = "matches torch 2.12.1 `finalize_backward` (outside the target torch) up to: device stream accessor"
    before = i18n.language()
    i18n.set_language(i18n.CHINESE)
    try:
        said = localized(message)
    finally:
        i18n.set_language(before)
    assert (
        said == "与 torch 2.12.1 的 `finalize_backward` 一致（该版本不在目标 torch 内），差异仅为：设备 stream 访问方式"
    )
