"""What the steps of planning one file share: the analysis they fill, and what earlier steps decided.

The planner (`plan.py`) runs the steps in order: install sites (`install_sites.py`), other overrides and
patch completeness (`other_overrides.py`), replacements (`replacements.py`), installers (`installers.py`),
same-device copies (`copies.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from fsdp_unpatch.analysis.collect import Facts, RawInstall
from fsdp_unpatch.analysis.file_analysis import FileAnalysis
from fsdp_unpatch.analysis.planned import Planned
from fsdp_unpatch.analysis.site_judging import AnyJudge
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.fingerprint import Evidence
from fsdp_unpatch.semantic.scope_verdict import Verdict

# Install sites by the name of the replacement they install, each with its finding.
Sites = dict[str, list[tuple[RawInstall, Planned]]]


@dataclass
class PlanState:
    result: FileAnalysis
    catalog: Catalog
    options: Options
    judge: AnyJudge
    removed_sites: dict[int, Planned] = field(default_factory=dict)  # id(RawInstall.removable) -> its finding
    # What each replacement function was proven to be (id of the function -> its evidence).
    proofs: dict[int, Evidence] = field(default_factory=dict)
    # Replacement functions whose install sites stay: their body is left exactly as it is.
    kept_replacements: set[int] = field(default_factory=set)
    verdicts: dict[int, Verdict] = field(default_factory=dict)  # id(install) -> override or not
    # The proven sites, by the replacement they install: the replacement may go with them.
    pending: Sites = field(default_factory=dict)
    # Replacements whose install sites all go but that the file names elsewhere too.
    held: Sites = field(default_factory=dict)

    @property
    def facts(self) -> Facts:
        return self.result.facts

    def add(self, planned: Planned) -> Planned:
        self.result.planned.append(planned)
        return planned

    def line(self, node: cst.CSTNode) -> int:
        return self.result.position(node).start.line
