"""One `upgrade` run: the kept overrides of the paths (found by `check` at the `--from` release), each judged
against the `--from` and `--to` releases of the bundled data and the user catalog."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from fsdp_unpatch.fingerprint.releases import Release, all_releases, pick
from fsdp_unpatch.i18n import Phrase
from fsdp_unpatch.upgrade.analysis import Verdict, judge, private_name_changes


class UpgradeError(ValueError):
    """Bad input: the message (a `Phrase`, or text already in the reader's language) says what."""


@dataclass
class UpgradeResult:
    old: Release
    new: Release
    verdicts: list[Verdict]
    warnings: list[str] = field(default_factory=list)  # `Phrase`s (a learnt release file that cannot be used)
    chosen_by: str = "--from"  # where `--from` came from without the flag: the target torch `check` resolves

    @property
    def breaks(self) -> bool:
        return any(v.breaks for v in self.verdicts)

    def to_dict(self) -> dict:
        return {
            "from": self.old.version,
            "to": self.new.version,
            "from_chosen_by": self.chosen_by,  # "--from", or as `check` names its target ("installed torch", ...)
            "from_source": self.old.origin,  # "bundled", or the user catalog's file of the release
            "to_source": self.new.origin,
            "breaks": self.breaks,
            "overrides": [v.to_dict() for v in self.verdicts],
        }


def run_upgrade(
    paths: Sequence[str],
    to_version: str,
    from_version: Optional[str],
    catalog_dir: Optional[str],
    config: Optional[str] = None,
    isolated: bool = False,
) -> UpgradeResult:
    from fsdp_unpatch.config.request import Request
    from fsdp_unpatch.run.session import UsageError, execute, prepare
    from fsdp_unpatch.upgrade.overrides import fsdp2_imports, overrides
    from fsdp_unpatch.upgrade.store import catalog_folder, learnt

    extra, warnings = learnt(catalog_folder(catalog_dir))
    releases = all_releases(extra)
    try:
        plan = prepare(
            Request(
                tuple(paths),
                no_cache=True,
                config=config,
                isolated=isolated,
                target_torch=from_version,
                catalog_dir=catalog_dir,  # the run that finds the overrides knows the same releases
            )
        )
    except UsageError as error:
        raise UpgradeError(str(error)) from None
    if plan.missing:
        raise UpgradeError(Phrase("{path}: no such file or directory", path=plan.missing[0]))
    old = pick(releases, from_version or str(plan.target_torch.lowest))
    new = pick(releases, to_version)
    known = ", ".join(releases)
    for wanted, found in ((from_version or str(plan.target_torch.lowest), old), (to_version, new)):
        if found is None:
            raise UpgradeError(
                Phrase(
                    "torch {wanted} is not known (known: {known}; teach it with `catalog add`)",
                    wanted=wanted,
                    known=known,
                )
            )
    assert old is not None and new is not None
    findings = execute(plan, 1).remaining
    verdicts = []
    for override in overrides(findings, old):
        verdict = judge(
            override.target,
            override.function,
            override.path,
            override.line,
            old,
            new,
            releases,
            originals=override.originals,
        )
        verdicts.append(verdict)
    for path in sorted({v.path for v in verdicts}):
        names = private_name_changes(fsdp2_imports(path), old, new)
        if names:
            verdicts.append(Verdict("(imports)", path, names[0].line or 1, "imports", names))
    verdicts.sort(key=lambda v: (v.worst, v.path, v.line))
    return UpgradeResult(old, new, verdicts, warnings, "--from" if from_version else plan.target_torch_origin)
