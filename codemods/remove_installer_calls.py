"""Delete calls and imports of patch installers that are removed in another module (FSU004).

    python -m libcst.tool codemod fsdp_unpatch.codemods.remove_installer_calls.RemoveInstallerCalls \
        --installer legacy_npu.distributed.fsdp._add_fsdp_patch._apply_fsdp_patch PATH
"""

from __future__ import annotations

import argparse
from typing import Sequence

import libcst as cst
from libcst.codemod import CodemodContext

from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.plan import FileAnalysis, Options
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import target_torch
from fsdp_unpatch.rules.registry import with_role

from ._base import UnpatchCodemod


class RemoveInstallerCalls(UnpatchCodemod):
    DESCRIPTION = "Delete calls and imports of removed FSDP2 patch installers."
    CODES = frozenset({with_role("installer-call").code})

    def __init__(self, context: CodemodContext, installer: Sequence[str] = ()) -> None:
        super().__init__(context)
        self.installers = tuple(installer)

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument(
            "--installer",
            action="append",
            default=[],
            metavar="QUALIFIED_NAME",
            help="Qualified name of a removed installer, e.g. pkg.patch_module._apply_fsdp_patch.",
        )

    def project_result(self, tree: cst.Module):
        # Installers named on the command line were removed in files outside this run: analyse alone.
        return None if self.installers else super().project_result(tree)

    def removed_elsewhere(self) -> frozenset[str]:
        # An import of a named installer breaks once the installer is gone, whether or not it is deleted here.
        return frozenset(q.rsplit(".", 1)[-1] for q in self.installers)

    def analyze(self, tree: cst.Module) -> FileAnalysis:
        analysis = super().analyze(tree)
        own = analysis.module_name + "."
        installers = {q: None for q in self.installers if not q.startswith(own)}
        catalog = load_catalog()
        options = Options(target_torch=target_torch(None, catalog.newest_torch)[0])
        analysis.planned.extend(dispatch("installer-calls", analysis, installers, catalog, options=options))
        return analysis
